// tiles.cuh: how V9 and V10 walk the tiles of schedule TILES (cured.h): a thread's elements of a
// tile, loaded 16 bytes at a time, the grid sized from the GPU and the shared memory a block may have.
// What a version does with each element is its own idea; the walk is shared.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>

#include "common.cuh"
#include "launch.cuh"

namespace cured {

// Loads the 16-byte vector at p into v, with one vector load where p is aligned.
template <class In, bool Aligned, int V>
__device__ __forceinline__ void load_vector(const In *p, In (&v)[V]) {
    if constexpr (Aligned) {
        const uint4 raw = *reinterpret_cast<const uint4 *>(p);
        memcpy(v, &raw, sizeof raw);
    } else {
#pragma unroll
        for (int j = 0; j < V; ++j) v[j] = p[j];
    }
}

// One thread's loads of one step of a tile, which begins at step_begin: thread `thread` of `Threads`
// loads vectors u = 0 .. Vectors - 1 at vector index (u * Threads + thread) of the step, so each of
// a warp's loads covers 512 contiguous bytes, into v[vector][element]. Where the tile is not `whole`
// (it holds the end of the input), a vector that is not wholly inside is loaded element by element,
// `pad` past the end. Returns whether all of the step's elements are inside the input.
template <int Threads, int Vectors, class In, bool Aligned, int V>
__device__ __forceinline__ bool load_step(const In *in, int64_t n, int64_t step_begin, bool whole, const cured_tiles &t,
                                          unsigned thread, In pad, In (&v)[Vectors][V]) {
#pragma unroll
    for (int u = 0; u < Vectors; ++u) {
        const int64_t first = step_begin + (int64_t(u) * Threads + thread) * V;
        if (whole || first + V <= n) {
            load_vector<In, Aligned>(in + first, v[u]);
        } else {
#pragma unroll
            for (int j = 0; j < V; ++j) v[u][j] = first + j < n ? in[first + j] : pad;
        }
    }
    return whole || step_begin + t.step <= n;
}

// One thread's share of one tile: a tile is t.steps steps, each loaded by load_step; all loads of
// a step are issued before any element is used; then step(v, inside) is given the step's elements
// and whether all of them are inside the input.
template <int Threads, int Vectors, class In, bool Aligned, class Step>
__device__ __forceinline__ void for_tile_steps(const In *in, int64_t n, int64_t tile_begin, const cured_tiles &t,
                                               unsigned thread, In pad, Step step) {
    constexpr int V = CURED_VECTOR_BYTES / sizeof(In);
    const bool whole = tile_begin + t.tile <= n;
    for (int64_t s = 0; s < t.steps; ++s) {
        In v[Vectors][V];
        const bool inside =
            load_step<Threads, Vectors, In, Aligned>(in, n, tile_begin + s * t.step, whole, t, thread, pad, v);
        step(v, inside);
    }
}

// The same walk, element by element: element(x) runs for each element of a step in (vector,
// element) order, then step_done().
template <int Threads, int Vectors, class In, bool Aligned, class Element, class StepDone>
__device__ __forceinline__ void for_tile_elements(const In *in, int64_t n, int64_t tile_begin, const cured_tiles &t,
                                                  unsigned thread, In pad, Element element, StepDone step_done) {
    constexpr int V = CURED_VECTOR_BYTES / sizeof(In);
    for_tile_steps<Threads, Vectors, In, Aligned>(in, n, tile_begin, t, thread, pad, [&](In (&v)[Vectors][V], bool) {
#pragma unroll
        for (int u = 0; u < Vectors; ++u)
#pragma unroll
            for (int j = 0; j < V; ++j) element(v[u][j]);
        step_done();
    });
}

// One value a device, computed once by compute(device, &value) (a cudaError_t) and kept in `cache`
// (a static of the caller's, one per kernel where the value depends on it; value + 1, so that 0
// means not asked yet; a device beyond the 64th asks each time). Racing first calls compute the
// same value.
template <class Compute>
cudaError_t per_device(std::atomic<int64_t> (&cache)[64], int64_t *value, Compute compute) {
    int device;
    cudaError_t err = cudaGetDevice(&device);
    if (err != cudaSuccess) return err;
    const int64_t known = device < 64 ? cache[device].load(std::memory_order_relaxed) : 0;
    if (known > 0) {
        *value = known - 1;
        return cudaSuccess;
    }
    if ((err = compute(device, value)) != cudaSuccess) return err;
    if (device < 64) cache[device].store(*value + 1, std::memory_order_relaxed);
    return cudaSuccess;
}

// A grid of `waves` waves of as many blocks of `Kernel` (launched with `threads` threads and
// `dynamic_bytes` of dynamic shared memory) as fit an SM at once, on the current GPU. Cached per
// device and kernel: a kernel is always launched with the same dynamic shared memory.
template <auto Kernel>
cudaError_t waves_grid(int threads, int waves, int64_t *blocks, size_t dynamic_bytes = 0) {
    static std::atomic<int64_t> cache[64];
    return per_device(cache, blocks, [&](int device, int64_t *grid) {
        int sms, per_sm;
        cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        if (err == cudaSuccess) err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, threads, dynamic_bytes);
        if (err == cudaSuccess) *grid = int64_t(waves) * sms * (per_sm < 1 ? 1 : per_sm);
        return err;
    });
}

