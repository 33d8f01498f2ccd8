/* staged.c: the sum of host memory, with the copy to the GPU overlapped with the reduction.
 *
 * The input goes to the device in chunks. The GPU reads pinned (page-locked) memory at the bus's
 * speed, but pageable memory, what NumPy allocates, only through the driver's own small staging (9
 * to 10 GB/s on an H200 against 55 GB/s pinned). So host threads, "lanes", copy chunks into pinned
 * staging buffers of their own, several at once (one thread's memcpy reaches about 12 GB/s), while
 * the GPU reduces the chunks staged before. How a chunk reaches the reduction's first stage is the
 * setting's mode (cured.h, cured_staging): by default (FED, V9) one kernel, queued before the lanes
 * start, reads each chunk over the bus where it is staged, as soon as a flag in mapped memory says
 * it is there, and flags the buffer free again when done: the lanes make no CUDA call a chunk. In
 * the other modes, and for other versions, each lane launches the first stage on its own stream for
 * each chunk, reading the staging buffer (DIRECT) or the copy engine's copy of it in a device buffer
 * of the lane's (COPIED), and waits on an event before it reuses a buffer. A lane has two staging
 * buffers, so it copies its next chunk while the last one is still being read.
 *
 * Chunks are whole units of the plan (cured_unit: a block's elements, or a tile), so each chunk's
 * partial sums, and then the sum, have the bits of the one-shot sum of the same version. Inputs of
 * a few chunks a lane (fed, any input) start with a ramp: chunk k < lanes holds (k + 1) / lanes of
 * a chunk, so the lanes' first copies end one after another and the bus has work from the first
 * short chunk on, where with chunks of one size every lane copied its first chunk at once and the
 * bus waited for all of them (CURED_RAMP_MAX_CHUNKS_A_LANE has the figures); fed chunks also shrink
 * likewise at the end, since one block reads a chunk (cured_ramp). The device holds only partial sums
 * (and, COPIED, the lanes' buffers), so an input larger than the GPU's memory is summed too. CUB, whose reduction cannot be cut into pieces, gets its chunks copied into one whole device
 * buffer and is run once at the end.
 *
 * What a sum needs besides its device memory lives across calls: the lanes are the pool's threads
 * (pool.h), their streams come from the stream pool, and their pinned staging buffers (pinning costs
 * about 3 ms for 8 MiB), events and the fed mode's flags are allocated on first use and kept for the
 * life of the process,
 * like the device memory pool; one host-path sum at a time uses them (the bus is the limit anyway),
 * or fetch.c, which brings many results back to the host through them. A probe may trace a sum's
 * chunks (staged_trace.c). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "exact.h"
#include "pool.h"
#include "gpu_internal.h"

/* The lanes' default (docs/host_path.md; the chunks' are cured.h's): 10 where the process may use as
 * many CPUs. On the H100's 16-CPU host (2026-11-22, scripts/tune_staging.py, a launch a chunk) 10
 * lanes read 40 to 46 GB/s where 6 read 33 to 34 (the pinned copy: 55); more than 10 gained
 * nothing. Fed, 14 lanes read 1% better than 10 on both hosts in one run each (2026-11-28). */
#define DEFAULT_LANES 10

static _Atomic int lanes_setting = 0;
static _Atomic int64_t chunk_setting = 0;
static _Atomic int ramp_setting = 1;
static _Atomic int64_t fetch_min_setting = 0;
static _Atomic int mode_setting = -1;

void cured_set_staging(int lanes, int64_t chunk_bytes, int ramp, int64_t fetch_min_bytes, int mode) {
    lanes_setting = lanes > 0 ? (lanes < CURED_MAX_LANES ? lanes : CURED_MAX_LANES) : 0;
    chunk_setting = chunk_bytes > 0 ? chunk_bytes : 0;
    ramp_setting = ramp != 0;
    fetch_min_setting = fetch_min_bytes > 0 ? fetch_min_bytes : 0;
    mode_setting = mode >= CURED_STAGING_COPIED && mode <= CURED_STAGING_FED ? mode : -1;
}

