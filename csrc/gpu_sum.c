/* gpu_sum.c: one whole reduction on the GPU, pass after pass, from host memory to one value.
 *
 * Device memory comes from the current device's default memory pool through the stream-ordered
 * allocator (cudaMallocAsync/cudaFreeAsync); cured_device_ready() raises the pool's release threshold
 * so that freed memory stays cached for the next call instead of going back to the driver. Each host
 * thread works on its own stream (cudaStreamPerThread), so calls from several threads do not
 * serialise on the legacy default stream. */
#include <stdint.h>
#include <string.h>

#include "cured.h"

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

static const cured_cuda_status cured_ok = {cudaSuccess, NULL};

cured_cuda_status cured_device_ready(void) {
    cured_cuda_status status = cured_ok;
    int device;
    cudaMemPool_t pool;
    uint64_t keep_everything = UINT64_MAX;
    /* cudaGetDevice does not touch the driver: cudaFree(0) does, and reports a missing device or
     * driver. It is the documented way to initialise the runtime's context. */
    CURED_TRY("cudaFree", cudaFree(0));
    CURED_TRY("cudaGetDevice", cudaGetDevice(&device));
    CURED_TRY("cudaDeviceGetDefaultMemPool", cudaDeviceGetDefaultMemPool(&pool, device));
    CURED_TRY("cudaMemPoolSetAttribute", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
done:
    return status;
}

/* Frees a stream-ordered allocation if there is one; the first failure is the one reported. */
static void free_async(void **ptr, cudaStream_t stream, cured_cuda_status *status) {
    if (*ptr == NULL) return;
    cudaError_t err = cudaFreeAsync(*ptr, stream);
    if (err != cudaSuccess && status->code == cudaSuccess) {
        status->code = err;
        status->call = "cudaFreeAsync";
    }
    *ptr = NULL;
}

cured_cuda_status cured_gpu_sum(const cured_version *v, cured_dtype in_dtype, cured_acc acc,
                                const void *in, int64_t n, void *result) {
    cured_cuda_status status = cured_ok;
    const cudaStream_t stream = cudaStreamPerThread;
    const int64_t per_block = cured_elements_per_block(v);
    const size_t acc_size = (size_t)cured_dtype_size(cured_acc_dtype(acc));
    void *src = NULL, *dst = NULL, *scratch = NULL;
    cudaError_t err;

    status = cured_device_ready();
    if (status.code != cudaSuccess) return status;
    if (v->launchers->fn[in_dtype][acc] == NULL) {
        status.code = cudaErrorNotSupported; /* the caller checks the pair first; never launch NULL */
        status.call = "the launch table (no kernel for this dtype and accumulator)";
        return status;
    }
    memset(result, 0, 8); /* the sum of nothing is 0 in every accumulator */
    if (n == 0) goto done;

    CURED_TRY("cudaMallocAsync", cudaMallocAsync(&src, (size_t)n * (size_t)cured_dtype_size(in_dtype), stream));
    CURED_TRY("cudaMemcpyAsync", cudaMemcpyAsync(src, in, (size_t)n * (size_t)cured_dtype_size(in_dtype),
                              cudaMemcpyHostToDevice, stream));

    /* Each pass reduces `count` values of `src_dtype` to one partial sum a block; passes after the
     * first read the accumulators of the pass before, until one value is left. */
    for (int64_t count = n, blocks; ; count = blocks) {
        const cured_dtype src_dtype = count == n ? in_dtype : cured_acc_dtype(acc);
        blocks = (count + per_block - 1) / per_block;
        CURED_TRY("cudaMallocAsync", cudaMallocAsync(&dst, (size_t)blocks * acc_size, stream));
        if (v->tree_in_global)
            CURED_TRY("cudaMallocAsync", cudaMallocAsync(&scratch, (size_t)blocks * (size_t)v->threads * acc_size, stream));
        CURED_TRY(v->symbol, v->launchers->fn[src_dtype][acc](src, dst, count, scratch, stream));
        free_async(&scratch, stream, &status);
        free_async(&src, stream, &status);
        if (status.code != cudaSuccess) goto done;
        src = dst;
        dst = NULL;
        if (blocks == 1) break;
    }
    CURED_TRY("cudaMemcpyAsync", cudaMemcpyAsync(result, src, acc_size, cudaMemcpyDeviceToHost, stream));

done:
    free_async(&scratch, stream, &status);
    free_async(&dst, stream, &status);
    free_async(&src, stream, &status);
    /* Wait even after a failure, so that nothing still runs on memory this call gave back. */
    err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess && status.code == cudaSuccess) {
        status.code = err;
        status.call = "cudaStreamSynchronize";
    }
    return status;
}
