// Probe: the host path's lanes without a launch a chunk (staged.c; docs/host_path.md). In cured
// each lane, having copied a chunk into its pinned staging buffer, launches the first stage on it
// and records an event; the lanes' launches and events go through the driver from ten threads at
// once. staging_dma.cu found chunks of 256 KiB slow that way (17 to 30 GB/s), although buffers that
// small could stay in the CPU's caches while the GPU reads them. Here one kernel runs for the whole
// input: its blocks take chunks in order, wait until the chunk's flag in mapped host memory says
// which staging buffer holds it, sum it where it lies, and write the buffer's "freed" flag, which
// its lane waits for before it copies another chunk there. Subjects, wall time of `bytes`, median of
// 7 rounds in turns:
//   one copy              one cudaMemcpyAsync from one pinned buffer (the bus's speed, R);
//   polled S x C KiB xB   S threads take chunks in turn, copy each into one of their B pinned
//                         buffers once its freed flag says so, and set the chunk's flag; one kernel
//                         of G blocks (printed), launched before the lanes start, reads them.
// (staging_dma.cu's "mapped" subject is the same lanes with a launch and an event a chunk.)
// Every subject's sum (the input's 32-bit words, exactly, in 64 bits) is checked against the CPU's
// each round: a block that read a buffer before its chunk had landed, or a stale copy of it, would
// show. Build and run:
//   nvcc -O2 -arch=sm_90 -std=c++17 -o /tmp/staging_polled scripts/probes/staging_polled.cu
//   /tmp/staging_polled [MiB] [subject filter]
#include <cpuid.h>
#include <immintrin.h>

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

#include <cuda/atomic>

#include "staging_probe.cuh"

typedef unsigned long long u64;
constexpr int kThreads = 512;

// Whether the CPU has clwb (CPUID leaf 7, EBX bit 24).
static bool clwb_supported() {
    unsigned a, b, c, d;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b >> 24) & 1;
}

// A lane's copy by 32-byte non-temporal stores (dst on 32 bytes; n a multiple of 32).
__attribute__((target("avx2"))) static void copy_streaming_32(char *dst, const char *src, size_t n) {
    for (size_t i = 0; i < n; i += 32)
        _mm256_stream_si256((__m256i *)(dst + i), _mm256_loadu_si256((const __m256i *)(src + i)));
}

// memcpy, then each written line written back to memory but kept in the caches (clwb), so that the
// GPU's loads find it clean.
__attribute__((target("clwb"))) static void copy_written_back(char *dst, const char *src, size_t n) {
    memcpy(dst, src, n);
    for (size_t i = 0; i < n; i += 64) _mm_clwb(dst + i);
}

// Thread's share of the 32-bit words of `bytes` at p (16 bytes a load, Unroll loads in flight),
// summed over the block into *out by thread 0.
template <int Unroll>
__device__ void sum_chunk(const uint4 *p, size_t bytes, u64 *out) {
    __shared__ u64 warp_sums[kThreads / 32];
    const size_t vectors = bytes / 16;
    u64 acc = 0;
#pragma unroll Unroll
    for (size_t i = threadIdx.x; i < vectors; i += kThreads) {
        const uint4 v = p[i];
        acc += (u64)v.x + v.y + v.z + v.w;
    }
    for (int d = 16; d > 0; d /= 2) acc += __shfl_down_sync(0xffffffffu, acc, d);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        u64 total = 0;
        for (int w = 0; w < kThreads / 32; ++w) total += warp_sums[w];
        *out = total;
    }
}

// ready[k]: (epoch << 32) | slot once chunk k of this round is in staging buffer `slot` (the host
// writes it); freed[slot]: (epoch << 32) | (k + 1) once chunk k has been read from it (the GPU).
template <int Unroll>
__global__ void polled_sum(const uint4 *const *slots, size_t chunk, size_t bytes, u64 chunks, u64 *ready, u64 *freed,
                           unsigned epoch, u64 *next, u64 *sums) {
    __shared__ u64 taken;
    __shared__ unsigned slot_of_taken;
    for (;;) {
        if (threadIdx.x == 0) {
            const u64 k = atomicAdd(next, 1ull);
            taken = k;
            if (k < chunks) {
                cuda::atomic_ref<u64, cuda::thread_scope_system> flag(ready[k]);
                u64 v;
                while (((v = flag.load(cuda::memory_order_acquire)) >> 32) != epoch) __nanosleep(256);
                slot_of_taken = (unsigned)v;
            }
        }
        __syncthreads();
        const u64 k = taken;
        if (k >= chunks) return;
        const unsigned slot = slot_of_taken;
        sum_chunk<Unroll>(slots[slot], chunk < bytes - k * chunk ? chunk : bytes - k * chunk, sums + k);  // ends after a barrier
        if (threadIdx.x == 0) {
            cuda::atomic_ref<u64, cuda::thread_scope_system> flag(freed[slot]);
            flag.store(((u64)epoch << 32) | (k + 1), cuda::memory_order_release);
        }
        __syncthreads();  // `taken` is read by all before thread 0 writes the next
    }
}