void cured_get_staging(cured_staging *s) {
    int chosen = lanes_setting;
    if (chosen == 0) {
        const int cpus = cured_pool_capacity(); /* the CPUs this process may run on */
        chosen = cpus < DEFAULT_LANES ? cpus : DEFAULT_LANES;
    }
    s->lanes = chosen;
    s->chunk_bytes = chunk_setting > 0 ? chunk_setting : CURED_DEFAULT_CHUNK_BYTES;
    s->fed_chunk_bytes = chunk_setting > 0 ? chunk_setting : CURED_FEED_CHUNK_BYTES;
    s->ramp = ramp_setting;
    s->fetch_min_bytes = fetch_min_setting > 0 ? fetch_min_setting : CURED_FETCH_MIN_BYTES;
    s->mode = mode_setting >= 0 ? (cured_staging_mode)mode_setting : CURED_DEFAULT_STAGING_MODE;
}

/* The size of ramp chunk k of `parts` (growing, or from the end shrinking): (k + 1) / parts of
 * ramp_chunk in whole units, at least one, at most a chunk. */
static int64_t ramp_size(int64_t ramp_chunk, int parts, int k, int64_t unit, int64_t chunk) {
    const int64_t share = ramp_chunk / parts * (k + 1) / unit * unit;
    return share < unit ? unit : (share > chunk ? chunk : share);
}

void cured_chunks_make(cured_chunks *c, int64_t n, int64_t chunk, int64_t ramp_chunk, int64_t unit, int lanes,
                       cured_ramp ramp) {
    c->n = n;
    c->chunk = chunk;
    c->chunks = 0;
    c->ramp_chunks = c->tail_chunks = 0;
    c->ramp_first[0] = 0;
    if (n <= 0) return; /* an empty input's plan has chunks of 0 elements */
    lanes = lanes < 1 ? 1 : (lanes > CURED_MAX_LANES ? CURED_MAX_LANES : lanes);
    const int short_input = cured_ceil_div(n, chunk) <= CURED_RAMP_MAX_CHUNKS_A_LANE * (int64_t)lanes;
    const int growing = ramp == CURED_RAMP_BOTH || (ramp == CURED_RAMP_START && short_input) ? lanes : 1;
    for (int k = 0; k < growing && c->ramp_first[k] < n; ++k) {
        const int64_t size = ramp_size(ramp_chunk, growing, k, unit, chunk);
        c->ramp_first[k + 1] = n - c->ramp_first[k] < size ? n : c->ramp_first[k] + size;
        c->ramp_chunks = k + 1;
    }
    const int64_t body_first = c->ramp_first[c->ramp_chunks];
    if (ramp == CURED_RAMP_BOTH && lanes > 1) {
        /* From the end back: chunk j of the tail's last holds (j + 1) / lanes of ramp_chunk as the
         * ramp's do; the last also the input's ragged end (less than a unit). */
        int64_t starts[CURED_MAX_LANES], end = n;
        for (int j = 0; j < lanes; ++j) {
            const int64_t size = ramp_size(ramp_chunk, lanes, j, unit, chunk);
            starts[j] = end - size < 0 ? -1 : (end - size) / unit * unit;
            end = starts[j];
        }
        if (n - starts[0] <= chunk && end >= body_first + chunk) {
            for (int j = 0; j < lanes; ++j) c->tail_first[j] = starts[lanes - 1 - j];
            c->tail_first[lanes] = n;
            c->tail_chunks = lanes;
        }
    }
    const int64_t body_end = c->tail_chunks > 0 ? c->tail_first[0] : n;
    c->chunks = c->ramp_chunks + cured_ceil_div(body_end - body_first, chunk) + c->tail_chunks;
}

/* ---- what the lanes keep between calls ------------------------------------------------------- */

/* Held for a whole host-path sum: everything below. */
static pthread_mutex_t staging_lock = PTHREAD_MUTEX_INITIALIZER;

/* Lane k's two pinned staging buffers, portable (any device's copies may read them), and its events
 * (made on event_device; remade when a sum runs on another): copied[b], staging buffer b may be
 * written again; last_copy, after the lane's latest copy (timing). */
static struct {
    void *host[2];
    size_t host_bytes[2];
    cudaEvent_t copied[2], last_copy;
    int event_device;
} kept[CURED_MAX_LANES];

/* The sum's own events, on shared_device: ready (the workspace is set up; timed, since a fed trace
 * reads its kernel's clock against it), joined (a lane's last work), and start, reduced and result
 * copied (timing). */
