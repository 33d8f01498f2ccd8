/* device_sum.c: the sum of memory already on the GPU, at the cost of one launch and one wait.
 *
 * Users time the call, not the kernel. Beyond the kernel, a call pays for host work (arguments,
 * the protocol), the launch, and the wait for the result; this file keeps everything else out:
 *  - The result: the reduction's last kernel writes it straight into pinned host memory that is
 *    mapped into the device's address space, so no copy is queued after it. (Issue 12 measured a
 *    minimal kernel and the wait at 10.5 us through CuPy, 17.2 us with a 4-byte copy instead.)
 *  - The wait: the host spins on that mapped result until it is no longer the sentinel it wrote
 *    there before the launch, instead of cudaStreamSynchronize, which learns of the kernel's end
 *    later: a minimal kernel and its wait took 6.8 us this way against 9.0 us synchronized, and a
 *    synchronize with nothing left to wait for costs 1.5 us on its own (H100, 2026-11-23,
 *    scripts/probes/call_floor.cu). A result of one store (an accumulator of 4 or 8 bytes; the GPU
 *    writes 8 aligned bytes at once, as NCCL's LL protocol relies on) arrives whole. What the poll
 *    cannot see falls back to the synchronize: a sum still running after SPIN_NS, a failed
 *    kernel, a result whose bits equal the sentinel (a signalling NaN, which no addition returns),
 *    a result of more than 8 bytes (V10's state), timing=True, and a process that asked CUDA not
 *    to spin (cudaDeviceScheduleBlockingSync or Yield). The floor (_cured.floor) waits the same way.
 *  - Memory: a call takes a "slot", kept between calls in a free list per device: the mapped
 *    result and a small device workspace, allocated once. The TILES header (V9's ticket, V10's
 *    state) sits at the start of the workspace; it is zeroed when the slot is made and every run
 *    leaves it zero again, so no memset is queued. Other versions and CUB use the workspace past
 *    it. Larger workspaces (passes at large lengths, CUB's) and the C-order copy of a strided
 *    array come from the stream-ordered pool, as before.
 *  - The stream: the caller's (module_sum.c passes the producer's stream, or the legacy default stream
 *    that DLPack producers were asked to order their work before), so no event is recorded or
 *    waited on for the input.
 * A slot whose call failed is destroyed, never reused: a failed V9 run may leave its ticket set.
 *
 * A slot given back once its result arrived may still have work in flight (the kernel's last
 * instructions after the result's store; V9's ticket reset, made before it, may not be visible to
 * another stream yet), and so may a slot of a sum into a device array (out=), which does not wait
 * at all. Each slot has an event recorded after its call's work, queued while the GPU runs. A
 * waited call takes an idle slot last used on its own stream, or one whose work is known to have
 * completed; else it orders its work after the slot's event (cudaStreamWaitEvent).
 * Queued slots have a free list of their own (they have no mapped result): a call on the stream
 * that used one last takes it back (stream order puts its work after the slot's), a call on
 * another stream takes a slot whose event has completed, or a new one (past QUEUED_SLOTS_SHARED
 * idle slots, the oldest, waited on). So a
 * queued call allocates and clears nothing either; its host time was 1.02 to 1.93 times an
 * asynchronous torch.sum's when it took pool memory and a memset each call (2026-11-22), 0.94 to
 * 1.35 at 2^10 to 2^16 since. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exact.h"
#include "gpu_internal.h"
#include "pool.h" /* cured_now_ns */

/* The device memory of a slot: the TILES header and up to CURED_MAX_TILES partials of 8 bytes fit
 * in its workspace; a queued call's accumulator follows it. The result: an accumulator or V10's state. */
#define SLOT_WORKSPACE_BYTES ((size_t)64 << 10)
#define SLOT_DEVICE_BYTES (SLOT_WORKSPACE_BYTES + CURED_ALIGN)
#define SLOT_RESULT_BYTES ((size_t)1024)
_Static_assert(sizeof(cured_exact_state) <= SLOT_RESULT_BYTES, "a slot's result holds V10's state");
#define SLOT_DEVICES 64

/* The two kinds of slot: a waited-for call's (with the mapped result) and a queued call's (with an event). */
enum { WAITED, QUEUED, SLOT_KINDS };

typedef struct slot {
    struct slot *next;
    void *result;        /* WAITED: pinned host memory, mapped: the last kernel writes the sum here */
    void *result_dev;    /* its address on the device */
    char *workspace;     /* device memory, SLOT_DEVICE_BYTES; its TILES header is zero in stream order */
    cudaEvent_t done;    /* recorded after the work of the call that used it last */
    int in_flight;       /* WAITED: that work may not have completed (`done` must order the next) */
    int may_spin;        /* WAITED: the device lets the host spin (may_spin(), when the slot was made) */
    cudaStream_t stream; /* that call's stream (a QUEUED slot is idle only once `done` was recorded) */
} slot;

