/* staged_trace.c: for probes, what each chunk of one host-path sum did and when (staged.c).
 *
 * The host path's wall time is a pipeline's: lanes copy chunks into pinned buffers (host memory to
 * host memory), then queue each chunk's way to the GPU (a copy and the first stage, or the first
 * stage alone, which reads it over the bus). How long the bus waits for its first bytes, and whether
 * it waits again later, cannot be read off the call's total; so while the trace is on
 * (cured_set_staging_trace), a sum with timing asked for records for each chunk the lane that took
 * it, when on the host it took it, how long it waited for a free staging buffer, when its host copy
 * ended and when its GPU work was queued, and, from an event after that work, when the chunk was
 * on the device and read, on the GPU's clock. The host clock starts when the sum's first event is queued, the GPU's at that
 * event, on an idle stream: the two agree within the launch latency (microseconds). The events are
 * made for the traced sum and destroyed after it, outside its timed span, so the trace adds to the
 * timed work one clock read and one event record a chunk (the lanes read the clock three times a
 * chunk, traced or not: tens of nanoseconds, where a 1 MiB chunk's host copy takes a hundred
 * microseconds or more). A fed sum (staged.c) queues no work a chunk to put an event after: its
 * kernel writes the GPU's clock as it has read each chunk, and as its first block began, and those
 * are read against an event queued just before the kernel. */
#include <stdatomic.h>
#include <string.h>

#include "pool.h"
#include "gpu_internal.h"

static _Atomic int trace_setting = 0;

/* The last traced sum's, under the staging lock. */
static cured_trace_row rows[CURED_TRACE_CHUNKS];
static cudaEvent_t copied[CURED_TRACE_CHUNKS];
static cured_trace_times times;
static int64_t traced_rows, start_ns;
static int64_t fed_chunks;         /* a fed sum's chunks; 0 otherwise */
static const uint64_t *fed_stamps; /* its kernel's stamps (device memory) */
static cudaEvent_t fed_launched;   /* queued just before its kernel */

void cured_set_staging_trace(int on) { trace_setting = on != 0; }

cured_cuda_status cured_trace_open(int64_t chunks, int fed, int *traced) {
    cured_cuda_status status = cured_ok;
    *traced = trace_setting;
    if (!*traced) return status;
    traced_rows = chunks < CURED_TRACE_CHUNKS ? chunks : CURED_TRACE_CHUNKS;
    fed_chunks = fed ? chunks : 0;
    fed_stamps = NULL;
    memset(rows, 0, sizeof rows);
    memset(&times, 0, sizeof times);
    for (int64_t k = 0; k < traced_rows; ++k) {
        rows[k].lane = -1; /* not taken (a failed sum) */
        if (fed) continue;
        const cudaError_t err = cudaEventCreate(&copied[k]);
        if (err != cudaSuccess) copied[k] = NULL; /* cured_trace_close destroys the others */
        CURED_TRY("cudaEventCreate (trace)", err);
    }
done:
    return status;
}

void cured_trace_start(void) { start_ns = cured_now_ns(); }

double cured_trace_clock(void) { return (double)(cured_now_ns() - start_ns) * 1e-9; }

cudaError_t cured_trace_chunk(int lane, int64_t chunk, int64_t bytes, double took, double waited, double staged,
                              cudaStream_t stream) {
    if (chunk >= traced_rows) return cudaSuccess;
    cured_trace_row *const row = &rows[chunk];
    row->lane = lane;
    row->chunk = chunk;
    row->bytes = bytes;
    row->took = took;
    row->waited = waited;
    row->staged = staged;
    row->queued = cured_trace_clock();
    return fed_chunks > 0 ? cudaSuccess : cudaEventRecord(copied[chunk], stream);
}

void cured_trace_feed(const uint64_t *stamps, cudaEvent_t launched) {
    fed_stamps = stamps;
    fed_launched = launched;
}

/* A fed sum's rows' `copied`, from its kernel's stamps, unless `status` failed. */
static cured_cuda_status read_stamps(cudaEvent_t first, cured_cuda_status status) {
    static uint64_t stamps[CURED_TRACE_CHUNKS];
    uint64_t began;
    float launched_ms;
    if (status.code != cudaSuccess || fed_stamps == NULL) return status;
    CURED_TRY("cudaEventElapsedTime (trace)", cudaEventElapsedTime(&launched_ms, first, fed_launched));
    CURED_TRY("cudaMemcpy (trace)", cudaMemcpy(&began, fed_stamps + fed_chunks, sizeof began, cudaMemcpyDeviceToHost));
    CURED_TRY("cudaMemcpy (trace)",
              cudaMemcpy(stamps, fed_stamps, (size_t)traced_rows * sizeof *stamps, cudaMemcpyDeviceToHost));
    for (int64_t k = 0; k < traced_rows; ++k)
        rows[k].copied = launched_ms * 1e-3 + (double)(int64_t)(stamps[k] - began) * 1e-9;
done:
    return status;
}

void cured_trace_mark(int moment) { times.at[moment] = cured_trace_clock(); }

cured_cuda_status cured_trace_close(cudaEvent_t first, cured_cuda_status status) {
    if (fed_chunks > 0) status = read_stamps(first, status);
    for (int64_t k = 0; k < traced_rows && fed_chunks == 0; ++k) {
        if (status.code == cudaSuccess && rows[k].lane >= 0) {
            float ms;
            cured_keep_first(&status, cudaEventElapsedTime(&ms, first, copied[k]), "cudaEventElapsedTime (trace)");
            rows[k].copied = ms * 1e-3;
        }
        if (copied[k] != NULL) cured_keep_first(&status, cudaEventDestroy(copied[k]), "cudaEventDestroy (trace)");
        copied[k] = NULL;
    }
    if (status.code != cudaSuccess) traced_rows = 0;
    return status;
}

int64_t cured_staging_trace(cured_trace_row *out, cured_trace_times *when) {
    cured_staging_lock(1);
    const int64_t count = traced_rows;
    memcpy(out, rows, (size_t)count * sizeof *out);
    *when = times;
    cured_staging_lock(0);
    return count;
}
