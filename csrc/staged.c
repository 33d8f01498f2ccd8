/* staged.c: the sum of host memory, with the copy to the GPU overlapped with the reduction.
 *
 * The input goes to the device in chunks. The GPU reads pinned (page-locked) memory at the bus's
 * speed, but pageable memory, what NumPy allocates, only through the driver's own small staging (9
 * to 10 GB/s on an H200 against 55 GB/s pinned). So host threads, "lanes", copy chunks into pinned
 * staging buffers of their own, several at once (one thread's memcpy reaches about 12 GB/s), and
 * each lane then, on its own stream, reduces its chunk while the other lanes copy theirs: by
 * default ("direct") the reduction's first stage reads the staging buffer over the bus where it
 * lies, else the copy engine first copies it into a device buffer of the lane's. The copy engine's
 * copies lost a fifth of their speed to the lanes' host copies beside them, whose memory they
 * share, where the kernels' reads lost less (CURED_DIRECT_DEFAULT has the figures). A lane has two
 * staging buffers, so it copies its next chunk while the last one is still being read.
 *
 * Chunks are whole units of the plan (cured_unit: a block's elements, or a tile), so each chunk's
 * partial sums, and then the sum, have the bits of the one-shot sum of the same version. Inputs of
 * a few chunks a lane start with a ramp: chunk k < lanes holds (k + 1) / lanes of a chunk, so the
 * lanes' first copies end one after another and the bus has work from the first short chunk on,
 * where with chunks of one size every lane copied its first chunk at once and the bus waited for
 * all of them (CURED_RAMP_MAX_CHUNKS_A_LANE has the figures). The device holds only partial sums
 * (and, without direct, the lanes' buffers), so an input larger than the GPU's memory is summed
 * too. CUB, whose reduction cannot be cut into pieces, gets its chunks copied into one whole device
 * buffer and is run once at the end.
 *
 * What a sum needs besides its device memory lives across calls: the lanes are the pool's threads
 * (pool.h), their streams come from the stream pool, and their pinned staging buffers (pinning costs
 * about 3 ms for 8 MiB) and events are allocated on first use and kept for the life of the process,
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

/* Defaults (docs/host_path.md): chunks of 4 MiB, and 10 lanes where the process may use as many
 * CPUs. On the H100's 16-CPU host (2026-11-22, scripts/tune_staging.py) 10 lanes read 40 to 46
 * GB/s where 6 read 33 to 34 (the pinned copy: 55); more than 10 gained nothing. */
#define DEFAULT_LANES 10
#define DEFAULT_CHUNK_BYTES ((int64_t)4 << 20)

static _Atomic int lanes_setting = 0;
static _Atomic int64_t chunk_setting = 0;
static _Atomic int ramp_setting = 1;
static _Atomic int64_t fetch_min_setting = 0;
static _Atomic int direct_setting = -1;

void cured_set_staging(int lanes, int64_t chunk_bytes, int ramp, int64_t fetch_min_bytes, int direct) {
    lanes_setting = lanes > 0 ? (lanes < CURED_MAX_LANES ? lanes : CURED_MAX_LANES) : 0;
    chunk_setting = chunk_bytes > 0 ? chunk_bytes : 0;
    ramp_setting = ramp != 0;
    fetch_min_setting = fetch_min_bytes > 0 ? fetch_min_bytes : 0;
    direct_setting = direct < 0 ? -1 : direct != 0;
}

void cured_get_staging(cured_staging *s) {
    int chosen = lanes_setting;
    if (chosen == 0) {
        const int cpus = cured_pool_capacity(); /* the CPUs this process may run on */
        chosen = cpus < DEFAULT_LANES ? cpus : DEFAULT_LANES;
    }
    s->lanes = chosen;
    s->chunk_bytes = chunk_setting > 0 ? chunk_setting : DEFAULT_CHUNK_BYTES;
    s->ramp = ramp_setting;
    s->fetch_min_bytes = fetch_min_setting > 0 ? fetch_min_setting : CURED_FETCH_MIN_BYTES;
    s->direct = direct_setting >= 0 ? direct_setting : CURED_DIRECT_DEFAULT;
}

