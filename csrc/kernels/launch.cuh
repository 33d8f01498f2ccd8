// launch.cuh: a kernel launch at the least host cost, for the launches that a call at small lengths
// waits on (V9's kernels, the floor's).
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
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <tuple>
#include <utility>

#include "../cured.h"

namespace cured {

using driver_launch_fn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, CUstream, void **, void **);

// cuLaunchKernel from the driver the runtime loaded; null where it cannot be had. A failed query's
// error is cleared, so that no later launch check reports it.
inline driver_launch_fn driver_launch() {
    static const driver_launch_fn launch = [] {
        void *function = nullptr;
        cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
        if (cudaGetDriverEntryPointByVersion("cuLaunchKernel", &function, 12000, cudaEnableDefault, &found) !=
                cudaSuccess ||
            found != cudaDriverEntryPointSuccess) {
            (void)cudaGetLastError();
            return driver_launch_fn(nullptr);
        }
        return reinterpret_cast<driver_launch_fn>(function);
    }();
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

template <class... Params, class... Args>
cudaError_t launch_through(CUfunction handle, void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared,
                           cudaStream_t stream, Args... args) {
    const driver_launch_fn driver = driver_launch();
    if (driver != nullptr && handle != nullptr && cured_test_driver_launch()) {
        std::tuple<Params...> values(args...);  // each argument as the kernel's parameter type
        CUresult launched = CUDA_ERROR_UNKNOWN;
        std::apply(
            [&](Params &...value) {
                void *pointers[] = {static_cast<void *>(&value)...};
                launched = driver(handle, grid.x, grid.y, grid.z, block.x, block.y, block.z, unsigned(shared),
                                  reinterpret_cast<CUstream>(stream), pointers, nullptr);
            },
            values);
        if (launched == CUDA_SUCCESS) {
            cured_count_driver_launch();
            return cudaSuccess;
        }
    }
    kernel<<<grid, block, shared, stream>>>(args...);
    return cudaGetLastError();
}

// Kernel<<<grid, block, shared, stream>>>(args...), through the driver where it can be; returns the
// launch's error.
template <auto Kernel, class... Args>
cudaError_t launch(dim3 grid, dim3 block, size_t shared, cudaStream_t stream, Args... args) {
    return launch_through(kernel_handle<Kernel>(), Kernel, grid, block, shared, stream, args...);
}

}  // namespace cured