static cudaEvent_t ready_event, joined_event, timing_events[3];
static int shared_device = -1;

/* Staging buffer (lane, k) of at least `bytes`. */
static cudaError_t staging_buffer(int lane, int k, size_t bytes, void **buffer) {
    if (kept[lane].host_bytes[k] < bytes) {
        if (kept[lane].host[k] != NULL) {
            cudaError_t err = cudaFreeHost(kept[lane].host[k]);
            kept[lane].host[k] = NULL;
            kept[lane].host_bytes[k] = 0;
            if (err != cudaSuccess) return err;
        }
        cudaError_t err = cudaHostAlloc(&kept[lane].host[k], bytes, cudaHostAllocPortable | cudaHostAllocMapped);
        if (err != cudaSuccess) {
            kept[lane].host[k] = NULL;
            return err;
        }
        kept[lane].host_bytes[k] = bytes;
    }
    *buffer = kept[lane].host[k];
    return cudaSuccess;
}

/* The fed mode's flags (cured_feed), in mapped pinned memory kept like the staging buffers:
 * freed[2 * CURED_MAX_LANES], then ready[] for as many chunks as the longest fed sum so far, and the
 * last sum's epoch. */
static uint64_t *feed_flags;
static int64_t feed_ready_capacity;
static uint32_t feed_epoch;
#define FEED_FREED_FLAGS (2 * CURED_MAX_LANES)

/* Flags for a fed sum of `chunks` chunks, and its epoch, new: no flag of an earlier sum carries it. */
static cudaError_t feed_flags_for(int64_t chunks) {
    if (chunks > feed_ready_capacity) {
        if (feed_flags != NULL) {
            const cudaError_t err = cudaFreeHost(feed_flags);
            feed_flags = NULL;
            feed_ready_capacity = 0;
            if (err != cudaSuccess) return err;
        }
        const int64_t capacity = chunks > 4096 ? chunks : 4096;
        const size_t bytes = (size_t)(FEED_FREED_FLAGS + capacity) * sizeof *feed_flags;
        const cudaError_t err = cudaHostAlloc((void **)&feed_flags, bytes, cudaHostAllocPortable | cudaHostAllocMapped);
        if (err != cudaSuccess) {
            feed_flags = NULL;
            return err;
        }
        memset(feed_flags, 0, bytes);
        feed_ready_capacity = capacity;
        feed_epoch = 0;
    }
    if (++feed_epoch == 0) { /* wrapped: flags of 2^32 sums ago would read as this one's */
        memset(feed_flags, 0, (size_t)(FEED_FREED_FLAGS + feed_ready_capacity) * sizeof *feed_flags);
        feed_epoch = 1;
    }
    return cudaSuccess;
}

void cured_set_feed_epoch(uint32_t epoch) {
    pthread_mutex_lock(&staging_lock);
    feed_epoch = epoch;
    pthread_mutex_unlock(&staging_lock);
}

/* Makes *event on the current device unless it is there already (made on `*made_on`). */
static cudaError_t event_on(cudaEvent_t *event, unsigned flags, int device, int made_on) {
    if (*event != NULL && made_on == device) return cudaSuccess;
    if (*event != NULL) {
        const cudaError_t err = cudaEventDestroy(*event);
        *event = NULL;
        if (err != cudaSuccess) return err;
    }
    return cudaEventCreateWithFlags(event, flags);
}

/* Lane k's events on `device`. */
static cudaError_t lane_events(int lane, int device) {
    cudaError_t err = cudaSuccess;
    for (int b = 0; b < 2 && err == cudaSuccess; ++b)
        err = event_on(&kept[lane].copied[b], cudaEventDisableTiming, device, kept[lane].event_device);
    if (err == cudaSuccess) err = event_on(&kept[lane].last_copy, cudaEventDefault, device, kept[lane].event_device);
    kept[lane].event_device = err == cudaSuccess ? device : -1;
    return err;
}

/* The sum's own events on `device`. */
static cudaError_t shared_events(int device) {
    cudaError_t err = event_on(&ready_event, cudaEventDefault, device, shared_device);
    if (err == cudaSuccess) err = event_on(&joined_event, cudaEventDisableTiming, device, shared_device);
    for (int k = 0; k < 3 && err == cudaSuccess; ++k) err = event_on(&timing_events[k], cudaEventDefault, device, shared_device);
    shared_device = err == cudaSuccess ? device : -1;
    return err;
}

