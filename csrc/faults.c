/* faults.c: the failure-injection hooks of faults.h and their counters. */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#include "faults.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

cured_live_counts cured_live;

/* One hook: the calls counted since it was last armed, the one that fails (0: none), whether every
 * call from that one on fails too, whether it came. */
typedef struct {
    _Atomic int64_t calls, armed_at;
    _Atomic int every, fired;
} fault_hook;

static fault_hook cuda_hook, host_hook;
static _Atomic int armed_error = cudaSuccess;

static int hook_next(fault_hook *hook) {
    const int64_t k = atomic_fetch_add(&hook->calls, 1) + 1, at = atomic_load(&hook->armed_at);
    const int every = atomic_load(&hook->every);
    if (at == 0 || (every ? k < at : k != at)) return 0;
    if (!every) atomic_store(&hook->armed_at, 0);
    atomic_store(&hook->fired, 1);
    return 1;
}

static void hook_arm(fault_hook *hook, int64_t k, int every) {
    atomic_store(&hook->armed_at, 0);
    atomic_store(&hook->calls, 0);
    atomic_store(&hook->fired, 0);
    atomic_store(&hook->every, every != 0);
    atomic_store(&hook->armed_at, k > 0 ? k : 0);
}

int cured_fault_next(void) { return hook_next(&cuda_hook); }

cudaError_t cured_fault_error(void) { return (cudaError_t)atomic_load(&armed_error); }

cudaError_t cured_fault_counted(cudaError_t err, _Atomic int64_t *counter, int delta) {
    if (err == cudaSuccess) atomic_fetch_add(counter, delta);
    return err;
}

void cured_fault_arm(int64_t k, cudaError_t error, int every) {
    atomic_store(&armed_error, (int)error);
    hook_arm(&cuda_hook, k, every);
}

void cured_fault_state(int64_t *calls_made, int *has_fired) {
    *calls_made = atomic_load(&cuda_hook.calls);
    *has_fired = atomic_load(&cuda_hook.fired);
}

void *cured_host_malloc(size_t bytes) { return hook_next(&host_hook) ? NULL : malloc(bytes); }

void *cured_host_calloc(size_t count, size_t size) { return hook_next(&host_hook) ? NULL : calloc(count, size); }

int cured_host_memalign(void **memory, size_t alignment, size_t bytes) {
    return hook_next(&host_hook) ? ENOMEM : posix_memalign(memory, alignment, bytes);
}

void cured_host_fault_arm(int64_t k) { hook_arm(&host_hook, k, 0); }

void cured_host_fault_state(int64_t *calls_made, int *has_fired) {
    *calls_made = atomic_load(&host_hook.calls);
    *has_fired = atomic_load(&host_hook.fired);
}
