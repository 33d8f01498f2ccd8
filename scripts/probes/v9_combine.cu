// Probe: what one launch costs at small lengths, and what each way of combining the tiles' partials
// across blocks adds (docs/v9.md, "Missed: 5 us"). Tiles as in V9 (256 threads x 8 x 16 bytes,
// float32), k = 1 to 16 tiles, timed like cured.bench: events around each launch, inputs rotated
// past the L2, medians of 200. "queued" puts a blocking kernel in front of each batch so that the
// launches queue up (nvbench's method), "plain" does not.
// Build and run: nvcc -O3 -arch=sm_90 -std=c++17 -o v9_combine scripts/probes/v9_combine.cu && ./v9_combine
#include <cuda/atomic>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cub/device/device_reduce.cuh>

#include "v9_tile.cuh"

__device__ __forceinline__ A tile_sum(const A *in, long tile, int t) {
    A v[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const uint4 raw = *reinterpret_cast<const uint4 *>(in + tile * TILE + (long(u) * T + t) * V);
        memcpy(v[u], &raw, 16);
    }
    return thread_add(v);
}

__global__ void k_empty(const A *, A *, int, void *) {}

__global__ void __launch_bounds__(T) k_nocombine(const A *in, A *out, int k, void *) {
    __shared__ A ws[W];
    A s = group_sum(tile_sum(in, blockIdx.x, threadIdx.x), ws, 0);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}

__global__ void __launch_bounds__(T) k_ticket(const A *in, A *out, int k, void *wsp) {
    __shared__ A ws[W];
    __shared__ bool last;
    unsigned *ticket = (unsigned *)wsp;
    A *partials = (A *)((char *)wsp + 256);
    A s = group_sum(tile_sum(in, blockIdx.x, threadIdx.x), ws, 0);
    if (k == 1) {
        if (threadIdx.x == 0) out[0] = s;
        return;
    }
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = s;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*ticket);
        last = c.fetch_add(1, cuda::memory_order_acq_rel) + 1 == unsigned(k);
        if (last) c.store(0, cuda::memory_order_relaxed);
    }
    __syncthreads();
    if (!last) return;
    A v = threadIdx.x < k ? __ldcg(partials + threadIdx.x) : A(0);
    v = group_sum(v, ws, 0);
    if (threadIdx.x == 0) out[0] = v;
}

// Block 0 combines: the other blocks publish their partial with the sum's epoch (workspace word 0),
// block 0's thread t waits until partial t carries it. The channel says how a partial travels.
template <class Channel>
__global__ void __launch_bounds__(T) k_poll(const A *in, A *out, int k, void *wsp) {
    __shared__ A ws[W];
    __shared__ A first;
    unsigned *epoch_p = (unsigned *)wsp;
    char *slots = (char *)wsp + 256;
    const unsigned epoch = *(volatile unsigned *)epoch_p;
    A s = group_sum(tile_sum(in, blockIdx.x, threadIdx.x), ws, 0);
    if (blockIdx.x != 0) {
        if (threadIdx.x == 0) Channel::publish(slots, blockIdx.x, epoch, s);
        return;
    }
    if (threadIdx.x == 0) first = s;
    __syncthreads();
    A v = 0;
    if (threadIdx.x == 0) v = first;
    else if (threadIdx.x < k) v = Channel::wait(slots, threadIdx.x, epoch);
    v = group_sum(v, ws, 0);
    if (threadIdx.x == 0) {
        out[0] = v;
        *epoch_p = epoch + 1;
    }
}