cured_cuda_status cured_lane_keep(int lane, int device, size_t bytes, cured_lane_kept *out) {
    cured_cuda_status status = cured_ok;
    CURED_TRY("cudaEventCreate (a lane's)", lane_events(lane, device));
    for (int b = 0; b < 2; ++b) {
        if (bytes > 0) CURED_TRY("cudaHostAlloc (pinned staging)", staging_buffer(lane, b, bytes, &out->host[b]));
        else out->host[b] = kept[lane].host[b];
        out->copied[b] = kept[lane].copied[b];
    }
    out->last_copy = kept[lane].last_copy;
done:
    return status;
}

cudaError_t cured_lanes_ready_event(int device, cudaEvent_t *event) {
    const cudaError_t err = shared_events(device);
    *event = ready_event;
    return err;
}

void cured_staging_lock(int lock) {
    if (lock) pthread_mutex_lock(&staging_lock);
    else pthread_mutex_unlock(&staging_lock);
}

void cured_staging_forget(void) {
    /* In a forked child: the buffers and events are the parent's context's; the child must not free them. */
    memset(kept, 0, sizeof kept);
    feed_flags = NULL;
    feed_ready_capacity = 0;
    feed_epoch = 0;
    ready_event = joined_event = NULL;
    memset(timing_events, 0, sizeof timing_events);
    shared_device = -1;
}

/* ---- one sum --------------------------------------------------------------------------------- */

typedef struct staged_sum staged_sum;

typedef struct {
    staged_sum *sum;
    int index;
    cudaStream_t stream;      /* NULL where fed: the lane queues nothing */
    cured_lane_kept kept;     /* its pinned staging buffers and events (kept[k]) */
    char *staged[2];          /* where in its staging buffers its chunks go (misaligned by the test's offset
                                 where the first stage reads them there) */
    const char *read[2];      /* where the first stage reads them: device buffers, or the staging buffers
                                 through their device addresses; unused in whole mode */
    uint64_t freed_tag[2];    /* fed: what buffer b's freed flag says once its last chunk has been read */
    void *scratch;            /* V0's tree scratch for this lane's launches */
    int chunks;               /* chunks this lane reduced */
} lane;

struct staged_sum {
    const cured_plan *plan;
    const char *in;
    const cured_strided *strided; /* in NULL: a strided host array, gathered chunk by chunk */
    size_t item;
    cured_chunks chunks;
    int device;
    int whole;                /* CUB: chunks are copied into one device buffer, `whole` */
    int direct;               /* the first stage reads the staging buffers over the bus: no copy */
    int fed;                  /* ... in one kernel, told by flags (cured_feed) */
    int feeding;              /* the fed kernel is queued: it waits for every chunk, or its cancellation */
    cured_feed feed;          /* fed: the kernel's view of the flags and buffers */
    _Atomic uint64_t *ready, *freed; /* fed: the flags, as the host sees them */
    cudaStream_t stream;      /* lane 0's: the set-up, the fed kernel, the finish and the result */
    char *whole_input;
    void *out, *workspace;
    int timing, traced;       /* traced: staged_trace.c records each chunk */
    _Atomic int64_t next_chunk;
    cured_lanes_failure failure; /* the first failure of any lane */
};

/* Fed: waits until the kernel has read the chunk last staged in lane l's buffer b. The kernel does
 * not end before it has, so if its stream says it has ended, or failed, the sum has failed; and a
 * lane stops waiting once another has failed (the chunks it waits on may never come). */
static cured_cuda_status await_freed(lane *l, int b) {
    cured_cuda_status status = cured_ok;
    staged_sum *const sum = l->sum;
    _Atomic uint64_t *const freed = &sum->freed[2 * l->index + b];
    for (uint64_t spins = 1; atomic_load_explicit(freed, memory_order_acquire) != l->freed_tag[b]; ++spins) {
        cured_cpu_relax();
        if (spins % 4096 != 0) continue; /* about every 0.2 ms */
        if (sum->failure.failed) {
            status.code = cudaErrorNotReady; /* the first failure, another lane's, is the one reported */
            status.call = "a lane's wait for the fed kernel";
            break;
        }
        const cudaError_t err = cudaStreamQuery(sum->stream);
        if (err != cudaErrorNotReady) {
            status.code = err == cudaSuccess ? cudaErrorLaunchFailure : err;
            status.call = "the fed kernel (it ended before reading every chunk)";
            break;
        }
    }
    return status;
}

