/* gpu_internal.h: what the host-side GPU files (gpu_sum.c, staged.c, fetch.c, ...) share and
 * nothing else needs: checked CUDA calls (through faults.h's test hook), allocation alignment, the
 * test hooks' state and the lanes' kept resources. Include it after every other header. */
#ifndef CURED_GPU_INTERNAL_H
#define CURED_GPU_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "cured.h"
#include "faults.h" /* last: it redefines the CUDA calls the host code makes */

/* Runs a CUDA call; on failure records it, named `what`, in `status` and jumps to `done`. */
#define CURED_TRY(what, expr)                                                                      \
    do {                                                                                           \
        cudaError_t err_ = (expr);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            status.code = err_;                                                                    \
            status.call = (what);                                                                  \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

/* Runs a step that returns a cured_cuda_status into `status`; jumps to `done` on failure. */
#define CURED_TRY_STEP(expr)                                                                       \
    do {                                                                                           \
        status = (expr);                                                                           \
        if (status.code != cudaSuccess) goto done;                                                 \
    } while (0)

/* Records a failure in *status unless an earlier one is there already: the first is reported. */
static inline void cured_keep_first(cured_cuda_status *status, cudaError_t err, const char *what) {
    if (err != cudaSuccess && status->code == cudaSuccess) {
        status->code = err;
        status->call = what;
    }
}

static const cured_cuda_status cured_ok = {cudaSuccess, NULL};

/* The first failure among threads sharing one piece of work (staged.c's and fetch.c's lanes);
 * `failed` tells the others to stop taking work. Starts as CURED_LANES_FAILURE_INIT. */
typedef struct {
    _Atomic int failed;
    pthread_mutex_t lock;
    cured_cuda_status status;
} cured_lanes_failure;
#define CURED_LANES_FAILURE_INIT {0, PTHREAD_MUTEX_INITIALIZER, {cudaSuccess, NULL}}

static inline void cured_lanes_fail(cured_lanes_failure *f, cured_cuda_status status) {
    pthread_mutex_lock(&f->lock);
    if (f->status.code == cudaSuccess) f->status = status;
    pthread_mutex_unlock(&f->lock);
    f->failed = 1;
}

/* Device allocations are carved at this alignment: what cudaMalloc guarantees, and enough for any
 * vector load. */
#define CURED_ALIGN ((size_t)256)
static inline size_t cured_align_up(size_t bytes) { return (bytes + CURED_ALIGN - 1) / CURED_ALIGN * CURED_ALIGN; }

/* The misalignment cured_set_test_launch asked for, in bytes (0 to 15). */
int cured_test_misalign(void);

/* fork() handling (gpu_sum.c): each file that keeps CUDA resources between calls locks (1) or
 * unlocks (0) them around a fork, and forgets them in the child, which cannot use them. */
void cured_slots_lock(int lock);
void cured_slots_forget(void);
void cured_staging_lock(int lock);
void cured_staging_forget(void);

/* What staged.c keeps for each host-path lane between calls, which fetch.c borrows: two pinned
 * staging buffers (made or grown now to at least `bytes`; as they are where bytes is 0) and events
 * made on `device`: copied[b], after the lane's latest copy through buffer b; last_copy, timed. Hold
 * cured_staging_lock(1) from the call until their last use. */
typedef struct {
    void *host[2];
    cudaEvent_t copied[2], last_copy;
} cured_lane_kept;
cured_cuda_status cured_lane_keep(int lane, int device, size_t bytes, cured_lane_kept *kept);

/* An event on `device`, kept like the lanes', that orders the lanes' streams after the caller's
 * (cudaStreamWaitEvent); under cured_staging_lock(1). */
cudaError_t cured_lanes_ready_event(int device, cudaEvent_t *event);

/* The trace of one host-path sum (staged_trace.c), under cured_staging_lock(1). cured_trace_open:
 * *traced says whether this sum is traced; if so, makes an event for each of its first `chunks`
 * (up to CURED_TRACE_CHUNKS), none where it is `fed`. cured_trace_start: the host clock's zero, just
 * after the sum's first event is queued; cured_trace_clock: seconds since. cured_trace_chunk: a
 * lane's row, and, unless fed, an event queued on `stream` after the chunk's copy and first stage.
 * cured_trace_feed: a fed sum's kernel's stamps (cured_feed) and an event queued just before it.
 * cured_trace_close: after the sum's streams are waited for and before the stamps' memory is given
 * back, reads the events or stamps against `first` unless `status` failed, destroys the events
 * either way; returns `status` or its own failure. */
cured_cuda_status cured_trace_open(int64_t chunks, int fed, int *traced);
void cured_trace_start(void);
double cured_trace_clock(void);
cudaError_t cured_trace_chunk(int lane, int64_t chunk, int64_t bytes, double took, double waited, double staged,
                              cudaStream_t stream);
void cured_trace_feed(const uint64_t *stamps, cudaEvent_t launched);
void cured_trace_mark(int moment);
cured_cuda_status cured_trace_close(cudaEvent_t first, cured_cuda_status status);

#endif
