// Probe: what a waited-for sum of a short device array costs beyond the floor (issue 12), part by
// part, from C. Wall time (clock_gettime around launch + wait + read), medians of many calls, every
// subject in turns. Subjects:
//   floor          <<<1, 1>>> writes 1.0f into mapped pinned memory; cudaStreamSynchronize
//   *_poll         the same kernel, then the host spins on the mapped value (no synchronize)
//   tile           <<<1, 256>>>: one V9 tile (2^10 float32 inside it), warp shuffles, mapped write
//   ticket8        <<<8, 256>>>: 2^16 float32 as V9 sums it (partials, ticket, last block combines)
//   group8         <<<1, 1024>>>: the same 8 tiles, each group of 256 threads two tiles in turn
//   cluster8       a cluster of 8 blocks of 256: partials through distributed shared memory
// and the host cost of single runtime calls (cudaPointerGetAttributes, cudaGetDevice, a launch).
// Build and run: nvcc -O3 -arch=sm_90 -std=c++17 -o call_floor scripts/probes/call_floor.cu -lcuda && ./call_floor
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda/atomic>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

namespace cg = cooperative_groups;

#include "v9_tile.cuh"

static double now() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

// One thread's share of tile `tile`, elements past n as 0.
__device__ __forceinline__ float tile_part(const float *in, long n, long tile, int t) {
    float v[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const long first = tile * TILE + (long(u) * T + t) * V;
        if (first + V <= n) {
            const float4 raw = *reinterpret_cast<const float4 *>(in + first);
            v[u][0] = raw.x, v[u][1] = raw.y, v[u][2] = raw.z, v[u][3] = raw.w;
        } else {
#pragma unroll
            for (int j = 0; j < V; ++j) v[u][j] = first + j < n ? in[first + j] : 0.f;
        }
    }
    return thread_add(v);
}

__global__ void floor_kernel(volatile float *out, float value) { *out = value; }

__global__ void tile_kernel(const float *in, long n, volatile float *out, float tag) {
    __shared__ float ws[W];
    const float s = group_sum(tile_part(in, n, 0, threadIdx.x), ws, 0);
    if (threadIdx.x == 0) *out = s + tag;
}

template <bool Fence>
__global__ void ticket_kernel(const float *in, long n, float *partials, unsigned *ticket, volatile float *out,
                              float tag) {
    __shared__ float ws[W];
    __shared__ bool last;
    const float s = group_sum(tile_part(in, n, blockIdx.x, threadIdx.x), ws, 0);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = s;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*ticket);
        last = c.fetch_add(1, cuda::memory_order_acq_rel) + 1 == gridDim.x;
        if (last) c.store(0, cuda::memory_order_relaxed);
    }
    __syncthreads();
    if (!last) return;
    float p = threadIdx.x < gridDim.x ? __ldcg(partials + threadIdx.x) : 0.f;
    p = group_sum(p, ws, 0);
    if (threadIdx.x == 0) {
        if (Fence) __threadfence_system();  // the ticket's reset visible before the result, system-wide
        *out = p + tag;
    }
}

__global__ void __launch_bounds__(1024) group_kernel(const float *in, long n, long tiles, volatile float *out,
                                                     float tag) {
    __shared__ float ws[4 * W];
    __shared__ float partials[32];
    const int group = threadIdx.x / T, t = threadIdx.x % T;
    for (long tile = group; tile < tiles; tile += 4) {
        const float s = group_sum(tile_part(in, n, tile, t), ws, group);
        if (t == 0) partials[tile] = s;
    }
    __syncthreads();
    if (group != 0) return;
    float p = t < tiles ? partials[t] : 0.f;
    p = group_sum(p, ws, 0);
    if (t == 0) *out = p + tag;
}

__global__ void __cluster_dims__(8, 1, 1) cluster_kernel(const float *in, long n, volatile float *out, float tag) {
    __shared__ float ws[W];
    __shared__ float partial;
    cg::cluster_group cluster = cg::this_cluster();
    const float s = group_sum(tile_part(in, n, blockIdx.x, threadIdx.x), ws, 0);
    if (threadIdx.x == 0) partial = s;
    cluster.sync();
    if (cluster.block_rank() == 0) {
        float p = threadIdx.x < 8 ? *cluster.map_shared_rank(&partial, threadIdx.x) : 0.f;
        p = group_sum(p, ws, 0);
        if (threadIdx.x == 0) *out = p + tag;
    }
    cluster.sync();  // the others' shared memory stays until block 0 has read it
}

