// result.cu: kernels around a sum's results, not versions of the reduction.
//  - store: accumulators into the caller's out= on the device when the reduction cannot write them
//    there itself: another result dtype (float16 from float32, a narrower integer, bool), an
//    initial= to add, or an address not aligned for the accumulator. The value is acc + initial in
//    the accumulator's type, then cast as NumPy's astype casts (floats round to nearest, ties to
//    even; integers wrap; bool is "not zero").
//  - floor: the least a call can cost, the yardstick of issue 12's latency target: one kernel that
//    writes one value into pinned host memory, which the caller then waits for.
#include <cuda_fp16.h>

#include <cstring>

#include "common.cuh"
#include "launch.cuh"

namespace {

// out[i] = cast(acc[i] + initial) for i < n; acc NULL: zeros; out at any alignment.
template <class Out, class Acc>
__global__ void store_results(const Acc *acc, int64_t n, Acc initial, unsigned char *out, bool aligned) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
        const Out value = cured::cast_result<Out>(Acc(acc != nullptr ? acc[i] : Acc(0)) + initial);
        if (aligned) {
            reinterpret_cast<Out *>(out)[i] = value;
        } else {
            unsigned char bytes[sizeof(Out)];
            memcpy(bytes, &value, sizeof value);
            for (unsigned k = 0; k < sizeof(Out); ++k) out[i * sizeof(Out) + k] = bytes[k];
        }
    }
}

template <class Acc>
cudaError_t store_as(const void *acc_, int64_t n, const void *initial_, void *out_, cured_dtype out_dtype,
                     cudaStream_t stream) {
    const Acc *acc = static_cast<const Acc *>(acc_);
    Acc initial = Acc(0);
    if (initial_ != nullptr) memcpy(&initial, initial_, sizeof initial);
    unsigned char *out = static_cast<unsigned char *>(out_);
    const int64_t blocks = n < 1 ? 1 : (cured::ceil_div(n, 256) < 65536 ? cured::ceil_div(n, 256) : 65536);
    const bool aligned = reinterpret_cast<uintptr_t>(out) % cured_dtype_size(out_dtype) == 0;
#define CURED_STORE_CASE(code, name, size)                                                                           \
    case CURED_##code:                                                                                               \
        store_results<cured::dtype_type<CURED_##code>::type, Acc><<<unsigned(blocks), 256, 0, stream>>>(acc, n, initial, \
                                                                                                  out, aligned); \
        break;
    switch (out_dtype) {
        CURED_DTYPES(CURED_STORE_CASE)
    default: return cudaErrorInvalidValue;
    }
#undef CURED_STORE_CASE
    return cudaGetLastError();
}

__global__ void floor_kernel(float *out) { *out = 1.0f; }

}  // namespace

extern "C" cudaError_t cured_store_results(const void *acc, cured_acc acc_type, int64_t n, const void *initial,
                                           void *out, cured_dtype out_dtype, cudaStream_t stream) {
    if (n == 0) return cudaSuccess;
    switch (acc_type) {
    case CURED_ACC_INT64: return store_as<int64_t>(acc, n, initial, out, out_dtype, stream);
    case CURED_ACC_UINT64: return store_as<uint64_t>(acc, n, initial, out, out_dtype, stream);
    case CURED_ACC_FLOAT32: return store_as<float>(acc, n, initial, out, out_dtype, stream);
    case CURED_ACC_FLOAT64: return store_as<double>(acc, n, initial, out, out_dtype, stream);
    default: return cudaErrorInvalidValue;
    }
}

// Launched as V9's kernels are (launch.cuh), so that the floor pays what a sum's launch pays.
extern "C" cudaError_t cured_launch_floor(void *out, cudaStream_t stream) {
    return cured::launch<floor_kernel>(1, 1, 0, stream, static_cast<float *>(out));
}
