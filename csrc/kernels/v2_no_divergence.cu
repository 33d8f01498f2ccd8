// V2: no divergence.
//
// What changed from V1: thread tid works on index = 2*s*tid, so the threads that add are the first
// blockDim/(2s), packed into whole warps, and the other warps skip the step entirely. The pairs
// added, and so the result's bits, are the same as in V0 and V1.
//
// New problem: at step s a warp touches words 2*s apart, so several of its threads hit the same
// shared-memory bank (bank conflicts) and their accesses are serialised.
//
// Evidence (Nsight Compute, `python -m cured --profile`, 2^25 float32, NVIDIA H200, 2026-11-22 00:10 UTC,
// results/ at commit 8e7b148; the 01:58 UTC file now in results/ differs by a point or less; the
// H100's counters in results/ agree): 333 -> 207 us. Warp instructions an element
// fall from 7.89 to 4.37 (warps with no work skip the step), and shared-memory bank conflicts rise
// from 0.30 to 14.2 million.
#include "common.cuh"

template <class In, class Acc>
__global__ void reduce_v2(const In *in, Acc *out, int64_t n) {
    __shared__ Acc sdata[v2_no_divergence_threads];
    const unsigned tid = threadIdx.x;
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + tid;

    sdata[tid] = cured::load<Acc>(in, i, n);
    __syncthreads();

    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * tid;
        if (index < blockDim.x) sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

CURED_EXPORT_KERNEL(v2_no_divergence, reduce_v2<In, Acc>)
