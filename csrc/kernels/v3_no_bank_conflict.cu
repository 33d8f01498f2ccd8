// V3: no bank conflict.
//
// What changed from V2: sequential addressing. The stride starts at blockDim/2 and halves, and thread
// tid < s adds sdata[tid + s]: a warp reads 32 consecutive words, one per bank, with no conflict, and
// the working threads stay contiguous. The tree is a different one (element i meets element
// i + blockDim/2 first), so float results differ from V0 to V2 in the last bits.
//
// Left to fix: half the threads are idle from the very first step, after doing nothing but a load.
//
// Evidence (Nsight Compute, `python -m cured --profile`, 2^25 float32, NVIDIA H200, 2026-11-22 00:10 UTC,
// results/ at commit 8e7b148; the 01:58 UTC file now in results/ differs by a point or less; the
// H100's counters in results/ agree): 207 -> 164 us. Bank conflicts fall from 14.2
// million to 0.17 million, warp instructions an element from 4.37 to 3.37.
#include "common.cuh"

template <class In, class Acc>
__global__ void reduce_v3(const In *in, Acc *out, int64_t n) {
    __shared__ Acc sdata[v3_no_bank_conflict_threads];
    const unsigned tid = threadIdx.x;
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + tid;

    sdata[tid] = cured::load<Acc>(in, i, n);
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

CURED_EXPORT_KERNEL(v3_no_bank_conflict, reduce_v3<In, Acc>)