/* Fed: chunk k is in staging buffer `slot`; the flag follows its bytes. */
static void publish_chunk(staged_sum *sum, int64_t k, int slot) {
#if defined(__x86_64__) || defined(__i386__)
    _mm_sfence(); /* memcpy's streaming stores, where it used them, are not ordered by the release */
#endif
    atomic_store_explicit(&sum->ready[k], (uint64_t)sum->feed.epoch << 32 | (uint64_t)slot, memory_order_release);
}

/* Fed, after a failure: the chunks no lane staged are cancelled, so that the kernel ends. The lanes
 * are done. */
static void cancel_unstaged(staged_sum *sum) {
    for (int64_t k = 0; k < sum->chunks.chunks; ++k)
        if ((uint32_t)(atomic_load_explicit(&sum->ready[k], memory_order_relaxed) >> 32) != sum->feed.epoch)
            atomic_store_explicit(&sum->ready[k], (uint64_t)sum->feed.epoch << 32 | CURED_FEED_CANCELLED,
                                  memory_order_release);
}

/* Not fed: the chunk in staging buffer b goes to the device (copied there, or read where it is by
 * its first stage) on the lane's stream; the buffer is free again once event copied[b] has come. */
static cured_cuda_status launch_chunk(lane *l, int b, int64_t first, int64_t count) {
    cured_cuda_status status = cured_ok;
    staged_sum *const sum = l->sum;
    const size_t offset = (size_t)first * sum->item, bytes = (size_t)count * sum->item;
    const char *const dst = sum->whole ? sum->whole_input + offset : l->read[b];
    if (!sum->direct)
        CURED_TRY("cudaMemcpyAsync", cudaMemcpyAsync((void *)dst, l->staged[b], bytes, cudaMemcpyHostToDevice, l->stream));
    if (!sum->whole)
        CURED_TRY_STEP(cured_plan_run_part(sum->plan, dst, first, count, sum->out, sum->workspace, l->scratch, l->stream));
    CURED_TRY("cudaEventRecord", cudaEventRecord(l->kept.copied[b], l->stream));
    if (sum->timing) CURED_TRY("cudaEventRecord", cudaEventRecord(l->kept.last_copy, l->stream));
done:
    return status;
}

/* A lane's work: takes the next chunk until none is left, waits until one of its two staging buffers
 * is free, copies the chunk there, then hands it on: fed, by its flag; else by launch_chunk. */
static void run_lane(lane *l) {
    staged_sum *const sum = l->sum;
    cured_cuda_status status = cured_ok;
    CURED_TRY("cudaSetDevice", cudaSetDevice(sum->device)); /* a new thread starts on device 0 */
    for (int turn = 0; !sum->failure.failed; ++turn) {
        const int64_t k = atomic_fetch_add(&sum->next_chunk, 1);
        if (k >= sum->chunks.chunks) break;
        const double took = cured_trace_clock();
        const int b = turn % 2;
        int64_t first, count;
        cured_chunk_span(&sum->chunks, k, &first, &count);
        const size_t bytes = (size_t)count * sum->item;
        if (turn >= 2) {
            if (sum->fed) CURED_TRY_STEP(await_freed(l, b));
            else CURED_TRY("cudaEventSynchronize", cudaEventSynchronize(l->kept.copied[b]));
        }
        const double waited = cured_trace_clock() - took;
        if (sum->strided != NULL)
            cured_strided_range(sum->strided, first, count, l->staged[b],
                                sum->strided->shape[sum->strided->ndim - 1] * (int64_t)sum->item);
        else
            memcpy(l->staged[b], sum->in + (size_t)first * sum->item, bytes);
        const double staged = cured_trace_clock();
        if (sum->fed) {
            publish_chunk(sum, k, 2 * l->index + b);
            l->freed_tag[b] = (uint64_t)sum->feed.epoch << 32 | (uint64_t)(k + 1);
        } else {
            CURED_TRY_STEP(launch_chunk(l, b, first, count));
        }
        if (sum->traced)
            CURED_TRY("cudaEventRecord (trace)",
                      cured_trace_chunk(l->index, k, (int64_t)bytes, took, waited, staged, l->stream));
        ++l->chunks;
    }
done:
    if (status.code != cudaSuccess) cured_lanes_fail(&sum->failure, status);
}

