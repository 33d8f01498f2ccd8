// V1: shared memory.
//
// What changed from V0: the block's tree runs in shared memory, on chip, instead of a global-memory
// scratch array. Device memory is now read once per element and written once per block.
//
// Still slow: `tid % (2*s) == 0` keeps the working threads scattered across every warp (divergence),
// and the modulo itself is expensive.
//
// Evidence (Nsight Compute, `python -m cured --profile`, 2^25 float32, NVIDIA H200, 2026-11-22 00:10 UTC,
// results/ at commit 8e7b148; the 01:58 UTC file now in results/ differs by a point or less; the
// H100's counters in results/ agree): 377 -> 333 us, only 1.13x: V0's
// scratch traffic already hit the L2 cache (85.1% hit rate, against 7.2% here), so moving the tree
// on chip saves little. The divergence does not show as divergent branches (0) or warp efficiency
// (99.5%), which points to the `tid % (2*s)` test compiled as predication (SASS not checked here):
// every warp still issues every step, its idle lanes masked off, 7.89 warp instructions an element
// against V0's 8.73.
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
