// Probe: what it costs to let the copy engine read pageable host memory where it lies (issue 12's
// host path, docs/host_path.md): cudaHostRegister of 4 MiB to 1 GiB of malloc'd, touched memory, the
// copy to the device from it, cudaHostUnregister, and beside them the copy from pinned memory and
// from the same pageable memory unregistered. Wall time, three rounds a size; it prints.
// Build and run: nvcc -O2 -arch=sm_90 -o host_register scripts/probes/host_register.cu && ./host_register
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%d %s\n", __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)
static double now() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
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
}