/* The pool's task k: lane k. */
static void lane_task(void *lanes, int64_t k) { run_lane((lane *)lanes + k); }

/* The staging settings as they apply to one input: the lanes, whether the chunks ramp up, whether
 * the first stage reads them where they are staged (direct) and whether in one fed kernel, the
 * plan's unit (cured_unit: a block's elements, or a tile; 1 for CUB), and the setting's chunk in
 * elements, whole units and at least one. The plan and the sum both read them here. */
typedef struct {
    int lanes, direct, fed;
    cured_ramp ramp;
    int64_t unit, chunk;
} staging_for_input;

static staging_for_input staging_for(const cured_version *version, cured_dtype in_dtype, int64_t n) {
    staging_for_input s;
    cured_staging setting;
    cured_get_staging(&setting);
    s.lanes = setting.lanes;
    s.direct = setting.mode != CURED_STAGING_COPIED && version != NULL;
    s.fed = setting.mode == CURED_STAGING_FED && cured_feed_launchers(version) != NULL;
    s.ramp = !setting.ramp ? CURED_RAMP_NONE : (s.fed ? CURED_RAMP_BOTH : CURED_RAMP_START);
    s.unit = version != NULL ? cured_unit(version, in_dtype, n) : 1;
    const int64_t chunk_bytes = s.fed ? setting.fed_chunk_bytes : setting.chunk_bytes;
    const int64_t elements = chunk_bytes / cured_dtype_size(in_dtype) / s.unit * s.unit;
    s.chunk = elements > s.unit ? elements : s.unit;
    return s;
}

cured_cuda_status cured_staged_plan(cured_plan *plan, const cured_version *version, cured_dtype in_dtype,
                                    cured_acc acc, int64_t n) {
    return cured_plan_make(plan, version, in_dtype, acc, n, staging_for(version, in_dtype, n).chunk);
}

