// V0: global memory.
//
// The starting point. Each block copies its 256 elements into a scratch array in global memory
// (cured's own buffer, never the caller's input) and sums them as a tree: at step s = 1, 2, 4, ...,
// thread tid adds the element s to its right when tid is a multiple of 2s. Every step reads and
// writes device memory, and the test `tid % (2*s) == 0` leaves most threads of every warp idle while
// the warp still runs (divergence).
//
// Napkin math: 4 bytes in (float32), but each block also writes and rereads 256 accumulators in
// global memory log2(256) = 8 times: far more traffic than the input itself.
//
// Evidence (Nsight Compute, `python -m cured --profile`, 2^25 float32, NVIDIA H200, 2026-11-22 00:10 UTC,
// results/ at commit 8e7b148; the 01:58 UTC file now in results/ differs by a point or less; the
// H100's counters in results/ agree): divergent branches 6.18 million, warp efficiency 86.9% (the idle
// threads of each step); 85.1% of its L2 sectors hit, because the scratch traffic stays in the L2
// cache, so DRAM sees little more than the input (13.9% of peak); 8.73 warp instructions an element.
#include "common.cuh"

template <class In, class Acc>
__global__ void reduce_v0(const In *in, Acc *out, int64_t n, Acc *scratch) {
    const unsigned tid = threadIdx.x;
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + tid;
    Acc *block = scratch + int64_t(blockIdx.x) * blockDim.x;

    block[tid] = cured::load<Acc>(in, i, n);
    __syncthreads();

    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) block[tid] += block[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = block[0];
}

CURED_EXPORT_KERNEL(v0_global_memory, reduce_v0<In, Acc>)
