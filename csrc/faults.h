/* faults.h: failure injection for tests, as SQLite tests its allocator. The host code's CUDA runtime
 * calls that acquire something or do work, and its kernel launches, go through cured_fault_next():
 * a test arms it (cured_fault_arm) to make the k-th such call from then on return an error of its
 * choosing instead of running, once, and then checks that the call that met it raised the right
 * exception, leaked nothing and left the next call correct. Calls that release (cudaFree*,
 * cudaStreamDestroy, cudaEventDestroy) always run: a release that failed could only leak. The
 * wrappers also count what is alive: streams, events, pinned host allocations and device allocations
 * outside the stream-ordered pool (whose bytes in use cured._cured.memory_in_use reports).
 *
 * Included by the host-side C files after every header that declares a function named below (it
 * redefines those names as macros); never by CUDA sources. */
#ifndef CURED_FAULTS_H
#define CURED_FAULTS_H

#include <stddef.h>
#include <stdint.h>

#include "cured.h"

/* Nonzero when this call is the armed one: it must not run and returns cured_fault_error(). Counts
 * the call either way. */
int cured_fault_next(void);
cudaError_t cured_fault_error(void);

/* Adds `delta` to *counter when `err` is cudaSuccess; returns err. */
cudaError_t cured_fault_counted(cudaError_t err, _Atomic int64_t *counter, int delta);

typedef struct {
    _Atomic int64_t streams, events, pinned, device; /* alive now */
} cured_live_counts;
extern cured_live_counts cured_live;

/* Arms the k-th call from now (k >= 1) to fail with `error`, and with `every` each call after it as
 * well, until the next arming (a GPU that stops answering); k = 0 disarms. Either way the count of
 * calls restarts from 0. */
void cured_fault_arm(int64_t k, cudaError_t error, int every);

/* Calls counted since the last cured_fault_arm, and whether the armed one came. */
void cured_fault_state(int64_t *calls, int *fired);

/* Host memory that the C code takes for itself (the CPU sums' partials, range buffers and steps'
 * intermediate sums, a call slot, the benchmark's events) comes through these, malloc's, calloc's
 * and posix_memalign's stand-ins: a second hook fails them as the first fails CUDA calls, counted
 * apart (cured_host_fault_arm: the k-th allocation from then on finds no memory, once), so that
 * every MemoryError path of the CPU sums runs in the tests, with no GPU. */
void *cured_host_malloc(size_t bytes);
void *cured_host_calloc(size_t count, size_t size);
int cured_host_memalign(void **memory, size_t alignment, size_t bytes);
void cured_host_fault_arm(int64_t k);
void cured_host_fault_state(int64_t *calls, int *fired);

#define CURED_FAULTY(call, ...) (cured_fault_next() ? cured_fault_error() : call(__VA_ARGS__))
/* A launch through one of the kernels' tables (a function pointer), as one call. */
#define CURED_LAUNCHED(expr) (cured_fault_next() ? cured_fault_error() : (expr))

#ifndef __CUDACC__
/* Acquire or do work: may be failed. */
#define cudaDeviceGetAttribute(...) CURED_FAULTY(cudaDeviceGetAttribute, __VA_ARGS__)
#define cudaDeviceGetDefaultMemPool(...) CURED_FAULTY(cudaDeviceGetDefaultMemPool, __VA_ARGS__)
#define cudaEventElapsedTime(...) CURED_FAULTY(cudaEventElapsedTime, __VA_ARGS__)
#define cudaEventRecord(...) CURED_FAULTY(cudaEventRecord, __VA_ARGS__)
#define cudaEventSynchronize(...) CURED_FAULTY(cudaEventSynchronize, __VA_ARGS__)
#define cudaGetDevice(...) CURED_FAULTY(cudaGetDevice, __VA_ARGS__)
#define cudaGetDeviceCount(...) CURED_FAULTY(cudaGetDeviceCount, __VA_ARGS__)
#define cudaGetDeviceProperties(...) CURED_FAULTY(cudaGetDeviceProperties, __VA_ARGS__)
#define cudaHostGetDevicePointer(...) CURED_FAULTY(cudaHostGetDevicePointer, __VA_ARGS__)
#define cudaMallocAsync(...) CURED_FAULTY(cudaMallocAsync, __VA_ARGS__)
#define cudaMemcpyAsync(...) CURED_FAULTY(cudaMemcpyAsync, __VA_ARGS__)
#define cudaMemPoolGetAttribute(...) CURED_FAULTY(cudaMemPoolGetAttribute, __VA_ARGS__)
#define cudaMemPoolSetAttribute(...) CURED_FAULTY(cudaMemPoolSetAttribute, __VA_ARGS__)
#define cudaMemset(...) CURED_FAULTY(cudaMemset, __VA_ARGS__)
#define cudaMemsetAsync(...) CURED_FAULTY(cudaMemsetAsync, __VA_ARGS__)
#define cudaPointerGetAttributes(...) CURED_FAULTY(cudaPointerGetAttributes, __VA_ARGS__)
#define cudaSetDevice(...) CURED_FAULTY(cudaSetDevice, __VA_ARGS__)
#define cudaStreamSynchronize(...) CURED_FAULTY(cudaStreamSynchronize, __VA_ARGS__)
#define cudaStreamWaitEvent(...) CURED_FAULTY(cudaStreamWaitEvent, __VA_ARGS__)
/* Create: may be failed, and counted alive. */
#define cudaEventCreate(event) cured_fault_counted(CURED_FAULTY(cudaEventCreate, event), &cured_live.events, 1)
#define cudaEventCreateWithFlags(...) \
    cured_fault_counted(CURED_FAULTY(cudaEventCreateWithFlags, __VA_ARGS__), &cured_live.events, 1)
#define cudaStreamCreateWithFlags(...) \
    cured_fault_counted(CURED_FAULTY(cudaStreamCreateWithFlags, __VA_ARGS__), &cured_live.streams, 1)
#define cudaHostAlloc(...) cured_fault_counted(CURED_FAULTY(cudaHostAlloc, __VA_ARGS__), &cured_live.pinned, 1)
#define cudaMalloc(...) cured_fault_counted(CURED_FAULTY(cudaMalloc, __VA_ARGS__), &cured_live.device, 1)
/* Release: always run, counted. */
#define cudaEventDestroy(event) cured_fault_counted(cudaEventDestroy(event), &cured_live.events, -1)
#define cudaStreamDestroy(stream) cured_fault_counted(cudaStreamDestroy(stream), &cured_live.streams, -1)
#define cudaFreeHost(pointer) cured_fault_counted(cudaFreeHost(pointer), &cured_live.pinned, -1)
/* cudaFree(0) starts the runtime's context (cured_device_ready): nothing to count. */
#define cudaFree(pointer) cured_fault_counted(cudaFree(pointer), &cured_live.device, (pointer) != NULL ? -1 : 0)
/* cured's own launchers (the kernels' .cu files): a launch is a call. */
#define cured_axis_launch(...) CURED_FAULTY(cured_axis_launch, __VA_ARGS__)
#define cured_exact_rows(...) CURED_FAULTY(cured_exact_rows, __VA_ARGS__)
#define cured_gather(...) CURED_FAULTY(cured_gather, __VA_ARGS__)
#define cured_store_results(...) CURED_FAULTY(cured_store_results, __VA_ARGS__)
#define cured_launch_floor(...) CURED_FAULTY(cured_launch_floor, __VA_ARGS__)
#endif

#endif