cured_cuda_status cured_staged_sum(const cured_plan *plan, const void *in, const cured_strided *strided, void *result,
                                   cured_timing *timing) {
    cured_cuda_status status = cured_ok;
    const size_t item = (size_t)cured_dtype_size(plan->in_dtype);
    const size_t result_bytes = cured_plan_result_bytes(plan);
    const int misalign = cured_test_misalign() % (int)item == 0 ? cured_test_misalign() : 0;
    const staging_for_input setting = staging_for(plan->version, plan->in_dtype, plan->n);
    staged_sum sum = {.plan = plan, .in = (const char *)in, .strided = strided, .item = item, .whole = plan->version == NULL,
                      .direct = setting.direct, .timing = timing != NULL, .failure = CURED_LANES_FAILURE_INIT};
    /* The plan's part is the input where that is shorter than a chunk; the ramp still grows by a
     * lanes-th of the setting's whole chunk, so that an input of a few tiles stays one launch. A
     * setting changed since the plan was made cannot overrun its buffers: every chunk is clamped to
     * the plan's part. */
    cured_chunks_make(&sum.chunks, plan->n, plan->part, setting.chunk > plan->part ? setting.chunk : plan->part,
                      setting.unit, setting.lanes, setting.ramp);
    const int64_t chunks = sum.chunks.chunks;
    sum.fed = setting.fed && chunks > 0;
    const int lanes = chunks < setting.lanes ? (int)(chunks > 0 ? chunks : 1) : setting.lanes;
    const size_t chunk_bytes = (size_t)plan->part * item;
    const size_t slot_bytes = cured_align_up(chunk_bytes + (size_t)misalign);
    const size_t staged_misalign = sum.direct ? (size_t)misalign : 0; /* the first stage reads them there */
    const size_t scratch_bytes = cured_align_up(plan->scratch_bytes);
    lane lane_of[CURED_MAX_LANES];
    memset(lane_of, 0, sizeof lane_of);
    char *mem = NULL;

    pthread_mutex_lock(&staging_lock);
    CURED_TRY("cudaGetDevice", cudaGetDevice(&sum.device));
    if (timing != NULL) CURED_TRY_STEP(cured_trace_open(chunks, sum.fed, &sum.traced));
    for (int w = 0; w < lanes; ++w) {
        lane *l = &lane_of[w];
        l->sum = &sum;
        l->index = w;
        if (w == 0 || !sum.fed) CURED_TRY("cudaStreamCreate", cured_stream_take(&l->stream));
        CURED_TRY_STEP(cured_lane_keep(w, sum.device, chunks > 0 ? chunk_bytes + staged_misalign : 0, &l->kept));
        for (int b = 0; b < 2 && chunks > 0; ++b) {
            l->staged[b] = (char *)l->kept.host[b] + staged_misalign;
            if (sum.direct) {
                void *mapped;
                CURED_TRY("cudaHostGetDevicePointer", cudaHostGetDevicePointer(&mapped, l->kept.host[b], 0));
                l->read[b] = (const char *)mapped + staged_misalign;
                sum.feed.slot[2 * w + b] = l->read[b];
            }
        }
    }
    sum.stream = lane_of[0].stream;
    CURED_TRY("cudaEventCreate", shared_events(sum.device));
    if (sum.fed) {
        void *flags;
        CURED_TRY("cudaHostAlloc (the fed mode's flags)", feed_flags_for(chunks));
        CURED_TRY("cudaHostGetDevicePointer", cudaHostGetDevicePointer(&flags, feed_flags, 0));
        sum.freed = (_Atomic uint64_t *)feed_flags;
        sum.ready = sum.freed + FEED_FREED_FLAGS;
        sum.feed.freed = (uint64_t *)flags;
        sum.feed.ready = sum.feed.freed + FEED_FREED_FLAGS;
        sum.feed.chunks = sum.chunks;
        sum.feed.epoch = feed_epoch;
    }

    /* Device memory, in one allocation: the result, the workspace, then each lane's two buffers (none
     * where the first stage reads the staging buffers) and scratch (or, for CUB, the whole input),
     * and where a fed sum is traced, its stamps. */
    const size_t buffers_bytes = sum.direct ? 0 : 2 * slot_bytes, lane_bytes = buffers_bytes + scratch_bytes;
    const size_t input_bytes = sum.whole ? cured_align_up((size_t)plan->n * item) : (size_t)lanes * lane_bytes;
    const size_t stamps_bytes = sum.fed && sum.traced ? cured_align_up((size_t)(chunks + 1) * sizeof(uint64_t)) : 0;
    if (timing != NULL) CURED_TRY("cudaEventRecord", cudaEventRecord(timing_events[0], sum.stream));
    if (sum.traced) cured_trace_start();
    const size_t out_bytes = cured_align_up(result_bytes);
    CURED_TRY("cudaMallocAsync", cudaMallocAsync((void **)&mem, out_bytes + plan->workspace_bytes + input_bytes + stamps_bytes,
                                                 sum.stream));
    sum.out = mem;
    sum.workspace = mem + out_bytes;
    sum.whole_input = mem + out_bytes + plan->workspace_bytes;
    for (int w = 0; w < lanes && !sum.whole; ++w) {
        char *const base = sum.whole_input + (size_t)w * lane_bytes;
        for (int b = 0; b < 2 && !sum.direct; ++b) lane_of[w].read[b] = base + (size_t)b * slot_bytes + misalign;
        lane_of[w].scratch = scratch_bytes > 0 ? base + buffers_bytes : NULL;
    }
    CURED_TRY_STEP(cured_plan_init_workspace(plan, sum.workspace, sum.stream));
    CURED_TRY("cudaEventRecord", cudaEventRecord(ready_event, sum.stream));
    if (sum.fed) {
        /* The kernel waits for the lanes' chunks; once it is queued, the sum ends only after every
         * chunk has been staged or cancelled (cancel_unstaged). */
        sum.feed.stamps = stamps_bytes > 0 ? (uint64_t *)(sum.whole_input + input_bytes) : NULL;
        const cured_feed_fn launch = cured_feed_launchers(plan->version)->fn[plan->in_dtype][plan->acc];
        CURED_TRY(plan->version->symbol, CURED_LAUNCHED(launch(&sum.feed, sum.out, plan->n, sum.workspace, sum.stream)));
        sum.feeding = 1;
        if (sum.traced) cured_trace_feed(sum.feed.stamps, ready_event);
    } else {
        for (int w = 1; w < lanes; ++w)
            CURED_TRY("cudaStreamWaitEvent", cudaStreamWaitEvent(lane_of[w].stream, ready_event, 0));
    }

    /* The lanes run on the pool's threads and this one; a lane that starts late finds the chunks
     * taken, and one that cannot have a thread runs after the others here. */
    if (sum.traced) cured_trace_mark(CURED_TRACE_LANES_START);
    cured_pool_run(lanes, lanes, lane_task, lane_of);
    if (sum.traced) cured_trace_mark(CURED_TRACE_LANES_END);
    CURED_TRY_STEP(sum.failure.status);

    /* The finish waits for every lane's last reduction (or, for CUB, copy); fed, for the kernel,
     * which combined the partials itself. */
    for (int w = 1; w < lanes && !sum.fed; ++w) {
        CURED_TRY("cudaEventRecord", cudaEventRecord(joined_event, lane_of[w].stream));
        CURED_TRY("cudaStreamWaitEvent", cudaStreamWaitEvent(sum.stream, joined_event, 0));
    }
    if (sum.whole) CURED_TRY_STEP(cured_plan_run(plan, sum.whole_input, sum.out, sum.workspace, sum.stream));
    else CURED_TRY_STEP(cured_plan_finish(plan, sum.out, sum.workspace, sum.stream));
    if (timing != NULL) CURED_TRY("cudaEventRecord", cudaEventRecord(timing_events[1], sum.stream));
    CURED_TRY("cudaMemcpyAsync", cudaMemcpyAsync(result, sum.out, result_bytes, cudaMemcpyDeviceToHost, sum.stream));
    if (timing != NULL) CURED_TRY("cudaEventRecord", cudaEventRecord(timing_events[2], sum.stream));

done:
    /* Nothing may still run on the staging buffers or on device memory once they are given back:
     * the fed kernel is let go, and every lane's stream is waited for, even after a failure. */
    if (sum.feeding && status.code != cudaSuccess) cancel_unstaged(&sum);
    for (int w = 0; w < lanes; ++w)
        if (lane_of[w].stream != NULL)
            cured_keep_first(&status, cudaStreamSynchronize(lane_of[w].stream), "cudaStreamSynchronize");
    if (sum.traced) {
        cured_trace_mark(CURED_TRACE_WAITED);
        status = cured_trace_close(timing_events[0], status); /* before the stamps' memory goes */
    }
    if (mem != NULL) {
        cured_keep_first(&status, cudaFreeAsync(mem, sum.stream), "cudaFreeAsync");
        cured_keep_first(&status, cudaStreamSynchronize(sum.stream), "cudaStreamSynchronize");
    }
    if (timing != NULL && status.code == cudaSuccess) {
        /* h2d: from the start to the end of the last lane's last copy (fed: of the kernel, whose
         * combine is the only reduction after its last chunk); the rest, as cured.h says. */
        float copied_ms = 0.0f, reduced_ms, result_ms;
        cured_keep_first(&status, cudaEventElapsedTime(&reduced_ms, timing_events[0], timing_events[1]),
                         "cudaEventElapsedTime");
        for (int w = 0; w < lanes && !sum.fed; ++w) {
            float ms;
            if (lane_of[w].chunks == 0) continue;
            cured_keep_first(&status, cudaEventElapsedTime(&ms, timing_events[0], lane_of[w].kept.last_copy),
                             "cudaEventElapsedTime");
            if (ms > copied_ms) copied_ms = ms;
        }
        if (sum.fed) copied_ms = reduced_ms;
        cured_keep_first(&status, cudaEventElapsedTime(&result_ms, timing_events[1], timing_events[2]),
                         "cudaEventElapsedTime");
        timing->h2d = copied_ms * 1e-3;
        timing->reduce = (reduced_ms > copied_ms ? reduced_ms - copied_ms : 0.0f) * 1e-3;
        timing->d2h = result_ms * 1e-3;
    }
    for (int w = 0; w < lanes; ++w) cured_stream_give(lane_of[w].stream); /* idle: synchronised above */
    pthread_mutex_unlock(&staging_lock);
    pthread_mutex_destroy(&sum.failure.lock);
    return status;
}
