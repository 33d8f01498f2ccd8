// V8: warp shuffle.
//
// What changed from V7: the last warp no longer goes through shared memory. Thread tid < 32 takes
// sdata[tid] + sdata[tid + 32] into a register and the warp finishes with __shfl_down_sync, which
// moves a register from lane tid + offset to lane tid directly: no shared-memory traffic and no
// __syncwarp between steps, since the shuffle itself synchronises the lanes named in its mask. The
// pairs are V7's, so the bits are V7's.
//
// Evidence (Nsight Compute, `python -m cured --profile`, 2^25 float32, NVIDIA H200, 2026-11-22 00:10 UTC,
// results/ at commit 8e7b148; the 01:58 UTC file now in results/ differs by a point or less; the
// H100's counters in results/ agree): 47.1 -> 47.7 us, no gain: warp
// instructions an element 0.291 -> 0.289, and 85.7% of warp cycles still wait on a global load. The
// last warp was never the limit; memory latency is (V9).
#include "common.cuh"

template <class Acc>
__device__ __forceinline__ Acc warp_reduce_shuffle(Acc v) {
#pragma unroll
    for (unsigned offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

template <unsigned BlockSize, unsigned PerThread, class In, class Acc>
__global__ void reduce_v8(const In *in, Acc *out, int64_t n) {
    static_assert(BlockSize >= 64 && (BlockSize & (BlockSize - 1)) == 0, "a power of two, at least two warps");
    __shared__ Acc sdata[BlockSize];
    const unsigned tid = threadIdx.x;
    const int64_t i = int64_t(blockIdx.x) * (BlockSize * PerThread) + tid;

    Acc sum = cured::load<Acc>(in, i, n);
    for (unsigned k = 1; k < PerThread; ++k) sum += cured::load<Acc>(in, i + int64_t(k) * BlockSize, n);
    sdata[tid] = sum;
    __syncthreads();

#pragma unroll
    for (unsigned s = BlockSize / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        const Acc v = warp_reduce_shuffle(sdata[tid] + sdata[tid + 32]);
        if (tid == 0) out[blockIdx.x] = v;
    }
}

CURED_EXPORT_KERNEL(v8_warp_shuffle, reduce_v8<v8_warp_shuffle_threads, v8_warp_shuffle_per_thread, In, Acc>)
