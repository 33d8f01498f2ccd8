// V6: completely unroll.
//
// What changed from V5: the block size is a template parameter, so the loop's bounds are known at
// compile time and `#pragma unroll` turns it into straight-line code: no loop counter, no compare,
// no branch back. Same pairs as V5, same bits.
//
// Evidence (Nsight Compute, `python -m cured --profile`, 2^25 float32, NVIDIA H200, 2026-11-22 00:10 UTC,
// results/ at commit 8e7b148; the 01:58 UTC file now in results/ differs by a point or less; the
// H100's counters in results/ agree): 70 -> 64 us. Warp instructions an element fall
// from 1.05 to 0.785 (the loop's counter, compare and branch are gone); barrier stalls stay at 11.6%.
#include "common.cuh"
#include "last_warp.cuh"

template <unsigned BlockSize, class In, class Acc>
__global__ void reduce_v6(const In *in, Acc *out, int64_t n) {
    static_assert(BlockSize >= 64 && (BlockSize & (BlockSize - 1)) == 0, "a power of two, at least two warps");
    __shared__ Acc sdata[BlockSize];
    const unsigned tid = threadIdx.x;
    const int64_t i = int64_t(blockIdx.x) * (BlockSize * 2) + tid;

    sdata[tid] = cured::load<Acc>(in, i, n) + cured::load<Acc>(in, i + BlockSize, n);
    __syncthreads();

#pragma unroll
    for (unsigned s = BlockSize / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) cured::warp_reduce_shared(sdata, tid);
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

CURED_EXPORT_KERNEL(v6_completely_unroll, reduce_v6<v6_completely_unroll_threads, In, Acc>)