void cured_chunks_make(cured_chunks *c, int64_t n, int64_t chunk, int64_t ramp_chunk, int64_t unit, int lanes,
                       int ramp) {
    c->n = n;
    c->chunk = chunk;
    c->chunks = 0;
    c->ramp_chunks = 0;
    c->ramp_first[0] = 0;
    if (n <= 0) return; /* an empty input's plan has chunks of 0 elements */
    lanes = lanes < 1 ? 1 : (lanes > CURED_MAX_LANES ? CURED_MAX_LANES : lanes);
    const int growing = ramp && cured_ceil_div(n, chunk) <= CURED_RAMP_MAX_CHUNKS_A_LANE * (int64_t)lanes ? lanes : 1;
    for (int k = 0; k < growing && c->ramp_first[k] < n; ++k) {
        const int64_t share = ramp_chunk / growing * (k + 1) / unit * unit;
        const int64_t size = share < unit ? unit : (share > chunk ? chunk : share);
        c->ramp_first[k + 1] = n - c->ramp_first[k] < size ? n : c->ramp_first[k] + size;
        c->ramp_chunks = k + 1;
    }
    const int64_t rest = n - c->ramp_first[c->ramp_chunks];
    c->chunks = c->ramp_chunks + cured_ceil_div(rest, chunk);
}

void cured_chunk_span(const cured_chunks *c, int64_t k, int64_t *first, int64_t *count) {
    if (k < c->ramp_chunks) {
        *first = c->ramp_first[k];
        *count = c->ramp_first[k + 1] - *first;
        return;
    }
    *first = c->ramp_first[c->ramp_chunks] + (k - c->ramp_chunks) * c->chunk;
    *count = c->n - *first < c->chunk ? c->n - *first : c->chunk;
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

/* The sum's own events, on shared_device: ready (the workspace is set up), joined (a lane's last
 * work), and start, reduced and result copied (timing). */
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
    cudaError_t err = event_on(&ready_event, cudaEventDisableTiming, device, shared_device);
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
    ready_event = joined_event = NULL;
    memset(timing_events, 0, sizeof timing_events);
    shared_device = -1;
}

/* ---- one sum --------------------------------------------------------------------------------- */

typedef struct staged_sum staged_sum;

typedef struct {
    staged_sum *sum;
    int index;
    cudaStream_t stream;
    cured_lane_kept kept;     /* its pinned staging buffers and events (kept[k]) */
    char *staged[2];          /* where in its staging buffers its chunks go (misaligned by the test's offset
                                 where the first stage reads them there) */
    const char *read[2];      /* where the first stage reads them: device buffers, or (direct) the staging
                                 buffers through their device addresses; unused in whole mode */
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
    char *whole_input;
    void *out, *workspace;
    int timing, traced;       /* traced: staged_trace.c records each chunk */
    _Atomic int64_t next_chunk;
    cured_lanes_failure failure; /* the first failure of any lane */
};

/* A lane's work: takes the next chunk until none is left, copies it into a free staging buffer,
 * then enqueues its copy to the device and its reduction on the lane's stream (direct: only the
 * reduction, which reads the staging buffer; the buffer is free again once the reduction is done). */
static void run_lane(lane *l) {
    staged_sum *const sum = l->sum;
    const cured_plan *const plan = sum->plan;
    cured_cuda_status status = cured_ok;
    CURED_TRY("cudaSetDevice", cudaSetDevice(sum->device)); /* a new thread starts on device 0 */
    for (int turn = 0; !sum->failure.failed; ++turn) {
        const int64_t k = atomic_fetch_add(&sum->next_chunk, 1);
        if (k >= sum->chunks.chunks) break;
        const double took = cured_trace_clock();
        const int b = turn % 2;
        int64_t first, count;
        cured_chunk_span(&sum->chunks, k, &first, &count);
        const size_t offset = (size_t)first * sum->item, bytes = (size_t)count * sum->item;
        if (turn >= 2) CURED_TRY("cudaEventSynchronize", cudaEventSynchronize(l->kept.copied[b]));
        const double waited = cured_trace_clock() - took;
        if (sum->strided != NULL)
            cured_strided_range(sum->strided, first, count, l->staged[b],
                                sum->strided->shape[sum->strided->ndim - 1] * (int64_t)sum->item);
        else
            memcpy(l->staged[b], sum->in + offset, bytes);
        const double staged = cured_trace_clock();
        /* The chunk reaches the device: copied there, or (direct) read where it is by its first stage;
         * either way staging buffer b is free again after both. */
        const char *const dst = sum->whole ? sum->whole_input + offset : l->read[b];
        if (!sum->direct)
            CURED_TRY("cudaMemcpyAsync",
                      cudaMemcpyAsync((void *)dst, l->staged[b], bytes, cudaMemcpyHostToDevice, l->stream));
        if (!sum->whole)
            CURED_TRY_STEP(cured_plan_run_part(plan, dst, first, count, sum->out, sum->workspace, l->scratch, l->stream));
        CURED_TRY("cudaEventRecord", cudaEventRecord(l->kept.copied[b], l->stream));
        if (sum->traced)
            CURED_TRY("cudaEventRecord (trace)",
                      cured_trace_chunk(l->index, k, (int64_t)bytes, took, waited, staged, l->stream));
        if (sum->timing) CURED_TRY("cudaEventRecord", cudaEventRecord(l->kept.last_copy, l->stream));
        ++l->chunks;
    }
done:
    if (status.code != cudaSuccess) cured_lanes_fail(&sum->failure, status);
}