struct Lanes {
    int count, buffers;
    size_t chunk;
    std::vector<char *> host;       // count * buffers pinned, mapped staging buffers
    const uint4 **device_slots;     // their device addresses, in device memory (polled)
    Lanes(int s, int b, size_t c) : count(s), buffers(b), chunk(c), host(s * b) {
        std::vector<const uint4 *> mapped(s * b);
        for (int i = 0; i < s * b; ++i) {
            CK(cudaHostAlloc(&host[i], c, cudaHostAllocPortable | cudaHostAllocMapped));
            memset(host[i], 1, c);
            void *d;
            CK(cudaHostGetDevicePointer(&d, host[i], 0));
            mapped[i] = (const uint4 *)d;
        }
        CK(cudaMalloc(&device_slots, s * b * sizeof *device_slots));
        CK(cudaMemcpy(device_slots, mapped.data(), s * b * sizeof *device_slots, cudaMemcpyHostToDevice));
    }
};

// Runs lane(w) on S threads at once (thread 0: this one), timed from when all have started (cured's
// lanes are a pool's threads) through after() on this thread.
static double on_lanes(int count, const std::function<void(int)> &lane, const std::function<void()> &before,
                       const std::function<void()> &after) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int w = 1; w < count; ++w)
        threads.emplace_back([&, w] {
            CK(cudaSetDevice(0));
            ++ready;
            while (!go) {}
            lane(w);
        });
    while (ready < count - 1) {}
    const double t0 = now();
    before();
    go = true;
    lane(0);
    for (auto &t : threads) t.join();
    after();
    return now() - t0;
}

