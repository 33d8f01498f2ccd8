/* faults.c: the failure-injection hook of faults.h and its counters. */
#include "faults.h"

#include <stdatomic.h>

cured_live_counts cured_live;

static _Atomic int64_t calls;    /* counted since the last arm */
static _Atomic int64_t armed_at; /* the call that fails; 0: none */
static _Atomic int fired;
static _Atomic int armed_error = cudaSuccess;

int cured_fault_next(void) {
    const int64_t k = atomic_fetch_add(&calls, 1) + 1;
    if (k != atomic_load(&armed_at)) return 0;
    atomic_store(&armed_at, 0);
    atomic_store(&fired, 1);
    return 1;
}

cudaError_t cured_fault_error(void) { return (cudaError_t)atomic_load(&armed_error); }

cudaError_t cured_fault_counted(cudaError_t err, _Atomic int64_t *counter, int delta) {
    if (err == cudaSuccess) atomic_fetch_add(counter, delta);
    return err;
}

void cured_fault_arm(int64_t k, cudaError_t error) {
    atomic_store(&armed_at, 0);
    atomic_store(&calls, 0);
    atomic_store(&fired, 0);
    atomic_store(&armed_error, (int)error);
    atomic_store(&armed_at, k > 0 ? k : 0);
}

void cured_fault_state(int64_t *calls_made, int *has_fired) {
    *calls_made = atomic_load(&calls);
    *has_fired = atomic_load(&fired);
}