/* The pool's task k: lane k. */
static void lane_task(void *lanes, int64_t k) { run_lane((lane *)lanes + k); }

/* The staging settings as they apply to one input: the lanes, whether the chunks ramp up, whether
 * the first stage reads them where they are staged (direct), the plan's unit (cured_unit: a block's
 * elements, or a tile; 1 for CUB), and the setting's chunk in elements, whole units and at least
 * one. The plan and the sum both read them here. */
typedef struct {
    int lanes, ramp, direct;
    int64_t unit, chunk;
} staging_for_input;

static staging_for_input staging_for(const cured_version *version, cured_dtype in_dtype, int64_t n) {
    staging_for_input s;
    cured_staging setting;
    cured_get_staging(&setting);
    s.lanes = setting.lanes;
    s.ramp = setting.ramp;
    s.direct = setting.direct;
    s.unit = version != NULL ? cured_unit(version, in_dtype, n) : 1;
    const int64_t elements = setting.chunk_bytes / cured_dtype_size(in_dtype) / s.unit * s.unit;
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
                      .direct = setting.direct && plan->version != NULL, .timing = timing != NULL,
                      .failure = CURED_LANES_FAILURE_INIT};
    /* The plan's part is the input where that is shorter than a chunk; the ramp still grows by a
     * lanes-th of the setting's whole chunk, so that an input of a few tiles stays one launch. A
     * setting changed since the plan was made cannot overrun its buffers: every chunk is clamped to
     * the plan's part. */
    cured_chunks_make(&sum.chunks, plan->n, plan->part, setting.chunk > plan->part ? setting.chunk : plan->part,
                      setting.unit, setting.lanes, setting.ramp);
    const int64_t chunks = sum.chunks.chunks;
    const int lanes = chunks < setting.lanes ? (int)(chunks > 0 ? chunks : 1) : setting.lanes;
    const size_t chunk_bytes = (size_t)plan->part * item;
    const size_t slot_bytes = cured_align_up(chunk_bytes + (size_t)misalign);
    const size_t staged_misalign = sum.direct ? (size_t)misalign : 0; /* the first stage reads them there */
    const size_t scratch_bytes = cured_align_up(plan->scratch_bytes);
    lane lane_of[CURED_MAX_LANES];
    memset(lane_of, 0, sizeof lane_of);
    cudaStream_t stream = NULL; /* lane 0's: the set-up, the finish and the result go there */
    char *mem = NULL;

    pthread_mutex_lock(&staging_lock);
    CURED_TRY("cudaGetDevice", cudaGetDevice(&sum.device));
    if (timing != NULL) CURED_TRY_STEP(cured_trace_open(chunks, &sum.traced));
    for (int w = 0; w < lanes; ++w) {
        lane *l = &lane_of[w];
        l->sum = &sum;
        l->index = w;
        CURED_TRY("cudaStreamCreate", cured_stream_take(&l->stream));
        CURED_TRY_STEP(cured_lane_keep(w, sum.device, chunks > 0 ? chunk_bytes + staged_misalign : 0, &l->kept));
        for (int b = 0; b < 2 && chunks > 0; ++b) {
            l->staged[b] = (char *)l->kept.host[b] + staged_misalign;
            if (sum.direct) {
                void *mapped;
                CURED_TRY("cudaHostGetDevicePointer", cudaHostGetDevicePointer(&mapped, l->kept.host[b], 0));
                l->read[b] = (const char *)mapped + staged_misalign;
            }
        }
    }
    stream = lane_of[0].stream;
    CURED_TRY("cudaEventCreate", shared_events(sum.device));

    /* Device memory, in one allocation: the result, the workspace, then each lane's two buffers (none
     * where the first stage reads the staging buffers) and scratch (or, for CUB, the whole input). */
    const size_t buffers_bytes = sum.direct ? 0 : 2 * slot_bytes, lane_bytes = buffers_bytes + scratch_bytes;
    const size_t input_bytes = sum.whole ? cured_align_up((size_t)plan->n * item) : (size_t)lanes * lane_bytes;
    if (timing != NULL) CURED_TRY("cudaEventRecord", cudaEventRecord(timing_events[0], stream));
    if (sum.traced) cured_trace_start();
    const size_t out_bytes = cured_align_up(result_bytes);
    CURED_TRY("cudaMallocAsync", cudaMallocAsync((void **)&mem, out_bytes + plan->workspace_bytes + input_bytes, stream));
    sum.out = mem;
    sum.workspace = mem + out_bytes;
    sum.whole_input = sum.workspace + plan->workspace_bytes;
    for (int w = 0; w < lanes && !sum.whole; ++w) {
        char *const base = sum.whole_input + (size_t)w * lane_bytes;
        for (int b = 0; b < 2 && !sum.direct; ++b) lane_of[w].read[b] = base + (size_t)b * slot_bytes + misalign;
        lane_of[w].scratch = scratch_bytes > 0 ? base + buffers_bytes : NULL;
    }
    CURED_TRY_STEP(cured_plan_init_workspace(plan, sum.workspace, stream));
    CURED_TRY("cudaEventRecord", cudaEventRecord(ready_event, stream));
    for (int w = 1; w < lanes; ++w)
        CURED_TRY("cudaStreamWaitEvent", cudaStreamWaitEvent(lane_of[w].stream, ready_event, 0));

    /* The lanes run on the pool's threads and this one; a lane that starts late finds the chunks
     * taken, and one that cannot have a thread runs after the others here. */
    if (sum.traced) cured_trace_mark(CURED_TRACE_LANES_START);
    cured_pool_run(lanes, lanes, lane_task, lane_of);
    if (sum.traced) cured_trace_mark(CURED_TRACE_LANES_END);
    CURED_TRY_STEP(sum.failure.status);

    /* The finish waits for every lane's last reduction (or, for CUB, copy). */
    for (int w = 1; w < lanes; ++w) {
        CURED_TRY("cudaEventRecord", cudaEventRecord(joined_event, lane_of[w].stream));
        CURED_TRY("cudaStreamWaitEvent", cudaStreamWaitEvent(stream, joined_event, 0));
    }
    if (sum.whole) CURED_TRY_STEP(cured_plan_run(plan, sum.whole_input, sum.out, sum.workspace, stream));
    else CURED_TRY_STEP(cured_plan_finish(plan, sum.out, sum.workspace, stream));
    if (timing != NULL) CURED_TRY("cudaEventRecord", cudaEventRecord(timing_events[1], stream));
    CURED_TRY("cudaMemcpyAsync", cudaMemcpyAsync(result, sum.out, result_bytes, cudaMemcpyDeviceToHost, stream));
    if (timing != NULL) CURED_TRY("cudaEventRecord", cudaEventRecord(timing_events[2], stream));