static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static slot *idle_slots[SLOT_KINDS][SLOT_DEVICES];

static void slot_destroy(slot *s) {
    if (s == NULL) return;
    /* Failures here leave nothing to undo; the call that destroys a slot reports its own error.
     * cudaFree waits for the device's work, a queued call's on this slot included. */
    if (s->workspace != NULL) (void)cudaFree(s->workspace);
    if (s->result != NULL) (void)cudaFreeHost(s->result);
    if (s->done != NULL) (void)cudaEventDestroy(s->done);
    free(s);
}

/* Idle QUEUED slots a device keeps before calls share them: beyond this many streams with sums in
 * flight at once, a call waits on another stream's last sum instead of making a slot. */
#define QUEUED_SLOTS_SHARED 16

/* Whether work queued on `stream` now runs after work queued on `last` before: the same handle
 * is the same stream while that work may run (a destroyed stream's resources are released only
 * once its work has completed), but not cudaStreamPerThread, one handle for a stream a thread. */
static int ordered_after(cudaStream_t stream, cudaStream_t last) { return stream == last && stream != cudaStreamPerThread; }

/* An idle QUEUED slot of the list at *link for work on `stream`, unlinked, or NULL: the one used
 * last on this stream handle, else one whose work is done, else, when the list holds
 * QUEUED_SLOTS_SHARED, the one given back longest ago. *wait says whether the call must order its
 * work after the slot's event (any slot but one of this stream or a done one). */
static slot *unlink_queued(slot **link, cudaStream_t stream, int *wait) {
    slot **found = NULL, **last = NULL;
    int idle = 0;
    *wait = 1;
    for (slot **p = link; *p != NULL; p = &(*p)->next, ++idle) {
        if (found == NULL && (*p)->stream == stream) {
            found = p;
            *wait = !ordered_after(stream, (*p)->stream);
        }
        last = p;
    }
    /* cudaEventQuery only asks; any answer but "done" (not ready, or an error that the call's own
     * CUDA calls will report) leaves the slot to another call. */
    for (slot **p = link; *p != NULL && found == NULL; p = &(*p)->next)
        if (cudaEventQuery((*p)->done) == cudaSuccess) {
            found = p;
            *wait = 0;
        }
    if (found == NULL && idle >= QUEUED_SLOTS_SHARED) found = last;
    if (found == NULL) return NULL;
    slot *s = *found;
    *found = s->next;
    return s;
}

/* An idle WAITED slot of the list at *link for work on `stream`, unlinked, or NULL: one whose last
 * work has completed or was queued on this stream (ordered_after), else the first, which *wait says
 * the call must order its work after. No event query: cudaEventQuery took 1.5 us of host time on
 * an H100, cudaStreamWaitEvent 0.4 (2026-11-23, scripts/probes/call_floor.cu). */
static slot *unlink_waited(slot **link, cudaStream_t stream, int *wait) {
    slot **found = NULL;
    for (slot **p = link; *p != NULL && found == NULL; p = &(*p)->next)
        if (!(*p)->in_flight || ordered_after(stream, (*p)->stream)) found = p;
    *wait = found == NULL && *link != NULL;
    if (found == NULL) found = link;
    slot *s = *found;
    if (s != NULL) *found = s->next;
    return s;
}

/* Whether the current device lets the host spin on it: not where this process asked CUDA to block
 * or yield instead (cudaSetDeviceFlags), which the poll then respects. */
static int may_spin(void) {
    unsigned flags;
    if (cudaGetDeviceFlags(&flags) != cudaSuccess) return 0;
    const unsigned schedule = flags & cudaDeviceScheduleMask;
    return schedule == cudaDeviceScheduleAuto || schedule == cudaDeviceScheduleSpin;
}

/* A slot of `kind` for `device`, the current device: an idle one, or a new one with its header
 * zeroed (a WAITED slot's synchronously, a QUEUED slot's on `stream`). An idle slot is ordered after
 * its last user's work on `stream` here, where that work may still run. The device comes from the
 * caller's plan: cudaGetDevice costs 0.07 to 0.1 us a call. */
