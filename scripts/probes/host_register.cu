// Probe: what it costs to let the copy engine read pageable host memory where it lies (issue 12's
// host path, docs/host_path.md). First, one thread: cudaHostRegister of 4 MiB to 1 GiB of malloc'd,
// touched memory, the copy to the device from it, cudaHostUnregister, and beside them the copy from
// pinned memory and from the same pageable memory unregistered; wall time, three rounds a size.
// Then, registering in pieces on several threads: T threads take chunks of C bytes in turn,
// cudaHostRegister, the copy on the thread's stream, and once that copy is done (two chunks in
// flight a thread) cudaHostUnregister; the whole input's wall time against one copy from pinned
// memory, in turns, median of five. It prints.
// Build and run: nvcc -O2 -arch=sm_90 -o /tmp/host_register scripts/probes/host_register.cu && /tmp/host_register
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>
#include <vector>
#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("line %d: %s\n", __LINE__, cudaGetErrorString(err_)); exit(1); } } while (0)
static double now() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

struct Phases { double reg = 0, unreg = 0, wait = 0; };

// One pass over `bytes` of h with `threads` threads and chunks of `chunk` bytes; returns seconds.
static double registered_pass(char *h, char *d, size_t bytes, int threads, size_t chunk, Phases *ph) {
    std::atomic<size_t> next{0};
    std::vector<Phases> per(threads);
    auto lane = [&](int w) {
        CK(cudaSetDevice(0));
        cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        cudaEvent_t done[2]; for (auto &e : done) CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        char *held[2] = {nullptr, nullptr};
        for (int turn = 0;; ++turn) {
            const size_t k = next.fetch_add(1);
            const size_t off = k * chunk;
            const int b = turn % 2;
            if (held[b]) {
                double t0 = now(); CK(cudaEventSynchronize(done[b])); double t1 = now();
                CK(cudaHostUnregister(held[b])); double t2 = now();
                per[w].wait += t1 - t0; per[w].unreg += t2 - t1; held[b] = nullptr;
            }
            if (off >= bytes) break;
            const size_t n = std::min(chunk, bytes - off);
            double t0 = now(); CK(cudaHostRegister(h + off, n, cudaHostRegisterDefault)); per[w].reg += now() - t0;
            held[b] = h + off;
            CK(cudaMemcpyAsync(d + off, h + off, n, cudaMemcpyHostToDevice, s));
            CK(cudaEventRecord(done[b], s));
        }
        for (int b = 0; b < 2; ++b) if (held[b]) { CK(cudaEventSynchronize(done[b])); CK(cudaHostUnregister(held[b])); }
        CK(cudaStreamSynchronize(s)); CK(cudaStreamDestroy(s));
        for (auto &e : done) CK(cudaEventDestroy(e));
    };
    double t0 = now();
    std::vector<std::thread> pool;
    for (int w = 1; w < threads; ++w) pool.emplace_back(lane, w);
    lane(0);
    for (auto &t : pool) t.join();
    double t = now() - t0;
    for (auto &p : per) { ph->reg += p.reg; ph->unreg += p.unreg; ph->wait += p.wait; }
    return t;
}

int main() {
    const size_t max = size_t(1) << 30;
    char *h = (char *)aligned_alloc(4096, max);
    memset(h, 1, max);
    char *d; CK(cudaMalloc(&d, max));
    void *pinned; CK(cudaHostAlloc(&pinned, max, 0));
    for (size_t mib : {4, 32, 256, 1024}) {
        size_t b = mib << 20;
        for (int r = 0; r < 3; ++r) {
            double t0 = now(); CK(cudaHostRegister(h, b, 0)); double t1 = now();
            CK(cudaMemcpy(d, h, b, cudaMemcpyHostToDevice)); double t2 = now();
            CK(cudaHostUnregister(h)); double t3 = now();
            CK(cudaMemcpy(d, pinned, b, cudaMemcpyHostToDevice)); double t4 = now();
            CK(cudaMemcpy(d, h, b, cudaMemcpyHostToDevice)); double t5 = now();
            printf("%5zu MiB register %.3f ms (%.1f GB/s) copy-registered %.1f GB/s unregister %.3f ms pinned %.1f GB/s pageable %.1f GB/s\n",
                   mib, (t1 - t0) * 1e3, b / (t1 - t0) / 1e9, b / (t2 - t1) / 1e9, (t3 - t2) * 1e3, b / (t4 - t3) / 1e9, b / (t5 - t4) / 1e9);
        }
    }
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    int ro = 0; CK(cudaDeviceGetAttribute(&ro, cudaDevAttrHostRegisterReadOnlySupported, 0));
    int pageable = 0; CK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0));
    printf("%s, host-register read-only supported %d, pageable memory access %d\n", p.name, ro, pageable);
    for (size_t mib : {size_t(128), size_t(256), size_t(1024)}) {
        const size_t bytes = mib << 20;
        for (int threads : {1, 2, 4, 8, 12}) {
            for (size_t chunk_mib : {size_t(4), size_t(16), size_t(64)}) {
                if ((chunk_mib << 20) * threads > bytes * 2) continue;
                std::vector<double> reg, copy;
                Phases ph;
                for (int r = 0; r < 5; ++r) {
                    double t0 = now(); CK(cudaMemcpy(d, pinned, bytes, cudaMemcpyHostToDevice)); copy.push_back(now() - t0);
                    reg.push_back(registered_pass(h, d, bytes, threads, chunk_mib << 20, &ph));
                }
                std::sort(reg.begin(), reg.end()); std::sort(copy.begin(), copy.end());
                printf("%5zu MiB %2d threads %3zu MiB chunks: registered %.3f ms %.1f GB/s, pinned copy %.3f ms %.1f GB/s, share %.3f"
                       " | a thread's register %.2f ms, unregister %.2f, wait %.2f (means a pass)\n",
                       mib, threads, chunk_mib, reg[2] * 1e3, bytes / reg[2] / 1e9, copy[2] * 1e3, bytes / copy[2] / 1e9,
                       copy[2] / reg[2], ph.reg / 5 / threads * 1e3, ph.unreg / 5 / threads * 1e3, ph.wait / 5 / threads * 1e3);
                fflush(stdout);
            }
        }
    }
}
