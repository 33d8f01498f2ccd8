// last_warp.cuh: the unrolled last warp that V5 introduces and V6 and V7 keep.
#pragma once

namespace cured {

// Sums s[0, 64) into s[0] with the first warp alone (call it for tid < 32), in the order of the
// sequential tree: s[tid] += s[tid + 32], then + 16, ..., + 1.
//
// The seeds do this with a `volatile` pointer and no barrier, counting on the 32 threads of a warp to
// run in lockstep. Since Volta, threads of a warp are scheduled independently, so that is a data race:
// thread 0 may read s[16] before or after thread 16 has written it. Each step therefore reads into a
// register, waits for the whole warp (__syncwarp), writes, and waits again. __syncwarp also orders the
// shared-memory accesses of the warp, which is what `volatile` was for. Still no __syncthreads: that is
// the teaching point, a warp waits only for itself.
template <class Acc>
__device__ __forceinline__ void warp_reduce_shared(Acc *s, unsigned tid) {
    Acc v = s[tid];
#pragma unroll
    for (unsigned offset = 32; offset > 0; offset >>= 1) {
        v += s[tid + offset];
        __syncwarp();
        s[tid] = v;
        __syncwarp();
    }
}

}  // namespace cured