// Whether a block of Kernel may have `bytes` of dynamic shared memory on the current GPU (and under
// the cap a test may set, cured_test_dynamic_shared); the first time on a device that it may, the
// kernel's limit is raised to it. Cached per device and kernel.
template <auto Kernel> cudaError_t grant_dynamic_shared(size_t bytes, bool *granted) {
    static std::atomic<int64_t> cache[64];
    int64_t room;  // what a block may add to the kernel's static shared memory
    const cudaError_t err = per_device(cache, &room, [&](int device, int64_t *room_here) {
        int optin;
        cudaFuncAttributes attributes;
        cudaError_t e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
        if (e == cudaSuccess) e = cudaFuncGetAttributes(&attributes, Kernel);
        if (e != cudaSuccess) return e;
        *room_here = std::max<int64_t>(int64_t(optin) - int64_t(attributes.sharedSizeBytes), 0);
        return *room_here >= int64_t(bytes)
                   ? cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes))
                   : cudaSuccess;
    });
    if (err != cudaSuccess) return err;
    const int64_t cap = cured_test_dynamic_shared();
    *granted = int64_t(bytes) <= room && (cap == 0 || int64_t(bytes) <= cap);
    return cudaSuccess;
}

// Whether clusters of `blocks` blocks of Kernel (launched with `threads` threads and
// `dynamic_bytes` of dynamic shared memory) run on the current GPU: it launches clusters (sm_90
// up) and one of its GPCs holds one. Cached per device and kernel: a kernel is always asked with
// the same shape.
template <auto Kernel> cudaError_t cluster_fits(int threads, int blocks, size_t dynamic_bytes, bool *fits) {
    static std::atomic<int64_t> cache[64];
    int64_t clusters;
    const cudaError_t err = per_device(cache, &clusters, [&](int device, int64_t *fitting) {
        int launches_clusters, count = 0;
        cudaError_t e = cudaDeviceGetAttribute(&launches_clusters, cudaDevAttrClusterLaunch, device);
        if (e == cudaSuccess && launches_clusters) {
            cudaLaunchAttribute cluster;
            const cudaLaunchConfig_t config = one_cluster(blocks, threads, dynamic_bytes, nullptr, &cluster);
            e = cudaOccupancyMaxActiveClusters(&count, Kernel, &config);
        }
        *fitting = count;
        return e;
    });
    *fits = err == cudaSuccess && clusters > 0;
    return err;
}

// Programmatic dependent launch (sm_90 up): a kernel launched with launch_after_previous may be
// scheduled while the kernel before it in the stream finishes, instead of after, so that the
// launch's own latency hides under that kernel's tail. Such a kernel calls await_previous_launch
// before it touches memory: it waits there until the kernel before it has finished and its writes
// are visible, then lets the kernel after it be scheduled. Launched the ordinary way, or built for
// an older GPU, both are no-ops.
__device__ __forceinline__ void await_previous_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
    cudaTriggerProgrammaticLaunchCompletion();
#endif
}

// Whether the current GPU runs programmatic dependent launches (compute capability 9.0 up).
// Cached per device.
inline cudaError_t overlaps_launches(bool *overlaps) {
    static std::atomic<int64_t> cache[64];
    int64_t major;
    const cudaError_t err = per_device(cache, &major, [](int device, int64_t *value) {
        int m = 0;
        const cudaError_t e = cudaDeviceGetAttribute(&m, cudaDevAttrComputeCapabilityMajor, device);
        *value = m;
        return e;
    });
    *overlaps = err == cudaSuccess && major >= 9;
    return err;
}

// Launches kernel(args...) on `blocks` x `threads`, to overlap the end of the kernel before it in
// `stream` where the GPU can (above; the kernel must begin with await_previous_launch), else the
// ordinary way; returns the launch's error.
template <class... Params, class... Args>
cudaError_t launch_after_previous(void (*kernel)(Params...), int64_t blocks, int threads, cudaStream_t stream,
                                  Args &&...args) {
    bool overlaps;
    cudaError_t err = overlaps_launches(&overlaps);
    if (err != cudaSuccess) return err;
    cudaLaunchAttribute overlap = {};
    overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    overlap.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(unsigned(blocks));
    config.blockDim = dim3(unsigned(threads));
    config.stream = stream;
    config.attrs = overlaps ? &overlap : nullptr;
    config.numAttrs = overlaps ? 1 : 0;
    err = cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
    return err != cudaSuccess ? err : cudaGetLastError();
}

// The tiles that n elements fill, ceil(n / t.tile), by a shift: a tile is a power of two
// (cured_tiles_of: its threads, vectors a thread, elements a vector and steps all are). A 64-bit
// division there lay on the way to a block's first loads, behind which the whole block waits: V10
// 0.1 to 0.3 us faster at 2^10 to 2^17 without it (docs/v10.md).
__device__ __forceinline__ int64_t tiles_over(int64_t n, const cured_tiles &t) {
    return (n + t.tile - 1) >> (__ffsll((long long)t.tile) - 1);
}

// Whether a launch's span is whole tiles of the input cut as t says (cured_span).
inline bool whole_tiles(const cured_span &span, const cured_tiles &t) {
    return span.count >= 1 && span.first % t.tile == 0 && span.first + span.count <= span.n &&
           (span.count % t.tile == 0 || span.first + span.count == span.n);
}

}  // namespace cured
