/* pool.c: the host threads of pool.h. Threads start on first use (as many as a job asks for, up to
 * the CPUs) and wait on a condition variable between jobs, so a job costs a wake-up, not a thread
 * start (about 20 us each, which every host-path sum paid for its lanes before). */
#define _GNU_SOURCE /* sched_getaffinity: the CPUs this process may run on */
#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <stdatomic.h>
#include <unistd.h>

#define MAX_THREADS 256
/* How long a job's caller, its own tasks done, polls for the pool's threads to finish theirs before
 * it sleeps: a wake-up from pthread_cond_wait took 10 us and more on these virtual machines, longer
 * than a task of a 2 MiB sum. Build machine (2 CPUs), wall time of cured.sum(device="cpu"),
 * 2026-11-27 14:46 / 14:50 UTC, sleeping -> polling (one thread in brackets): float32 2^19 42.8 to
 * 44.9 -> 27.5 to 28.4 us (34.0 to 35.3), 2^20 46.4 to 54.3 -> 40.6 to 40.8 (57.5 to 59.2); int64
 * 2^18 24.2 to 30.6 -> 22.0 to 22.2 (23.3 to 23.8), 2^20 68.4 to 68.7 -> 55.8 to 56.6 (86.5). */
#define POLL_NS 50000
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
static inline void cpu_relax(void) { _mm_pause(); }
#else
static inline void cpu_relax(void) {}
#endif

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static pthread_mutex_t job_lock = PTHREAD_MUTEX_INITIALIZER; /* held by the caller whose job holds the pool */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;     /* everything below */
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;       /* a job was posted */
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;   /* a pool thread left the job */
static int started;                                          /* pool threads running */
static uint64_t generation;                                  /* jobs posted so far */
static cured_task_fn job_fn;
static void *job_context;
static int64_t job_tasks;
static int job_helpers;                                      /* pool threads the job wants */
static int joined;                                           /* pool threads that took part in it */
static _Atomic int inside;                                   /* pool threads taking its tasks now */
static _Atomic int64_t next_task;

int cured_pool_capacity(void) {
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
#endif
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? (int)(cpus < MAX_THREADS ? cpus : MAX_THREADS) : 1;
}

int cured_pool_threads(void) {
    pthread_mutex_lock(&lock);
    const int threads = started;
    pthread_mutex_unlock(&lock);
    return threads;
}

static void take_tasks(cured_task_fn fn, void *context, int64_t tasks) {
    for (int64_t k; (k = atomic_fetch_add(&next_task, 1)) < tasks;) fn(context, k);
}

/* A pool thread: joins each job posted after `seen` (the jobs posted before it started), if the job
 * wants another helper. It counts itself `inside` before it lets go of the lock, so the job's caller
 * waits for it; a thread that comes after its job's end finds it wants no helper. */
static void *pool_thread(void *started_after) {
    uint64_t seen = (uint64_t)(uintptr_t)started_after;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (generation == seen) pthread_cond_wait(&wake, &lock);
        seen = generation;
        if (joined >= job_helpers) continue;
        ++joined;
        ++inside;
        const cured_task_fn fn = job_fn;
        void *const context = job_context;
        const int64_t tasks = job_tasks;
        pthread_mutex_unlock(&lock);
        take_tasks(fn, context, tasks);
        pthread_mutex_lock(&lock);
        if (--inside == 0) pthread_cond_broadcast(&finished);
    }
    return NULL;
}

/* fork(): the child has none of the pool's threads. The locks are held across the fork (after any
 * job in flight) so that none is inherited locked, and the child starts with an empty pool. */
static void before_fork(void) {
    pthread_mutex_lock(&job_lock);
    pthread_mutex_lock(&lock);
}

static void after_fork_in_parent(void) {
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&job_lock);
}

static void after_fork_in_child(void) {
    started = joined = inside = 0;
    pthread_cond_init(&wake, NULL);
    pthread_cond_init(&finished, NULL);
    after_fork_in_parent();
}

static pthread_once_t fork_handlers_once = PTHREAD_ONCE_INIT;
static void install_fork_handlers(void) { (void)pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child); }
void cured_pool_install_fork_handlers(void) { pthread_once(&fork_handlers_once, install_fork_handlers); }

void cured_pool_run(int64_t tasks, int threads, cured_task_fn fn, void *context) {
    cured_pool_install_fork_handlers();
    const int capacity = cured_pool_capacity();
    if (threads <= 0 || threads > capacity) threads = capacity;
    if ((int64_t)threads > tasks) threads = (int)(tasks > 0 ? tasks : 1);
    if (threads <= 1 || pthread_mutex_trylock(&job_lock) != 0) { /* alone, or the pool is another caller's */
        for (int64_t k = 0; k < tasks; ++k) fn(context, k);
        return;
    }
    pthread_mutex_lock(&lock);
    while (started < threads - 1) {
        pthread_t thread;
        pthread_attr_t attr;
        int made = pthread_attr_init(&attr) == 0;
        made = made && pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
               pthread_create(&thread, &attr, pool_thread, (void *)(uintptr_t)generation) == 0;
        pthread_attr_destroy(&attr);
        if (!made) break; /* fewer helpers: the caller takes their tasks */
        ++started;
    }
    job_fn = fn;
    job_context = context;
    job_tasks = tasks;
    job_helpers = threads - 1;
    joined = 0;
    atomic_store(&next_task, 0);
    ++generation;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
    take_tasks(fn, context, tasks);
    for (const int64_t until = now_ns() + POLL_NS; atomic_load(&inside) > 0 && now_ns() < until;) cpu_relax();
    pthread_mutex_lock(&lock);
    while (inside > 0) pthread_cond_wait(&finished, &lock);
    job_helpers = 0; /* threads that wake only now take no part in it, and run none of its tasks */
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&job_lock);
}