static cudaError_t slot_take(int kind, int device, cudaStream_t stream, slot **taken) {
    int wait = 0;
    cudaError_t err = cudaSuccess;
    *taken = NULL;
    if (device >= 0 && device < SLOT_DEVICES) {
        pthread_mutex_lock(&slots_lock);
        slot **list = &idle_slots[kind][device];
        *taken = kind == QUEUED ? unlink_queued(list, stream, &wait) : unlink_waited(list, stream, &wait);
        pthread_mutex_unlock(&slots_lock);
    }
    if (*taken != NULL) {
        if (wait && (err = cudaStreamWaitEvent(stream, (*taken)->done, 0)) != cudaSuccess) {
            slot_destroy(*taken);
            *taken = NULL;
        }
        return err;
    }
    slot *s = (slot *)cured_host_calloc(1, sizeof *s);
    if (s == NULL) return cudaErrorMemoryAllocation;
    s->may_spin = kind == WAITED && may_spin();
    if ((kind == WAITED &&
         ((err = cudaHostAlloc(&s->result, SLOT_RESULT_BYTES, cudaHostAllocMapped | cudaHostAllocPortable)) != cudaSuccess ||
          (err = cudaHostGetDevicePointer(&s->result_dev, s->result, 0)) != cudaSuccess)) ||
        (err = cudaEventCreateWithFlags(&s->done, cudaEventDisableTiming)) != cudaSuccess ||
        (err = cudaMalloc((void **)&s->workspace, SLOT_DEVICE_BYTES)) != cudaSuccess ||
        (err = kind == WAITED ? cudaMemset(s->workspace, 0, CURED_TILES_HEADER_BYTES)
                              : cudaMemsetAsync(s->workspace, 0, CURED_TILES_HEADER_BYTES, stream)) != cudaSuccess) {
        slot_destroy(s);
        return err;
    }
    *taken = s;
    return cudaSuccess;
}

/* Back to the free list of `device`, the current device, after a call that succeeded; destroyed
 * after one that failed. */
static void slot_give(int kind, int device, slot *s, int healthy) {
    if (s == NULL) return;
    if (healthy && device >= 0 && device < SLOT_DEVICES) {
        pthread_mutex_lock(&slots_lock);
        s->next = idle_slots[kind][device];
        idle_slots[kind][device] = s;
        pthread_mutex_unlock(&slots_lock);
        return;
    }
    slot_destroy(s);
}

void cured_slots_lock(int lock) {
    if (lock) pthread_mutex_lock(&slots_lock);
    else pthread_mutex_unlock(&slots_lock);
}

void cured_slots_forget(void) {
    /* In a forked child: the parent's CUDA memory is not the child's to use or free. */
    memset(idle_slots, 0, sizeof idle_slots);
}

/* Where a plan's workspace goes in a slot: TILES from the start (the header), the others past the
 * header, which they must leave zero; NULL when the plan needs more than the slot has. */
static char *slot_workspace(const cured_plan *plan, const slot *s) {
    const int tiles = plan->version != NULL && plan->version->schedule == CURED_TILES;
    const size_t offset = tiles ? 0 : CURED_TILES_HEADER_BYTES;
    return plan->workspace_bytes <= SLOT_WORKSPACE_BYTES - offset ? s->workspace + offset : NULL;
}

/* The memory a call needs beyond its slot, from the stream-ordered pool: the plan's workspace where
 * the slot's is too small (set up for the plan), then room for the C-order copy of a strided input
 * (*copy). *mem is what the call gives back to the pool, NULL if it took nothing; the caller frees
 * it on failure too. */
static cured_cuda_status call_memory(const cured_plan *plan, const slot *s, int strided, cudaStream_t stream,
                                     char **workspace, char **copy, char **mem) {
    cured_cuda_status status = cured_ok;
    *copy = NULL;
    *workspace = slot_workspace(plan, s);
    const size_t pool_workspace = *workspace == NULL ? plan->workspace_bytes : 0;
    const size_t copy_bytes = strided ? cured_align_up((size_t)plan->n * (size_t)cured_dtype_size(plan->in_dtype)) : 0;
    if (pool_workspace + copy_bytes == 0) return status;
    CURED_TRY("cudaMallocAsync", cudaMallocAsync((void **)mem, pool_workspace + copy_bytes, stream));
    *copy = *mem + pool_workspace;
    if (*workspace == NULL) {
        *workspace = *mem;
        CURED_TRY_STEP(cured_plan_init_workspace(plan, *workspace, stream));
    }
done:
    return status;
}

/* ---- the wait -------------------------------------------------------------------------------- */

/* How long a waited call spins on its mapped result before it leaves the wait to
 * cudaStreamSynchronize: longer than any sum up to 2^24 elements takes on an H100 or H200, short
 * enough that a failed kernel (whose result never comes) is reported at once to a person. */
