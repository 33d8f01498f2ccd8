/* pool.c: the host threads of pool.h. Threads start on first use (as many as a job asks for, up to
 * the CPUs) and wait on a condition variable between jobs, so a job costs a wake-up, not a thread
 * start (about 20 us each, which every host-path sum paid for its lanes before). */
#define _GNU_SOURCE /* sched_getaffinity: the CPUs this process may run on */
#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 256
/* How long a job's caller, its own tasks done, polls for the pool's threads to finish theirs before
 * it sleeps: a wake-up from pthread_cond_wait took 10 us and more on these virtual machines, longer
 * than a task of a 2 MiB sum. Build machine (2 CPUs), wall time of cured.sum(device="cpu"),
 * 2026-11-27 14:46 / 14:50 UTC, sleeping -> polling (one thread in brackets): float32 2^19 42.8 to
 * 44.9 -> 27.5 to 28.4 us (34.0 to 35.3), 2^20 46.4 to 54.3 -> 40.6 to 40.8 (57.5 to 59.2); int64
 * 2^18 24.2 to 30.6 -> 22.0 to 22.2 (23.3 to 23.8), 2^20 68.4 to 68.7 -> 55.8 to 56.6 (86.5). */
#define POLL_NS 50000

int64_t cured_now_ns(void) {
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
static int job_helpers;                                      /* pool threads the job wants: ids 1 .. this */
static _Atomic int inside;                                   /* pool threads taking its tasks now */
/* The job's tasks cut into a contiguous range a taker (0 the caller, helper i taker i): range i is
 * [range_end[i - 1], range_end[i]), next_task[i] its first task not yet taken. */
static int64_t range_end[MAX_THREADS];
static _Atomic int64_t next_task[MAX_THREADS];
static uint64_t started_after[MAX_THREADS]; /* helper i joins jobs posted after this one */

int cured_pool_capacity(void) {
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set) < MAX_THREADS ? CPU_COUNT(&set) : MAX_THREADS;
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

/* Taker `self` of `takers` takes its own range first, then what is left of the others' (a helper that
 * wakes late, or cannot start, leaves its tasks to those already at work). So each thread reads the
 * same part of an array call after call and finds it in its own core's caches where it still is;
 * with one queue, whose tasks went to whichever thread came first, on the 2-CPU build machine (wall
 * time, 2026-11-27 14:55 UTC, one queue -> ranges; numpy.sum in brackets): float64 (4, 65536) along
 * 1 49.9 -> 28.6 us (47.0), (8, 65536) 84.1 -> 47.7 (88.0); float32 2^21 whole 84.5 to 87.7 -> 69.2
 * to 72.1 (330), int64 2^22 410 to 466 -> 386 to 390 (770). */
static void take_tasks(cured_task_fn fn, void *context, int self, int takers) {
    for (int i = 0; i < takers; ++i) {
        const int r = (self + i) % takers;
        for (int64_t k; (k = atomic_fetch_add(&next_task[r], 1)) < range_end[r];) fn(context, k);
    }
}

/* A pool thread, helper `id` (1, 2, ... as they started): joins each job posted after it started
 * that wants helpers up to its id. It counts itself `inside` before it lets go of the lock, so the
 * job's caller waits for it; a thread that comes after its job's end finds it wants no helper. */
static void *pool_thread(void *id_) {
    const int id = (int)(intptr_t)id_;
    pthread_mutex_lock(&lock);
    uint64_t seen = started_after[id];
    for (;;) {
        while (generation == seen) pthread_cond_wait(&wake, &lock);
        seen = generation;
        if (id > job_helpers) continue;
        ++inside;
        const cured_task_fn fn = job_fn;
        void *const context = job_context;
        const int takers = job_helpers + 1;
        pthread_mutex_unlock(&lock);
        take_tasks(fn, context, id, takers);
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
    started = inside = 0;
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
        started_after[started + 1] = generation;
        made = made && pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
               pthread_create(&thread, &attr, pool_thread, (void *)(intptr_t)(started + 1)) == 0;
        pthread_attr_destroy(&attr);
        if (!made) break; /* fewer helpers: the caller takes their tasks */
        ++started;
    }
    job_fn = fn;
    job_context = context;
    job_helpers = threads - 1;
    for (int i = 0; i < threads; ++i) {
        atomic_store(&next_task[i], i == 0 ? 0 : range_end[i - 1]);
        range_end[i] = tasks * (i + 1) / threads;
    }
    ++generation;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
    take_tasks(fn, context, 0, threads);
    for (const int64_t until = cured_now_ns() + POLL_NS; atomic_load(&inside) > 0 && cured_now_ns() < until;)
        cured_cpu_relax();
    pthread_mutex_lock(&lock);
    while (inside > 0) pthread_cond_wait(&finished, &lock);
    job_helpers = 0; /* threads that wake only now take no part in it, and run none of its tasks */
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&job_lock);
}
