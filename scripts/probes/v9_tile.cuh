// v9_tile.cuh: what the standalone probes (v9_combine.cu, call_floor.cu) share: a checked CUDA
// call that exits on failure (a probe, not the library), and V9's float32 tile (256 threads, 8
// vectors of 16 bytes a thread) with its block sum of warp shuffles.
#pragma once

#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudaError_t e = (x);                                                                    \
        if (e != cudaSuccess) {                                                                 \
            printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e));                    \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

constexpr int T = 256, U = 8, W = T / 32;
typedef float A;
constexpr int V = 16 / sizeof(A);
constexpr int TILE = T * U * V;

__device__ __forceinline__ A warp_tree(A v) {
#pragma unroll
    for (unsigned o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}
// block_sum over 256 threads (threads of `group` g of 256 use ws[g*W..]); bar id per group
__device__ __forceinline__ A group_sum(A v, A *ws, int group) {
    const unsigned lane = threadIdx.x % 32, warp = (threadIdx.x % T) / 32;
    v = warp_tree(v);
    if (lane == 0) ws[group * W + warp] = v;
    asm volatile("bar.sync %0, %1;" ::"r"(group + 1), "r"(T));
    if (warp == 0) {
        v = lane < W ? ws[group * W + lane] : A(0);
#pragma unroll
        for (unsigned o = W / 2; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    }
    asm volatile("bar.sync %0, %1;" ::"r"(group + 1), "r"(T));
    return v;
}

// A thread's loaded vectors added in V9's order (vector, element), from 0.
__device__ __forceinline__ A thread_add(const A (&v)[U][V]) {
    A s = 0;
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
        for (int j = 0; j < V; ++j) s += v[u][j];
    return s;
}
