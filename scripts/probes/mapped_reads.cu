// Probe: how fast the GPU's own loads read pinned, mapped host memory, with no lanes staging it.
// The fed host path (staged.c) reads its chunks that way and reaches about 50.5 GB/s against the
// copy engine's 55 (docs/host_path.md, "Fed"); this asks whether that is the loads' ceiling over
// the bus or the fed kernel's, and how fast the copy engine moves the same bytes in 1 MiB pieces
// (the other way a chunk could reach the device). Subjects, wall time of `bytes` already in pinned
// memory, median of 7 rounds in turns:
//   one copy             one cudaMemcpyAsync (the bus's speed, R);
//   read G x T           a kernel of G blocks of T threads sums the buffer where it lies: thread t
//                        of a block loads 16-byte vectors u = 0..7 at (u * T + t) of each 8 x T
//                        vector step (V9's walk), blocks taking 1 MiB pieces in turn by a counter;
//   read lines G         the same, each thread loading 128 contiguous bytes (8 vectors) a step;
//   copies 1 MiB xS      the buffer moved in 1 MiB cudaMemcpyAsync pieces, S streams in turn,
//                        issued from one thread.
// Every kernel's sum (the input's 32-bit words, exactly, in 64 bits) is checked against the CPU's
// each round. Build and run:
//   nvcc -O2 -arch=sm_90 -std=c++17 -o /tmp/mapped_reads scripts/probes/mapped_reads.cu
//   /tmp/mapped_reads [MiB]
#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "staging_probe.cuh"

typedef unsigned long long u64;
constexpr size_t kPiece = 1 << 20;

template <int Threads, bool Lines>
__global__ void read_mapped(const uint4 *in, size_t bytes, u64 *next, u64 *total) {
    __shared__ u64 taken;
    __shared__ u64 warp_sums[Threads / 32];
    const size_t pieces = (bytes + kPiece - 1) / kPiece;
    u64 acc = 0;
    for (;;) {
        if (threadIdx.x == 0) taken = atomicAdd(next, 1ull);
        __syncthreads();
        const u64 k = taken;
        __syncthreads();
        if (k >= pieces) break;
        const uint4 *p = in + k * (kPiece / 16);
        const size_t vectors = (bytes - k * kPiece < kPiece ? bytes - k * kPiece : kPiece) / 16;  // whole steps: bytes a multiple of 1 MiB
        for (size_t step = 0; step < vectors; step += 8 * Threads) {
            uint4 v[8];
#pragma unroll
            for (int u = 0; u < 8; ++u)
                v[u] = p[step + (Lines ? threadIdx.x * 8 + u : u * Threads + threadIdx.x)];
#pragma unroll
            for (int u = 0; u < 8; ++u) acc += (u64)v[u].x + v[u].y + v[u].z + v[u].w;
        }
    }
    for (int d = 16; d > 0; d /= 2) acc += __shfl_down_sync(0xffffffffu, acc, d);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        u64 sum = 0;
        for (int w = 0; w < Threads / 32; ++w) sum += warp_sums[w];
        atomicAdd(total, sum);
    }
}

int main(int argc, char **argv) {
    const size_t bytes = (size_t)(argc > 1 ? atoi(argv[1]) : 256) << 20;
    char *pinned, *device;
    const time_t t = probe_start(bytes, &pinned, &device);
    CK(cudaFreeHost(pinned));  // probe_start's buffer is not mapped; this one is
    CK(cudaHostAlloc(&pinned, bytes, cudaHostAllocPortable | cudaHostAllocMapped));
    uint32_t *words = (uint32_t *)pinned;
    u64 expected = 0, x = (u64)t | 1;
    for (size_t i = 0; i < bytes / 4; ++i) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        words[i] = (uint32_t)x;
        expected += words[i];
    }
    const uint4 *mapped;
    CK(cudaHostGetDevicePointer((void **)&mapped, pinned, 0));
    cudaStream_t streams[4];
    for (auto &s : streams) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    u64 *counters;  // next piece, total
    CK(cudaMalloc(&counters, 2 * sizeof(u64)));
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

    std::vector<std::pair<std::string, std::function<double()>>> subjects;
    subjects.push_back({"one copy", [&] {
        const double t0 = now();
        CK(cudaMemcpyAsync(device, pinned, bytes, cudaMemcpyHostToDevice, streams[0]));
        CK(cudaStreamSynchronize(streams[0]));
        return now() - t0;
    }});
    auto add_read = [&](const std::string &name, int grid, void (*kernel)(const uint4 *, size_t, u64 *, u64 *),
                        int threads) {
        subjects.push_back({name, [&, name, grid, kernel, threads] {
            CK(cudaMemsetAsync(counters, 0, 2 * sizeof(u64), streams[0]));
            CK(cudaStreamSynchronize(streams[0]));
            const double t0 = now();
            kernel<<<grid, threads, 0, streams[0]>>>(mapped, bytes, counters, counters + 1);
            CK(cudaGetLastError());
            CK(cudaStreamSynchronize(streams[0]));
            const double s = now() - t0;
            u64 total;
            CK(cudaMemcpy(&total, counters + 1, sizeof total, cudaMemcpyDeviceToHost));
            if (total != expected) {
                printf("%s: sum %llu, expected %llu\n", name.c_str(), total, expected);
                exit(1);
            }
            return s;
        }});
    };
    for (int grid : {16, 32, sms, 2 * sms}) {
        add_read("read " + std::to_string(grid) + " x 256", grid, read_mapped<256, false>, 256);
        add_read("read " + std::to_string(grid) + " x 512", grid, read_mapped<512, false>, 512);
        add_read("read lines " + std::to_string(grid) + " x 256", grid, read_mapped<256, true>, 256);
    }
    for (int s : {1, 2, 4})
        subjects.push_back({"copies 1 MiB x" + std::to_string(s), [&, s] {
            const double t0 = now();
            for (size_t k = 0; k * kPiece < bytes; ++k)
                CK(cudaMemcpyAsync(device + k * kPiece, pinned + k * kPiece, std::min(kPiece, bytes - k * kPiece),
                                   cudaMemcpyHostToDevice, streams[k % s]));
            for (int i = 0; i < s; ++i) CK(cudaStreamSynchronize(streams[i]));
            return now() - t0;
        }});

    std::map<std::string, std::vector<double>> times;
    for (int round = 0; round < 8; ++round)
        for (auto &[name, f] : subjects) {
            const double s = f();
            if (round > 0) times[name].push_back(s);  // round 0 warms
        }
    auto median = [&](const std::string &name) {
        auto v = times[name];
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    const double copy = median("one copy");
    for (auto &[name, f] : subjects) {
        const double m = median(name);
        printf("  %-26s %8.3f ms (%5.1f GB/s, %.2f of one copy)\n", name.c_str(), m * 1e3, bytes / m / 1e9, copy / m);
    }
    printf("every kernel's sum equal to the CPU's, every round\n");
    return 0;
}
