// Probe: what the host path's copies to the GPU can reach without its host copies, and with them
// (staged.c; docs/host_path.md). staging_trace.py found the lanes' GPU copies ending up to 0.8 ms
// after the lanes' last host copy at 2^25 float32 on an H200 host, the bus moving the input at
// 40 to 46 GB/s where one pinned copy moves 54: so the copies to the GPU run slower than one copy
// does while the lanes copy on the host. Here, wall time of `bytes` to the device, median of 7 rounds
// taken in turns:
//   one copy             one cudaMemcpyAsync from one pinned buffer (the bus's speed, R);
//   S x C MiB queued     S streams, each copying chunks of C MiB in turn from two pinned buffers of
//                        its own, all queued at once from one thread: the copies alone, in the
//                        lanes' pattern (per-copy costs, streams sharing the copy engines);
//   ... + H busy         the same while H other threads copy pageable memory to pageable memory
//                        (their own 64 MiB, 1 MiB at a time, over and over): the copies to the GPU beside a load on
//                        the host's memory but nothing they wait for; their GB/s printed beside;
//   pipeline S x C KiB   S threads as the lanes: each takes the next chunk, waits for a free pinned
//                        buffer of its two, copies the chunk there from the pageable input, queues
//                        its copy to the GPU (cured's path without the reduction), timed from when
//                        all S have started;
//   mapped S x C KiB     the same, but instead of the copy a kernel (half as many blocks of 256 as
//                        the GPU has SMs) sums the chunk reading the pinned buffer where it lies:
//                        no copy engine, and buffers small enough may still be in the CPU's cache.
// Build and run: nvcc -O2 -arch=sm_90 -o /tmp/staging_dma scripts/probes/staging_dma.cu && /tmp/staging_dma [MiB]
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>
#include "staging_probe.cuh"

struct Lane {
    cudaStream_t stream;
    char *pinned[2];
    cudaEvent_t copied[2];
    char *device[2];
};

static std::vector<Lane> make_lanes(int count, size_t chunk) {
    std::vector<Lane> lanes(count);
    for (auto &l : lanes) {
        CK(cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking));
        for (int b = 0; b < 2; ++b) {
            CK(cudaHostAlloc(&l.pinned[b], chunk, cudaHostAllocPortable | cudaHostAllocMapped));
            memset(l.pinned[b], 1, chunk);
            CK(cudaEventCreateWithFlags(&l.copied[b], cudaEventDisableTiming));
            CK(cudaMalloc(&l.device[b], chunk));
        }
    }
    return lanes;
}

static void free_lanes(std::vector<Lane> &lanes) {
    for (auto &l : lanes) {
        for (int b = 0; b < 2; ++b) {
            CK(cudaFreeHost(l.pinned[b]));
            CK(cudaEventDestroy(l.copied[b]));
            CK(cudaFree(l.device[b]));
        }
        CK(cudaStreamDestroy(l.stream));
    }
}

// The copies alone: chunk k on lane k % S, queued from this thread.
static void queued(std::vector<Lane> &lanes, size_t bytes, size_t chunk) {
    const size_t chunks = (bytes + chunk - 1) / chunk;
    for (size_t k = 0; k < chunks; ++k) {
        Lane &l = lanes[k % lanes.size()];
        const int b = (k / lanes.size()) % 2;
        CK(cudaMemcpyAsync(l.device[b], l.pinned[b], std::min(chunk, bytes - k * chunk), cudaMemcpyHostToDevice, l.stream));
    }
    for (auto &l : lanes) CK(cudaStreamSynchronize(l.stream));
}

// The chunk's sum, read where it lies (pinned host memory, mapped): what a reduction reading the
// staging buffer over the bus, with no copy to the GPU, would move.
__global__ void sum_mapped(const float4 *in, size_t count, float *out) {
    float acc = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        const float4 v = in[i];
        acc += v.x + v.y + v.z + v.w;
    }
    for (int d = 16; d > 0; d /= 2) acc += __shfl_down_sync(0xffffffffu, acc, d);
    if (threadIdx.x % 32 == 0) atomicAdd(out, acc);
}

// The lanes' path: each of S threads takes the next chunk, waits for a free pinned buffer, copies
// the chunk there from the pageable input, then queues its copy to the GPU (or, `mapped`, a kernel
// that reads it where it lies). Timed from when every thread has started (thread starts are not
// the path's: cured's lanes are a pool's) to the last stream's end.
static double pipeline(std::vector<Lane> &lanes, const char *input, size_t bytes, size_t chunk, bool mapped,
                       float *sums, int blocks) {
    const size_t chunks = (bytes + chunk - 1) / chunk;
    std::atomic<size_t> next{0};
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<double> ended(lanes.size());
    auto run = [&](int w) {
        Lane &l = lanes[w];
        CK(cudaSetDevice(0));
        ++ready;
        while (!go) {}
        for (int turn = 0;; ++turn) {
            const size_t k = next.fetch_add(1);
            if (k >= chunks) break;
            const int b = turn % 2;
            const size_t n = std::min(chunk, bytes - k * chunk);
            if (turn >= 2) CK(cudaEventSynchronize(l.copied[b]));
            memcpy(l.pinned[b], input + k * chunk, n);
            if (mapped) {
                sum_mapped<<<blocks, 256, 0, l.stream>>>((const float4 *)l.pinned[b], n / 16, sums + w);
                CK(cudaGetLastError());
            } else {
                CK(cudaMemcpyAsync(l.device[b], l.pinned[b], n, cudaMemcpyHostToDevice, l.stream));
            }
            CK(cudaEventRecord(l.copied[b], l.stream));
        }
        CK(cudaStreamSynchronize(l.stream));
        ended[w] = now();
    };
    std::vector<std::thread> threads;
    for (size_t w = 1; w < lanes.size(); ++w) threads.emplace_back(run, (int)w);
    ++ready;
    while (ready < (int)lanes.size()) {}
    const double t0 = now();
    go = true;
    --ready;
    run(0);
    for (auto &t : threads) t.join();
    return *std::max_element(ended.begin(), ended.end()) - t0;
}

