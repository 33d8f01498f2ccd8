/* fetch.c: many results from device memory into a fresh host array, by the host path's lanes.
 *
 * A sum along axes of a device array returns a NumPy array, which may hold millions of results. One
 * cudaMemcpy into it goes through the driver's own staging of pageable memory, on one thread, and
 * pays for the array's fresh pages, which the kernel maps and zeroes at their first write: 64 MiB
 * took 24.2 ms into a fresh NumPy array, 5.5 into pages written before and 1.24 into pinned memory
 * (scripts/probes/fresh_pages.py, H100 host, 2026-11-27 02:43 UTC; MADV_POPULATE_WRITE mapped a
 * fresh 64 MiB in 10.7 ms on one thread, 3.2 on 8 and 2.8 on 16).
 * So the results are cut into chunks, whole pages, a whole number a lane; each lane (staged.c's
 * threads, streams and pinned buffers, under its lock) queues the copies of its first two chunks
 * into its two pinned buffers behind the caller's work, asks the kernel to map its part of the
 * array while the GPU still computes (MADV_POPULATE_WRITE: the lanes map their parts at once, which
 * one thread's first writes could not), then copies each chunk out of its buffer and queues the
 * next one there.
 *
 * Evidence (scripts/probes/axis_results_fetch.py, two H100 hosts, 2026-11-27 02:16 and 02:41 UTC,
 * wall time of the whole call in turns, 10 lanes): cured.sum(d, axis=1) of (2^24, 16) float32 5.4
 * and 4.7 ms against 24.8 and 25.2 by one copy (CuPy's d.sum(axis=1).get() 25.2 and 25.4, PyTorch's
 * t.sum(dim=1).cpu() 53.2 and 62.3); (2^26, 4) float32 19.5 and 17.0 against 113.7 and 104.4;
 * (2^24, 8) float64 9.8 and 8.6 against 53.7 and 49.2; (2^22, 16) float32 1.01 and 0.91 against
 * 1.98 and 2.91. cured.h's CURED_FETCH_MIN_BYTES has where the lanes start to win. */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pool.h"
#include "gpu_internal.h"

#if defined(__linux__) && !defined(MADV_POPULATE_WRITE)
#define MADV_POPULATE_WRITE 23 /* Linux 5.14's, where the C library predates it */
#endif

typedef struct {
    char *host;
    const char *device;
    size_t bytes, chunk;
    int64_t chunks;
    int lanes, device_id;
    cudaStream_t streams[CURED_MAX_LANES];
    cured_lane_kept kept[CURED_MAX_LANES];
    cured_lanes_failure failure; /* the first failure of any lane */
} fetch_job;

/* Maps the whole pages of [begin, begin + bytes) writable now. Only advice: where the kernel refuses
 * it (before Linux 5.14, EINVAL), the copy's first writes map them as they would have. */
static void map_pages(char *begin, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const uintptr_t first = ((uintptr_t)begin + page - 1) / page * page, end = ((uintptr_t)begin + bytes) / page * page;
    if (end > first) (void)madvise((void *)first, end - first, MADV_POPULATE_WRITE);
#else
    (void)begin;
    (void)bytes;
#endif
}

/* A lane's chunks are lane, lane + lanes, ...: its turn-th one. */
static void chunk_of(const fetch_job *job, int lane, int64_t turn, size_t *offset, size_t *bytes) {
    *offset = (size_t)(lane + turn * job->lanes) * job->chunk;
    *bytes = job->bytes - *offset < job->chunk ? job->bytes - *offset : job->chunk;
}

/* Queues the copy of the lane's turn-th chunk into its buffer turn % 2. */
static cured_cuda_status queue_chunk(fetch_job *job, int lane, int64_t turn) {
    cured_cuda_status status = cured_ok;
    const int b = (int)(turn % 2);
    size_t offset, bytes;
    chunk_of(job, lane, turn, &offset, &bytes);
    CURED_TRY("cudaMemcpyAsync (results into pinned staging)",
              cudaMemcpyAsync(job->kept[lane].host[b], job->device + offset, bytes, cudaMemcpyDeviceToHost,
                              job->streams[lane]));
    CURED_TRY("cudaEventRecord", cudaEventRecord(job->kept[lane].copied[b], job->streams[lane]));
done:
    return status;
}

