// launch.cuh: a kernel launch at the least host cost, for the launches that a call at small lengths
// waits on (V9's and V10's kernels, the floor's).
//
// The runtime's <<<>>> finds the kernel's function anew at each launch. The driver's cuLaunchKernel,
// given the kernel's handle (cudaGetKernel, looked up once a kernel; a CUkernel is launched in
// whichever context is current), took 0.3 us less host time a launch on an H100
// (scripts/probes/call_floor.cu, 2026-11-23). A whole cured.sum of a CuPy array at 2^10 and 2^16
// took 0.25 to 0.40 us less so on an H100 and 0.0 to 0.13 on an H200, 1 to 3% (the same process,
// in turns: scripts/probes/call_breakdown.py, 2026-11-23 13:22 and 13:15 UTC; issue 12). The
// driver's function comes from the runtime (cudaGetDriverEntryPointByVersion), so nothing links
// libcuda and `import cured` still needs no driver. Where either cannot be had, or the driver
// refuses the launch (a thread with no context current yet: the runtime's launch makes one
// current), the runtime launches instead and reports its own error; a refused launch queues nothing.
// A cluster of blocks (V10's few tiles) goes through cuLaunchKernelEx, the runtime's
// cudaLaunchKernelEx its fallback.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <tuple>
#include <utility>

#include "../cured.h"

namespace cured {

// A driver entry point, from the driver the runtime loaded; null where it cannot be had. A failed
// query's error is cleared, so that no later launch check reports it.
inline void *driver_entry(const char *name) {
    void *function = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion(name, &function, 12000, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
        (void)cudaGetLastError();
        return nullptr;
    }
    return function;
}

using driver_launch_fn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, CUstream, void **, void **);
using driver_launch_ex_fn = CUresult (*)(const CUlaunchConfig *, CUfunction, void **, void **);

// cuLaunchKernel and cuLaunchKernelEx (for clusters), looked up once each.
inline driver_launch_fn driver_launch() {
    static const auto launch = reinterpret_cast<driver_launch_fn>(driver_entry("cuLaunchKernel"));
    return launch;
}
inline driver_launch_ex_fn driver_launch_ex() {
    static const auto launch = reinterpret_cast<driver_launch_ex_fn>(driver_entry("cuLaunchKernelEx"));
    return launch;
}

// Kernel's handle for the driver, looked up once; null where the runtime has none.
template <auto Kernel> CUfunction kernel_handle() {
    static const CUfunction handle = [] {
        cudaKernel_t kernel = nullptr;
        if (cudaGetKernel(&kernel, reinterpret_cast<const void *>(Kernel)) != cudaSuccess) {
            (void)cudaGetLastError();
            return CUfunction(nullptr);
        }
        return reinterpret_cast<CUfunction>(kernel);
    }();
    return handle;
}

// The runtime's launch configuration of a grid of `blocks` blocks as one cluster (sm_90 up: blocks
// on one GPC that read each other's shared memory), whose dimension it writes into *cluster (which
// the configuration points to).
inline cudaLaunchConfig_t one_cluster(int blocks, int threads, size_t dynamic_bytes, cudaStream_t stream,
                                      cudaLaunchAttribute *cluster) {
    *cluster = {};
    cluster->id = cudaLaunchAttributeClusterDimension;
    cluster->val.clusterDim.x = unsigned(blocks);
    cluster->val.clusterDim.y = cluster->val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(unsigned(blocks));
    config.blockDim = dim3(unsigned(threads));
    config.dynamicSmemBytes = dynamic_bytes;
    config.stream = stream;
    config.attrs = cluster;
    config.numAttrs = 1;
    return config;
}

// The launch through the driver, as one cluster of the grid's blocks where cluster is set;
// CUDA_ERROR_NOT_FOUND where the driver's function cannot be had.
inline CUresult launch_by_driver(CUfunction handle, dim3 grid, dim3 block, size_t shared, cudaStream_t stream,
                                 bool cluster, void **params) {
    if (!cluster) {
        const driver_launch_fn launch = driver_launch();
        return launch == nullptr ? CUDA_ERROR_NOT_FOUND
                                 : launch(handle, grid.x, grid.y, grid.z, block.x, block.y, block.z, unsigned(shared),
                                          reinterpret_cast<CUstream>(stream), params, nullptr);
    }
    const driver_launch_ex_fn launch = driver_launch_ex();
    if (launch == nullptr) return CUDA_ERROR_NOT_FOUND;
    CUlaunchAttribute dimension = {};
    dimension.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    dimension.value.clusterDim.x = grid.x;
    dimension.value.clusterDim.y = grid.y;
    dimension.value.clusterDim.z = grid.z;
    CUlaunchConfig config = {};
    config.gridDimX = grid.x, config.gridDimY = grid.y, config.gridDimZ = grid.z;
    config.blockDimX = block.x, config.blockDimY = block.y, config.blockDimZ = block.z;
    config.sharedMemBytes = unsigned(shared);
    config.hStream = reinterpret_cast<CUstream>(stream);
    config.attrs = &dimension;
    config.numAttrs = 1;
    return launch(&config, handle, params, nullptr);
}

template <class... Params, class... Args>
cudaError_t launch_through(CUfunction handle, void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared,
                           cudaStream_t stream, bool cluster, Args... args) {
    if (handle != nullptr && cured_test_driver_launch()) {
        std::tuple<Params...> values(args...);  // each argument as the kernel's parameter type
        CUresult launched = CUDA_ERROR_UNKNOWN;
        std::apply(
            [&](Params &...value) {
                void *pointers[] = {static_cast<void *>(&value)...};
                launched = launch_by_driver(handle, grid, block, shared, stream, cluster, pointers);
            },
            values);
        if (launched == CUDA_SUCCESS) {
            cured_count_driver_launch();
            return cudaSuccess;
        }
    }
    if (cluster) {
        cudaLaunchAttribute dimension;
        const cudaLaunchConfig_t config = one_cluster(int(grid.x), int(block.x), shared, stream, &dimension);
        const cudaError_t err = cudaLaunchKernelEx(&config, kernel, args...);
        return err != cudaSuccess ? err : cudaGetLastError();
    }
    kernel<<<grid, block, shared, stream>>>(args...);
    return cudaGetLastError();
}

// Kernel<<<grid, block, shared, stream>>>(args...), through the driver where it can be; returns the
// launch's error.
template <auto Kernel, class... Args>
cudaError_t launch(dim3 grid, dim3 block, size_t shared, cudaStream_t stream, Args... args) {
    return launch_through(kernel_handle<Kernel>(), Kernel, grid, block, shared, stream, false, args...);
}

// Kernel's grid of `blocks` blocks of `threads` as one cluster (sm_90 up), through the driver's
// cuLaunchKernelEx where it can be; returns the launch's error.
template <auto Kernel, class... Args>
cudaError_t launch_cluster(int blocks, int threads, size_t shared, cudaStream_t stream, Args... args) {
    return launch_through(kernel_handle<Kernel>(), Kernel, dim3(unsigned(blocks)), dim3(unsigned(threads)), shared,
                          stream, true, args...);
}

}  // namespace cured