#define SPIN_NS 100000 /* 100 us */
/* Written into the mapped result before a launch: a signalling NaN as a double, and its 4 bytes
 * that a float result takes one as a float (on a little-endian host). No floating-point addition returns one; an integer sum
 * that equals it is waited for by the synchronize. */
#define RESULT_SENTINEL UINT64_C(0x7FF0DEAD7FA0DEAD)

/* Readies s->result for a result of `bytes`: the sentinel where the wait may poll for it. Returns
 * whether it may. */
static int arm_result(slot *s, size_t bytes) {
    if ((bytes != 4 && bytes != 8) || !s->may_spin) return 0;
    const uint64_t sentinel = RESULT_SENTINEL;
    memcpy(s->result, &sentinel, bytes);
    return 1;
}

/* Waits until the work queued on `stream` has written its result of `bytes` into s->result (armed:
 * polled, else synchronized). Returns the error of the synchronize, if one was needed; *in_flight
 * says whether work of this call may still run (the result came by the poll). */
static cudaError_t wait_result(slot *s, size_t bytes, int armed, cudaStream_t stream, int *in_flight) {
    *in_flight = 0;
    if (armed) {
        const volatile uint32_t *const word = (const volatile uint32_t *)s->result;
        const volatile uint64_t *const both = (const volatile uint64_t *)s->result;
        const uint64_t sentinel_both = RESULT_SENTINEL;
        uint32_t sentinel; /* the first 4 bytes, as arm_result wrote them */
        memcpy(&sentinel, &sentinel_both, sizeof sentinel);
        int64_t deadline = 0;
        for (unsigned spins = 0;; ++spins) {
            if (bytes == 4 ? *word != sentinel : *both != RESULT_SENTINEL) {
                *in_flight = 1;
                return cudaSuccess;
            }
            if (spins % 64 == 0) {
                const int64_t now = cured_now_ns();
                if (deadline == 0) deadline = now + SPIN_NS;
                else if (now > deadline) break;
            }
        }
    }
    return cudaStreamSynchronize(stream);
}

/* ---- the sum, waited for ------------------------------------------------------------------- */

cured_cuda_status cured_device_sum(const cured_plan *plan, const void *d_in, const cured_layout *strided, int unit,
                                   cudaStream_t stream, void *result, cured_timing *timing) {
    cured_cuda_status status = cured_ok;
    const size_t result_bytes = cured_plan_result_bytes(plan);
    const size_t item = (size_t)cured_dtype_size(plan->in_dtype);
    slot *s = NULL;
    char *mem = NULL; /* from the pool: the workspace if the slot's is too small, then the C-order copy */
    cudaEvent_t events[2] = {NULL, NULL}; /* before the reduction, after it */
    int armed = 0;                        /* the wait may poll for the result */

    memset(result, 0, result_bytes);
    if (timing != NULL) *timing = (cured_timing){0.0, 0.0, 0.0};
    if (plan->n == 0) return status; /* the sum of nothing: 0, and nothing to wait for */
    CURED_TRY("cudaHostAlloc, cudaMalloc (a call slot)", slot_take(WAITED, plan->device, stream, &s));
    char *workspace, *copy;
    CURED_TRY_STEP(call_memory(plan, s, strided != NULL, stream, &workspace, &copy, &mem));
    if (timing != NULL) {
        for (int k = 0; k < 2; ++k) CURED_TRY("cudaEventCreate", cudaEventCreate(&events[k]));
        CURED_TRY("cudaEventRecord", cudaEventRecord(events[0], stream));
    }
    if (strided != NULL) {
        CURED_TRY("cured_gather (a C-order copy of the strided array)",
                  cured_gather(d_in, copy, (int)item, unit, strided, stream));
        d_in = copy;
    }
    armed = timing == NULL && arm_result(s, result_bytes);
    CURED_TRY_STEP(cured_plan_run(plan, d_in, s->result_dev, workspace, stream));
    CURED_TRY("cudaEventRecord", cudaEventRecord(timing != NULL ? events[1] : s->done, stream));

done:
    if (mem != NULL) cured_keep_first(&status, cudaFreeAsync(mem, stream), "cudaFreeAsync");
    /* Wait even after a failure (synchronized), so that nothing still runs on memory this call gave back. */
    if (s != NULL) {
        /* Polled only after a call whose s->done was recorded after its work. */
        cured_keep_first(&status, wait_result(s, result_bytes, armed && status.code == cudaSuccess, stream, &s->in_flight),
                         "cudaStreamSynchronize");
        s->stream = stream;
    }
    if (status.code == cudaSuccess) {
        memcpy(result, s->result, result_bytes);
        if (timing != NULL) {
            float ms;
            cured_keep_first(&status, cudaEventElapsedTime(&ms, events[0], events[1]), "cudaEventElapsedTime");
            timing->reduce = ms * 1e-3; /* the result's trip to the host is the last kernel's own write */
        }
    }
    for (int k = 0; k < 2; ++k)
        if (events[k] != NULL) cured_keep_first(&status, cudaEventDestroy(events[k]), "cudaEventDestroy");
    slot_give(WAITED, plan->device, s, status.code == cudaSuccess);
    return status;
}

