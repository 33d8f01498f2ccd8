/* pool.h: host threads kept for the life of the process, which the CPU sums (cpu_tiles.c,
 * cpu_integers.c, cpu_axis.c) and the GPU path's staging lanes (staged.c) share, so that no call
 * starts a thread. */
#ifndef CURED_POOL_H
#define CURED_POOL_H

#include <stdint.h>

/* A job's task: task k of the job, with the job's context. */
typedef void (*cured_task_fn)(void *context, int64_t task);

/* Runs fn(context, k) for every k in [0, tasks), on the calling thread and up to `threads` - 1 of the
 * pool's (0: as many as the machine has CPUs), and returns when every task is done. The tasks are cut
 * into one contiguous range a thread, which that thread takes in order, and then any thread done
 * with its own; a job's tasks may run in any order and at once. One job runs at
 * a time: while another thread's job holds the pool, and whenever a pool thread cannot be had,
 * this caller runs the tasks it cannot hand out itself, so a job always finishes. */
void cured_pool_run(int64_t tasks, int threads, cured_task_fn fn, void *context);

/* The pool's threads started so far (they live until the process ends). */
int cured_pool_threads(void);

/* The threads a job can have at most: the CPUs online, at least 1. */
int cured_pool_capacity(void);

/* The monotonic clock, in nanoseconds: what the pool polls by, and the host path's trace reads. */
int64_t cured_now_ns(void);

/* One turn of a spin wait: tells the CPU so (x86's pause), where it can. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
static inline void cured_cpu_relax(void) { _mm_pause(); }
#else
static inline void cured_cpu_relax(void) {}
#endif

/* Registers the pool's fork handlers (once; cured_pool_run does it too). A file whose locks are
 * held while it runs a job registers its own handlers after this, so that fork() takes its locks
 * before the pool's, in the order the code takes them. */
void cured_pool_install_fork_handlers(void);

#endif
