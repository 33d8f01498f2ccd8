// V1: shared memory.
//
// What changed from V0: the block's tree runs in shared memory, on chip, instead of a global-memory
// scratch array. Device memory is now read once per element and written once per block.
//
// Still slow: `tid % (2*s) == 0` keeps the working threads scattered across every warp (divergence),
// and the modulo itself is expensive.
#include "common.cuh"

template <class In, class Acc>
__global__ void reduce_v1(const In *in, Acc *out, int64_t n) {
    __shared__ Acc sdata[v1_shared_memory_threads];
    const unsigned tid = threadIdx.x;
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + tid;

    sdata[tid] = cured::load<Acc>(in, i, n);
    __syncthreads();

    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

CURED_EXPORT_KERNEL(v1_shared_memory, reduce_v1<In, Acc>)