done:
    /* Nothing may still run on the staging buffers or on device memory once they are given back:
     * every lane's stream is waited for, even after a failure. */
    for (int w = 0; w < lanes; ++w)
        if (lane_of[w].stream != NULL)
            cured_keep_first(&status, cudaStreamSynchronize(lane_of[w].stream), "cudaStreamSynchronize");
    if (mem != NULL) {
        cured_keep_first(&status, cudaFreeAsync(mem, stream), "cudaFreeAsync");
        cured_keep_first(&status, cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }
    if (sum.traced) {
        cured_trace_mark(CURED_TRACE_WAITED);
        status = cured_trace_close(timing_events[0], status);
    }
    if (timing != NULL && status.code == cudaSuccess) {
        /* h2d: from the start to the end of the last lane's last copy; the rest, as cured.h says. */
        float copied_ms = 0.0f, reduced_ms, result_ms;
        for (int w = 0; w < lanes; ++w) {
            float ms;
            if (lane_of[w].chunks == 0) continue;
            cured_keep_first(&status, cudaEventElapsedTime(&ms, timing_events[0], lane_of[w].kept.last_copy),
                             "cudaEventElapsedTime");
            if (ms > copied_ms) copied_ms = ms;
        }
        cured_keep_first(&status, cudaEventElapsedTime(&reduced_ms, timing_events[0], timing_events[1]),
                         "cudaEventElapsedTime");
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