// Slots of 64 bits: epoch (32) | value bits (32), stored and polled relaxed.
struct Packed64 {
    static __device__ void publish(char *slots, unsigned i, unsigned epoch, A value) {
        unsigned bits;
        memcpy(&bits, &value, 4);
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> r(((unsigned long long *)slots)[i]);
        r.store((unsigned long long)epoch << 32 | bits, cuda::memory_order_relaxed);
    }
    static __device__ A wait(char *slots, unsigned i, unsigned epoch) {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> r(((unsigned long long *)slots)[i]);
        unsigned long long x;
        while (((x = r.load(cuda::memory_order_relaxed)) >> 32) != epoch) {
        }
        const unsigned bits = unsigned(x);
        A v;
        memcpy(&v, &bits, 4);
        return v;
    }
};

// Value stored plainly, then a flag with st.release; block 0 reads the flag with acquire.
struct ReleaseFlag {
    static __device__ A *values(char *slots) { return (A *)(slots + 64 * 4); }
    static __device__ void publish(char *slots, unsigned i, unsigned epoch, A value) {
        values(slots)[i] = value;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> r(((unsigned *)slots)[i]);
        r.store(epoch, cuda::memory_order_release);
    }
    static __device__ A wait(char *slots, unsigned i, unsigned epoch) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> r(((unsigned *)slots)[i]);
        while (r.load(cuda::memory_order_acquire) != epoch) {
        }
        return __ldcg(values(slots) + i);
    }
};

// Exchange tree: level o = k/2..1, node j = p % o; the second to arrive combines (left + right).
__global__ void __launch_bounds__(T) k_exch(const A *in, A *out, int k, void *wsp) {
    __shared__ A ws[W];
    unsigned long long *slots = (unsigned long long *)((char *)wsp + 256);
    A s = group_sum(tile_sum(in, blockIdx.x, threadIdx.x), ws, 0);
    if (threadIdx.x != 0) return;
    unsigned p = blockIdx.x, base = 0;
    for (unsigned o = k / 2; o >= 1; base += o, o /= 2) {
        const unsigned j = p % o;
        unsigned bits;
        memcpy(&bits, &s, 4);
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> r(slots[base + j]);
        const unsigned long long old = r.exchange(1ull << 32 | bits, cuda::memory_order_relaxed);
        if ((old >> 32) == 0) return;  // first: the other one goes on
        A other;
        unsigned ob = unsigned(old);
        memcpy(&other, &ob, 4);
        s = p >= o ? other + s : s + other;
        r.store(0, cuda::memory_order_relaxed);
        p = j;
    }
    out[0] = s;
}

// One block of k x 256 threads: group g sums tile g; group 0 combines from shared memory.
__global__ void __launch_bounds__(1024) k_big(const A *in, A *out, int k, void *) {
    __shared__ A ws[4 * W];
    __shared__ A sums[4];
    const int g = threadIdx.x / T;
    A s = group_sum(tile_sum(in, g, threadIdx.x % T), ws, g);
    if (threadIdx.x % T == 0) sums[g] = s;
    __syncthreads();
    if (g != 0) return;
    A v = threadIdx.x < k ? sums[threadIdx.x] : A(0);
    v = group_sum(v, ws, 0);
    if (threadIdx.x == 0) out[0] = v;
}

typedef void (*kern)(const A *, A *, int, void *);

// Holds the stream until the host sets *flag (or 100 ms pass), so that the launches queued behind
// it run back to back at the GPU's pace (nvbench's blocking kernel).
__global__ void k_block(volatile int *flag) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (*flag == 0 && now - start < 100000000ull);
    if (*flag == 0) printf("blocker timed out\n");
}
void *cub_temp;
size_t cub_bytes;
__global__ void k_cubdummy(const A *, A *, int, void *) {}