int main(int argc, char **argv) {
    const size_t bytes = (size_t)(argc > 1 ? atoi(argv[1]) : 256) << 20;
    const std::string filter = argc > 2 ? argv[2] : "";
    char *pinned, *device;
    const time_t t = probe_start(bytes, &pinned, &device);
    uint32_t *input = (uint32_t *)malloc(bytes);
    u64 expected = 0, x = (u64)t | 1;
    for (size_t i = 0; i < bytes / 4; ++i) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        input[i] = (uint32_t)x;
        expected += input[i];
    }
    cudaStream_t stream;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    u64 *flags_host, *flags;  // ready[max chunks], then freed[max slots]
    const size_t max_chunks = bytes / (16 << 10) + 1, max_slots = 64 * 4;
    CK(cudaHostAlloc(&flags_host, (max_chunks + max_slots) * sizeof(u64), cudaHostAllocPortable | cudaHostAllocMapped));
    memset(flags_host, 0, (max_chunks + max_slots) * sizeof(u64));
    CK(cudaHostGetDevicePointer((void **)&flags, flags_host, 0));
    u64 *sums, *next;
    CK(cudaMalloc(&sums, max_chunks * sizeof(u64)));
    CK(cudaMalloc(&next, sizeof(u64)));
    std::vector<u64> sums_host(max_chunks);
    unsigned epoch = 0;
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

    std::map<long, Lanes *> lanes_of;
    auto lanes = [&](int s, int c_kib, int b) -> Lanes & {
        Lanes *&l = lanes_of[(long)s * 1000000 + c_kib * 10 + b];
        if (l == nullptr) l = new Lanes(s, b, (size_t)c_kib << 10);
        return *l;
    };
    auto check = [&](const char *name, size_t chunks) {
        CK(cudaMemcpy(sums_host.data(), sums, chunks * sizeof(u64), cudaMemcpyDeviceToHost));
        u64 total = 0;
        for (size_t k = 0; k < chunks; ++k) total += sums_host[k];
        if (total != expected) {
            printf("%s: sum %llu, expected %llu\n", name, total, expected);
            exit(1);
        }
    };

    // The polled path: one kernel of `grid` blocks; the lanes publish chunks, the blocks free buffers.
    // copy: how a lane stages a chunk (Memcpy; Streaming: 16-byte non-temporal stores, the lines
    // going to memory rather than staying dirty in the lane's caches for the GPU's reads to snoop;
    // Streaming32: 32-byte ones; WrittenBack: memcpy, then clwb each line; None: the flags only,
    // the buffers keeping what they hold, so the sum is not checked).
    enum Copy { Memcpy, Streaming, Streaming32, WrittenBack, None };
    auto polled = [&](int s, int c_kib, int b, int grid, const std::string &name, Copy copy = Memcpy,
                      bool wide = false) {
        Lanes &l = lanes(s, c_kib, b);
        const size_t chunks = (bytes + l.chunk - 1) / l.chunk;
        u64 *const ready_host = flags_host, *const freed_host = flags_host + max_chunks;
        const unsigned round = ++epoch;
        std::atomic<size_t> next_chunk{0};
        const double seconds = on_lanes(s, [&](int w) {
            std::vector<u64> expect(b, 0);
            for (int turn = 0;; ++turn) {
                const size_t k = next_chunk.fetch_add(1);
                if (k >= chunks) break;
                const int slot = w * b + turn % b;
                const size_t n = std::min(l.chunk, bytes - k * l.chunk);
                cuda::atomic_ref<u64, cuda::thread_scope_system> freed(freed_host[slot]);
                if (turn >= b)
                    while (freed.load(cuda::memory_order_acquire) != expect[turn % b]) _mm_pause();
                const char *from = (const char *)input + k * l.chunk;
                if (copy == Memcpy) {
                    memcpy(l.host[slot], from, n);
                } else if (copy == Streaming32) {
                    copy_streaming_32(l.host[slot], from, n);
                } else if (copy == WrittenBack) {
                    copy_written_back(l.host[slot], from, n);
                } else if (copy == Streaming) {
                    for (size_t i = 0; i < n; i += 16)
                        _mm_stream_si128((__m128i *)(l.host[slot] + i), _mm_loadu_si128((const __m128i *)(from + i)));
                }
                _mm_sfence();  // memcpy's streaming stores, if any, before the flag
                cuda::atomic_ref<u64, cuda::thread_scope_system>(ready_host[k]).store(((u64)round << 32) | slot,
                                                                                cuda::memory_order_release);
                expect[turn % b] = ((u64)round << 32) | (k + 1);
            }
        }, [&] {
            CK(cudaMemsetAsync(next, 0, sizeof(u64), stream));
            (wide ? polled_sum<16> : polled_sum<8>)<<<grid, kThreads, 0, stream>>>(
                l.device_slots, l.chunk, bytes, chunks, flags, flags + max_chunks, round, next, sums);
            CK(cudaGetLastError());
        }, [&] { CK(cudaStreamSynchronize(stream)); });
        if (copy != None) check(name.c_str(), chunks);
        return seconds;
    };

    std::vector<std::pair<std::string, std::function<double()>>> subjects;
    subjects.push_back({"one copy", [&] {
        const double t0 = now();
        CK(cudaMemcpyAsync(device, pinned, bytes, cudaMemcpyHostToDevice, stream));
        CK(cudaStreamSynchronize(stream));
        return now() - t0;
    }});
    for (int s : {6, 10, 14})
        for (int c_kib : {64, 256, 1024, 4096})
            for (int b : {2, 4})
                for (int grid : {16, sms}) {
                    if (b == 4 && c_kib > 256) continue;
                    std::string name = "polled " + std::to_string(s) + " x " + std::to_string(c_kib) + " KiB x" +
                                       std::to_string(b) + " G" + std::to_string(grid);
                    subjects.push_back({name, [&, s, c_kib, b, grid, name] { return polled(s, c_kib, b, grid, name); }});
                }
    // What the 10 x 1 MiB x 2, 16 blocks subject (cured's fed default) loses to a kernel reading one
    // filled buffer (mapped_reads.cu): the lanes' copies (none), their stores (streaming), the
    // kernel's loads in flight (16 a thread), a third buffer a lane.
    subjects.push_back({"fed none", [&] { return polled(10, 1024, 2, 16, "fed none", None); }});
    subjects.push_back({"fed streaming", [&] { return polled(10, 1024, 2, 16, "fed streaming", Streaming); }});
    subjects.push_back({"fed memcpy", [&] { return polled(10, 1024, 2, 16, "fed memcpy"); }});
    subjects.push_back({"fed wide", [&] { return polled(10, 1024, 2, 16, "fed wide", Memcpy, true); }});
    subjects.push_back({"fed x3", [&] { return polled(10, 1024, 3, 16, "fed x3"); }});
    if (__builtin_cpu_supports("avx2"))
        subjects.push_back({"fed streaming32", [&] { return polled(10, 1024, 2, 16, "fed streaming32", Streaming32); }});
    if (clwb_supported())
        subjects.push_back({"fed written back", [&] { return polled(10, 1024, 2, 16, "fed written back", WrittenBack); }});
    subjects.push_back({"fed streaming wide x3", [&] { return polled(10, 1024, 3, 16, "fed streaming wide x3", Streaming, true); }});
    std::vector<std::pair<std::string, std::function<double()>>> chosen;
    for (auto &subject : subjects)
        if (subject.first == "one copy" || subject.first.find(filter) != std::string::npos) chosen.push_back(subject);
    std::map<std::string, std::vector<double>> times;
    for (int round = 0; round < 8; ++round)
        for (auto &[name, f] : chosen) {
            const double s = f();
            if (round > 0) times[name].push_back(s);  // round 0 warms
        }
    const double copy = [&] { auto v = times["one copy"]; std::sort(v.begin(), v.end()); return v[v.size() / 2]; }();
    for (auto &[name, f] : chosen) {
        auto v = times[name];
        std::sort(v.begin(), v.end());
        const double m = v[v.size() / 2];
        printf("  %-32s %8.3f ms (%5.1f GB/s, %.2f of one copy)\n", name.c_str(), m * 1e3, bytes / m / 1e9, copy / m);
    }
    printf("every subject's sum equal to the CPU's, every round\n");
    return 0;
}