/* ---- the sum into a device array, not waited for ------------------------------------------ */

cured_cuda_status cured_device_sum_into(const cured_plan *plan, const void *d_in, const cured_layout *strided,
                                        int unit, cudaStream_t stream, void *d_out, cured_dtype out_dtype,
                                        const void *initial) {
    cured_cuda_status status = cured_ok;
    const cured_dtype acc_dtype = cured_acc_dtype(plan->acc);
    const size_t acc_size = (size_t)cured_dtype_size(acc_dtype);
    const size_t item = (size_t)cured_dtype_size(plan->in_dtype);
    /* The plan writes the result into out= itself when it is the accumulator's type and aligned and
     * there is no initial= to add. */
    const int direct = initial == NULL && out_dtype == acc_dtype && (uintptr_t)d_out % acc_size == 0;
    slot *s = NULL;
    char *mem = NULL; /* from the pool: the workspace if the slot's is too small, then the C-order copy */

    if (plan->n == 0) { /* the sum of nothing: 0, plus initial= */
        CURED_TRY("cured_store_results", cured_store_results(NULL, plan->acc, 1, initial, d_out, out_dtype, stream));
        goto done;
    }
    CURED_TRY("cudaEventCreate, cudaMalloc, cudaStreamWaitEvent (a queued call's slot)", slot_take(QUEUED, plan->device, stream, &s));
    char *const acc = s->workspace + SLOT_WORKSPACE_BYTES;
    char *workspace, *copy;
    CURED_TRY_STEP(call_memory(plan, s, strided != NULL, stream, &workspace, &copy, &mem));
    if (strided != NULL) {
        CURED_TRY("cured_gather (a C-order copy of the strided array)",
                  cured_gather(d_in, copy, (int)item, unit, strided, stream));
        d_in = copy;
    }
    CURED_TRY_STEP(cured_plan_run(plan, d_in, direct ? d_out : acc, workspace, stream));
    if (!direct) CURED_TRY("cured_store_results", cured_store_results(acc, plan->acc, 1, initial, d_out, out_dtype, stream));
    CURED_TRY("cudaEventRecord", cudaEventRecord(s->done, stream));
    s->stream = stream;

done:
    /* Stream-ordered: the memory goes back to the pool once the work queued before it is done. */
    if (mem != NULL) cured_keep_first(&status, cudaFreeAsync(mem, stream), "cudaFreeAsync");
    slot_give(QUEUED, plan->device, s, status.code == cudaSuccess);
    return status;
}

/* ---- the floor ------------------------------------------------------------------------------ */

/* The least a waited call can cost: the launch of a kernel that only writes its result, and the
 * same wait as a sum's (no event: that kernel leaves nothing in flight that a later user of the
 * slot could meet). */
cured_cuda_status cured_floor(int device, int repeats, cudaStream_t stream, double *seconds) {
    cured_cuda_status status = cured_ok;
    slot *s = NULL;
    CURED_TRY("cudaHostAlloc, cudaMalloc (a call slot)", slot_take(WAITED, device, stream, &s));
    for (int k = 0; k < repeats; ++k) {
        int in_flight;
        const int64_t start = cured_now_ns();
        const int armed = arm_result(s, sizeof(float));
        CURED_TRY("cured_launch_floor", cured_launch_floor(s->result_dev, stream));
        CURED_TRY("cudaStreamSynchronize", wait_result(s, sizeof(float), armed, stream, &in_flight));
        float value;
        memcpy(&value, s->result, sizeof value); /* the read a real call makes */
        seconds[k] = 1e-9 * (double)(cured_now_ns() - start);
        if (value != 1.0f) {
            status.code = cudaErrorUnknown;
            status.call = "the floor kernel (its value did not reach the host)";
            goto done;
        }
    }
done:
    if (s != NULL && status.code != cudaSuccess) (void)cudaStreamSynchronize(stream);
    slot_give(WAITED, device, s, status.code == cudaSuccess);
    return status;
}