int main() {
    int dev = 0;
    CK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    printf("%s, %d SMs, L2 %d MiB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
    const int KMAX = 16;
    const size_t stride = size_t(KMAX) * TILE * sizeof(A);
    const size_t region = size_t(4) * prop.l2CacheSize;
    const int copies = int((region + stride - 1) / stride);
    A *inputs, *out;
    void *ws;
    CK(cudaMalloc(&inputs, stride * copies));
    CK(cudaMalloc(&out, 4096));
    CK(cudaMalloc(&ws, 1 << 20));
    CK(cudaMemset(ws, 0, 1 << 20));
    CK(cub::DeviceReduce::Sum(nullptr, cub_bytes, (const A *)nullptr, out, KMAX * TILE));
    CK(cudaMalloc(&cub_temp, cub_bytes));
    int *flag;
    CK(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped));
    std::vector<A> h(size_t(KMAX) * TILE);
    srand(1);
    for (auto &x : h) x = float(rand() % 2001 - 1000) / 256.f;  // exact sums
    for (int c = 0; c < copies; ++c) CK(cudaMemcpy((char *)inputs + c * stride, h.data(), stride, cudaMemcpyHostToDevice));
    struct Var {
        const char *name;
        kern f;
        int kmax;
        bool big;
    } vars[] = {{"empty", k_empty, 16, false},     {"nocombine", k_nocombine, 16, false}, {"ticket", k_ticket, 16, false},
                {"spin64", k_poll<Packed64>, 16, false},   {"spinrel", k_poll<ReleaseFlag>, 16, false},     {"exch", k_exch, 16, false},
                {"big", k_big, 4, true}, {"cub", k_cubdummy, 16, false}};
    const int reps = 200, warm = 20;
    std::vector<cudaEvent_t> ev(2 * reps);
    for (size_t i = 0; i < ev.size(); ++i) CK(cudaEventCreate(&ev[i]));
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    for (int mode = 0; mode < 2; ++mode)
    for (int round = 0; round < 2; ++round)
        for (int k : {1, 2, 4, 8, 16}) {
            double ref = 0;
            for (int i = 0; i < k * TILE; ++i) ref += h[i];
            int vi = 0;
            for (auto &v : vars) {
                void *myws = (char *)ws + 65536 * vi++;
                if (k > v.kmax) continue;
                if (k == 1 && v.f != k_empty && v.f != k_ticket && v.f != k_big && v.f != k_cubdummy) continue;
                const int batch = mode ? 50 : reps;
                std::vector<float> t;
                for (int b0 = 0; b0 < warm + reps; b0 += batch) {
                    if (mode) { *(volatile int *)flag = 0; k_block<<<1, 1, 0, st>>>(flag); CK(cudaGetLastError()); }
                    for (int r = b0; r < std::min(b0 + batch, warm + reps); ++r) {
                        const A *in = (const A *)((char *)inputs + (r % copies) * stride);
                        if (r >= warm) CK(cudaEventRecord(ev[2 * (r - warm)], st));
                        if (v.f == k_cubdummy) CK(cub::DeviceReduce::Sum(cub_temp, cub_bytes, in, out, k * TILE, st));
                        else if (v.big) v.f<<<1, k * T, 0, st>>>(in, out, k, myws);
                        else v.f<<<k, T, 0, st>>>(in, out, k, myws);
                        CK(cudaGetLastError());
                        if (r >= warm) CK(cudaEventRecord(ev[2 * (r - warm) + 1], st));
                    }
                    if (mode) *(volatile int *)flag = 1;
                    CK(cudaStreamSynchronize(st));
                }
                for (int r = 0; r < reps; ++r) { float ms; CK(cudaEventElapsedTime(&ms, ev[2 * r], ev[2 * r + 1])); t.push_back(ms); }
                std::sort(t.begin(), t.end());
                A got;
                CK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
                const bool ok = v.f == k_empty || v.f == k_nocombine || got == A(ref);
                if (round == 1)
                    printf("%s k=%2d %-10s median %.2f us  p10 %.2f p90 %.2f  %s\n", mode ? "queued" : "plain ", k, v.name,
                           t[reps / 2] * 1e3, t[reps / 10] * 1e3, t[reps * 9 / 10] * 1e3, ok ? "ok" : "WRONG");
            }
        }
    return 0;
}