static void fetch_lane(void *context, int64_t task) {
    fetch_job *const job = (fetch_job *)context;
    const int lane = (int)task;
    const int64_t turns = (job->chunks - lane + job->lanes - 1) / job->lanes;
    cured_cuda_status status = cured_ok;
    CURED_TRY("cudaSetDevice", cudaSetDevice(job->device_id)); /* a pool thread starts on device 0 */
    for (int64_t turn = 0; turn < 2 && turn < turns; ++turn) CURED_TRY_STEP(queue_chunk(job, lane, turn));
    for (int64_t turn = 0; turn < turns && !job->failure.failed; ++turn) {
        size_t offset, bytes;
        chunk_of(job, lane, turn, &offset, &bytes);
        map_pages(job->host + offset, bytes);
        CURED_TRY("cudaEventSynchronize", cudaEventSynchronize(job->kept[lane].copied[turn % 2]));
        memcpy(job->host + offset, job->kept[lane].host[turn % 2], bytes);
        if (turn + 2 < turns) CURED_TRY_STEP(queue_chunk(job, lane, turn + 2));
    }
done:
    if (status.code != cudaSuccess) cured_lanes_fail(&job->failure, status);
}

cured_cuda_status cured_fetch_results(void *host, const void *device, size_t bytes, cudaStream_t stream) {
    cured_staging setting;
    cured_get_staging(&setting);
    if ((int64_t)bytes < setting.fetch_min_bytes) {
        const cudaError_t err = cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream);
        return err == cudaSuccess ? cured_ok : (cured_cuda_status){err, "cudaMemcpyAsync (the results to the host)"};
    }
    cured_cuda_status status = cured_ok;
    /* Chunks of whole pages, at most the setting's chunk where that is a page or more, as many a lane. */
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    int64_t chunks = cured_ceil_div((int64_t)bytes, setting.chunk_bytes);
    chunks = cured_ceil_div(chunks < setting.lanes ? setting.lanes : chunks, setting.lanes) * setting.lanes;
    fetch_job job = {.host = (char *)host, .device = (const char *)device, .bytes = bytes,
                     .failure = CURED_LANES_FAILURE_INIT};
    job.chunk = (size_t)cured_ceil_div(cured_ceil_div((int64_t)bytes, chunks), (int64_t)page) * page;
    job.chunks = cured_ceil_div((int64_t)bytes, (int64_t)job.chunk);
    job.lanes = job.chunks < setting.lanes ? (int)job.chunks : setting.lanes;
    cudaEvent_t ready;

    cured_staging_lock(1);
    CURED_TRY("cudaGetDevice", cudaGetDevice(&job.device_id));
    CURED_TRY("cudaEventCreate", cured_lanes_ready_event(job.device_id, &ready));
    CURED_TRY("cudaEventRecord", cudaEventRecord(ready, stream));
    for (int w = 0; w < job.lanes; ++w) {
        CURED_TRY("cudaStreamCreate", cured_stream_take(&job.streams[w]));
        CURED_TRY_STEP(cured_lane_keep(w, job.device_id, job.chunk, &job.kept[w]));
        CURED_TRY("cudaStreamWaitEvent", cudaStreamWaitEvent(job.streams[w], ready, 0));
    }
    /* A lane that cannot have a pool thread runs on this one after the others. */
    cured_pool_run(job.lanes, job.lanes, fetch_lane, &job);
    status = job.failure.status;
done:
    /* Nothing may still write into the staging buffers once they are another call's. */
    for (int w = 0; w < job.lanes; ++w)
        if (job.streams[w] != NULL)
            cured_keep_first(&status, cudaStreamSynchronize(job.streams[w]), "cudaStreamSynchronize");
    for (int w = 0; w < job.lanes; ++w) cured_stream_give(job.streams[w]); /* idle: synchronised above */
    cured_staging_lock(0);
    pthread_mutex_destroy(&job.failure.lock);
    return status;
}
