// What the standalone staging probes (staging_dma.cu, staging_polled.cu) share: a checked CUDA call,
// the clock, and their start: the GPU, the time and the size printed, and `bytes` of pinned host
// memory (filled) and of device memory for the pinned copy that each times as the bus's speed.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>

#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("line %d: %s\n", __LINE__, cudaGetErrorString(err_)); exit(1); } } while (0)
static double now() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

// Returns the time it printed (seconds since the epoch).
static time_t probe_start(size_t bytes, char **pinned, char **device) {
    CK(cudaSetDevice(0));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const time_t t = time(nullptr);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime(&t));
    printf("%s, %s, %u CPUs, %zu MiB, wall ms (GB/s), median of 7 in turns\n", prop.name, when,
           std::thread::hardware_concurrency(), bytes >> 20);
    CK(cudaHostAlloc(pinned, bytes, cudaHostAllocPortable));
    memset(*pinned, 1, bytes);
    CK(cudaMalloc(device, bytes));
    return t;
}
