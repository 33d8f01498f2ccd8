// result.cu: two one-thread kernels around a sum's result, not a version of the reduction.
//  - store: an accumulator's value into the caller's out= element when the plan cannot write it
//    there itself (a float16 result of a float32 accumulator, or an address not aligned for the
//    accumulator). Rounds as NumPy's cast does (to nearest, ties to even).
//  - floor: the least a call can cost, the yardstick of issue 12's latency target: one kernel that
//    writes one value into pinned host memory, which the caller then waits for.
#include <cuda_fp16.h>

#include <cstring>

#include "common.cuh"

namespace {

template <class Acc>
__global__ void store_result(const Acc *acc, unsigned char *out, int out_dtype) {
    const Acc v = *acc;
    unsigned char bytes[8];
    int size;
    if (out_dtype == CURED_FLOAT16) {
        const __half h = __float2half_rn(float(v));  // only a float32 accumulator has a float16 result
        memcpy(bytes, &h, size = sizeof h);
    } else {
        memcpy(bytes, &v, size = sizeof v);
    }
    for (int k = 0; k < size; ++k) out[k] = bytes[k];  // byte stores: out may be misaligned
}

__global__ void floor_kernel(float *out) { *out = 1.0f; }

}  // namespace

extern "C" cudaError_t cured_store_result(const void *acc, cured_acc acc_type, void *out, cured_dtype out_dtype,
                                          cudaStream_t stream) {
    unsigned char *const dst = static_cast<unsigned char *>(out);
    switch (acc_type) {
    case CURED_ACC_INT64: store_result<<<1, 1, 0, stream>>>(static_cast<const int64_t *>(acc), dst, out_dtype); break;
    case CURED_ACC_UINT64: store_result<<<1, 1, 0, stream>>>(static_cast<const uint64_t *>(acc), dst, out_dtype); break;
    case CURED_ACC_FLOAT32: store_result<<<1, 1, 0, stream>>>(static_cast<const float *>(acc), dst, out_dtype); break;
    case CURED_ACC_FLOAT64: store_result<<<1, 1, 0, stream>>>(static_cast<const double *>(acc), dst, out_dtype); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

extern "C" cudaError_t cured_launch_floor(void *out, cudaStream_t stream) {
    floor_kernel<<<1, 1, 0, stream>>>(static_cast<float *>(out));
    return cudaGetLastError();
}