__global__ void empty_kernel() {}

int main() {
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s\n", prop.name);
    float *host, *mapped;
    CK(cudaHostAlloc((void **)&host, 64, cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&mapped, host, 0));
    volatile float *vhost = host;
    const long n_max = 8L * TILE;
    float *in, *partials;
    unsigned *ticket;
    CK(cudaMalloc(&in, n_max * sizeof(float)));
    CK(cudaMalloc(&partials, 64 * sizeof(float)));
    CK(cudaMalloc(&ticket, sizeof(unsigned)));
    CK(cudaMemset(ticket, 0, sizeof(unsigned)));
    std::vector<float> ones(n_max, 1.0f);
    CK(cudaMemcpy(in, ones.data(), n_max * sizeof(float), cudaMemcpyHostToDevice));
    cudaStream_t s = cudaStreamLegacy;
    cudaEvent_t event;
    CK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    CK(cudaEventRecord(event, s));
    cudaFunction_t tile_runtime;
    CK(cudaGetFuncBySymbol(&tile_runtime, (const void *)tile_kernel));
    const CUfunction tile_function = (CUfunction)tile_runtime;
    // Each call's result is tagged, so that a poll cannot take the last call's value: k * 2^17 plus
    // a sum of ones (at most 2^16), exact in float32.
    int k_tag = 0;
    float tag = 0;
    auto next_tag = [&] { k_tag = k_tag % 60 + 1; return tag = float(k_tag) * 131072.f; };

    // A launch, then the wait: synchronize, or spin on the mapped value until it is the expected one.
    auto sync_wait = [&](float expect) {
        CK(cudaStreamSynchronize(s));
        if (*vhost != expect) { printf("bad value %f != %f\n", *vhost, expect); exit(1); }
    };
    auto poll_wait = [&](float expect) {
        while (*vhost != expect) {
        }
    };
    std::vector<std::pair<std::string, std::function<void()>>> subjects = {
        {"floor_sync", [&] { next_tag(); floor_kernel<<<1, 1, 0, s>>>(mapped, tag); CK(cudaGetLastError()); sync_wait(tag); }},
        {"floor_poll", [&] { next_tag(); floor_kernel<<<1, 1, 0, s>>>(mapped, tag); CK(cudaGetLastError()); poll_wait(tag); }},
        {"tile2^10_sync", [&] { next_tag(); tile_kernel<<<1, T, 0, s>>>(in, 1024, mapped, tag); CK(cudaGetLastError()); sync_wait(tag + 1024); }},
        {"tile2^10_poll", [&] { next_tag(); tile_kernel<<<1, T, 0, s>>>(in, 1024, mapped, tag); CK(cudaGetLastError()); poll_wait(tag + 1024); }},
        {"tile2^13_sync", [&] { next_tag(); tile_kernel<<<1, T, 0, s>>>(in, TILE, mapped, tag); CK(cudaGetLastError()); sync_wait(tag + TILE); }},
        {"ticket8_sync", [&] { next_tag(); ticket_kernel<false><<<8, T, 0, s>>>(in, n_max, partials, ticket, mapped, tag); CK(cudaGetLastError()); sync_wait(tag + n_max); }},
        {"group8_sync", [&] { next_tag(); group_kernel<<<1, 1024, 0, s>>>(in, n_max, 8, mapped, tag); CK(cudaGetLastError()); sync_wait(tag + n_max); }},
        {"cluster8_sync", [&] { next_tag(); cluster_kernel<<<8, T, 0, s>>>(in, n_max, mapped, tag); CK(cudaGetLastError()); sync_wait(tag + n_max); }},
        {"ticket8_poll", [&] { next_tag(); ticket_kernel<false><<<8, T, 0, s>>>(in, n_max, partials, ticket, mapped, tag); CK(cudaGetLastError()); poll_wait(tag + n_max); }},
        {"tile2^13_poll", [&] { next_tag(); tile_kernel<<<1, T, 0, s>>>(in, TILE, mapped, tag); CK(cudaGetLastError()); poll_wait(tag + TILE); }},
        {"group8_poll", [&] { next_tag(); group_kernel<<<1, 1024, 0, s>>>(in, n_max, 8, mapped, tag); CK(cudaGetLastError()); poll_wait(tag + n_max); }},
        {"cluster8_poll", [&] { next_tag(); cluster_kernel<<<8, T, 0, s>>>(in, n_max, mapped, tag); CK(cudaGetLastError()); poll_wait(tag + n_max); }},
        {"ticket8_poll_fence", [&] { next_tag(); ticket_kernel<true><<<8, T, 0, s>>>(in, n_max, partials, ticket, mapped, tag); CK(cudaGetLastError()); poll_wait(tag + n_max); }},
        {"tile2^10_poll_cuLaunch", [&] { next_tag(); long n = 1024; void *args[] = {&in, &n, &mapped, &tag}; CK((cudaError_t)cuLaunchKernel(tile_function, 1, 1, 1, T, 1, 1, 0, (CUstream)s, args, nullptr)); poll_wait(tag + 1024); }},
    };
    // Host cost of single calls (the launch: its call alone, the wait outside the timing).
    std::vector<std::pair<std::string, std::function<double()>>> calls = {
        {"cudaPointerGetAttributes", [&] { cudaPointerAttributes a; const double t0 = now(); CK(cudaPointerGetAttributes(&a, in)); return now() - t0; }},
        {"cudaGetDevice", [&] { int d; const double t0 = now(); CK(cudaGetDevice(&d)); return now() - t0; }},
        {"launch call (empty)", [&] { const double t0 = now(); empty_kernel<<<1, 1, 0, s>>>(); CK(cudaGetLastError()); const double t = now() - t0; CK(cudaStreamSynchronize(s)); return t; }},
        {"launch call (tile)", [&] { next_tag(); const double t0 = now(); tile_kernel<<<1, T, 0, s>>>(in, 1024, mapped, tag); CK(cudaGetLastError()); const double t = now() - t0; CK(cudaStreamSynchronize(s)); return t; }},
        {"cudaStreamSynchronize (idle)", [&] { const double t0 = now(); CK(cudaStreamSynchronize(s)); return now() - t0; }},
        {"cudaEventRecord", [&] { const double t0 = now(); CK(cudaEventRecord(event, s)); return now() - t0; }},
        {"cudaEventQuery (done)", [&] { CK(cudaStreamSynchronize(s)); const double t0 = now(); CK(cudaEventQuery(event)); return now() - t0; }},
        {"cudaStreamWaitEvent (done)", [&] { CK(cudaStreamSynchronize(s)); const double t0 = now(); CK(cudaStreamWaitEvent(s, event, 0)); return now() - t0; }},
        {"cuLaunchKernel call (tile)", [&] { next_tag(); long n = 1024; void *args[] = {&in, &n, &mapped, &tag}; const double t0 = now(); CK((cudaError_t)cuLaunchKernel(tile_function, 1, 1, 1, T, 1, 1, 0, (CUstream)s, args, nullptr)); const double t = now() - t0; CK(cudaStreamSynchronize(s)); return t; }},
    };
    const int rounds = 40, per_round = 100;
    std::vector<std::vector<double>> times(subjects.size()), call_times(calls.size());
    for (int r = 0; r < rounds; ++r) {
        for (size_t k = 0; k < subjects.size(); ++k)
            for (int i = 0; i < per_round; ++i) {
                const double t0 = now();
                subjects[k].second();
                times[k].push_back(now() - t0);
            }
        CK(cudaDeviceSynchronize());
        for (size_t k = 0; k < calls.size(); ++k)
            for (int i = 0; i < per_round; ++i) call_times[k].push_back(calls[k].second());
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2] * 1e6;
    };
    auto quantile = [](std::vector<double> v, double q) {
        std::sort(v.begin(), v.end());
        return v[size_t(q * (v.size() - 1))] * 1e6;
    };
    for (size_t k = 0; k < subjects.size(); ++k)
        printf("%-30s median %6.2f us  (p10 %6.2f, p90 %6.2f)\n", subjects[k].first.c_str(), median(times[k]),
               quantile(times[k], 0.1), quantile(times[k], 0.9));
    for (size_t k = 0; k < calls.size(); ++k)
        printf("%-30s median %6.2f us  (p10 %6.2f, p90 %6.2f)\n", calls[k].first.c_str(), median(call_times[k]),
               quantile(call_times[k], 0.1), quantile(call_times[k], 0.9));
    return 0;
}