// H threads copying their own pageable memory (64 MiB, 1 MiB at a time) until told to stop; the
// bytes they moved counted.
struct Busy {
    static constexpr size_t kBytes = 64 << 20, kStep = 1 << 20;
    std::atomic<bool> stop{false};
    std::atomic<size_t> moved{0};
    std::vector<std::thread> threads;
    std::vector<std::vector<char>> from, to;  // kept across rounds: their pages are touched once
    double started = 0;
    void start(int h) {
        while ((int)from.size() < h) {
            from.emplace_back(kBytes, 1);
            to.emplace_back(kBytes, 2);
        }
        stop = false;
        moved = 0;
        started = now();
        for (int i = 0; i < h; ++i)
            threads.emplace_back([this, i] {
                for (size_t off = 0; !stop; off = (off + kStep) % kBytes) {
                    memcpy(to[i].data() + off, from[i].data() + off, kStep);
                    moved += kStep;
                }
            });
    }
    double stop_rate() {  // GB/s copied
        stop = true;
        const double seconds = now() - started;
        for (auto &t : threads) t.join();
        threads.clear();
        return moved / seconds / 1e9;
    }
};

int main(int argc, char **argv) {
    const size_t bytes = (size_t)(argc > 1 ? atoi(argv[1]) : 256) << 20;
    char *pinned, *device;
    probe_start(bytes, &pinned, &device);
    char *input = (char *)malloc(bytes);
    for (size_t i = 0; i < bytes; i += 4096) input[i] = (char)i;
    memset(input, 3, bytes);
    cudaStream_t stream;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    std::map<int, std::vector<Lane>> lanes_of;  // key S * 100 + C MiB
    auto lanes = [&](int s, int c_kib) -> std::vector<Lane> & {
        auto &l = lanes_of[s * 100000 + c_kib];
        if (l.empty()) l = make_lanes(s, (size_t)c_kib << 10);
        return l;
    };
    float *sums;
    CK(cudaMalloc(&sums, 64 * sizeof(float)));
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    Busy busy;
    std::vector<std::pair<std::string, std::function<double()>>> subjects;  // returns seconds; busy GB/s aside
    std::map<std::string, std::vector<double>> busy_rates;
    auto timed = [](const std::function<void()> &f) { double t0 = now(); f(); return now() - t0; };
    subjects.push_back({"one copy", [&] { return timed([&] {
        CK(cudaMemcpyAsync(device, pinned, bytes, cudaMemcpyHostToDevice, stream)); CK(cudaStreamSynchronize(stream)); }); }});
    for (int s : {1, 2, 4, 10})
        for (int c : {1, 4}) {
            std::string name = std::to_string(s) + " x " + std::to_string(c) + " MiB queued";
            subjects.push_back({name, [&, s, c] { return timed([&] { queued(lanes(s, c << 10), bytes, (size_t)c << 20); }); }});
        }
    for (int h : {2, 5, 10}) {
        std::string name = "10 x 4 MiB queued + " + std::to_string(h) + " busy";
        subjects.push_back({name, [&, h, name] {
            busy.start(h);
            double t0 = now();
            while (now() - t0 < 2e-3) {}  // the busy threads at work first
            double s = timed([&] { queued(lanes(10, 4 << 10), bytes, 4 << 20); });
            busy_rates[name].push_back(busy.stop_rate());
            return s;
        }});
    }
    for (int h : {5, 10}) {
        std::string name = "busy alone, " + std::to_string(h) + " threads";
        subjects.push_back({name, [&, h, name] {
            busy.start(h);
            double t0 = now();
            while (now() - t0 < 5e-3) {}
            busy_rates[name].push_back(busy.stop_rate());
            return 5e-3;
        }});
    }
    for (int s : {6, 10, 14})
        for (int c_kib : {256, 1024, 4096})
            for (bool mapped : {false, true}) {
                std::string name = std::string(mapped ? "mapped " : "pipeline ") + std::to_string(s) + " x " +
                                   std::to_string(c_kib) + " KiB";
                subjects.push_back({name, [&, s, c_kib, mapped] {
                    return pipeline(lanes(s, c_kib), input, bytes, (size_t)c_kib << 10, mapped, sums, sms / 2);
                }});
            }
    std::map<std::string, std::vector<double>> times;
    for (int round = 0; round < 8; ++round)
        for (auto &[name, f] : subjects) {
            double s = f();
            if (round > 0) times[name].push_back(s);  // round 0 warms
        }
    for (auto &[name, f] : subjects) {
        auto v = times[name];
        std::sort(v.begin(), v.end());
        double m = v[v.size() / 2];
        if (name.rfind("busy alone", 0) == 0) {
            auto r = busy_rates[name];
            std::sort(r.begin(), r.end());
            printf("  %-32s host copies %.1f GB/s\n", name.c_str(), r[r.size() / 2]);
            continue;
        }
        printf("  %-32s %8.3f ms (%5.1f GB/s)", name.c_str(), m * 1e3, bytes / m / 1e9);
        if (busy_rates.count(name)) {
            auto r = busy_rates[name];
            std::sort(r.begin(), r.end());
            printf("  host copies beside it %.1f GB/s", r[r.size() / 2]);
        }
        printf("\n");
    }
    for (auto &[k, l] : lanes_of) free_lanes(l);
    CK(cudaFreeHost(pinned));
    CK(cudaFree(device));
    CK(cudaFree(sums));
    free(input);
    return 0;
}
