"""Failure at every CUDA call (csrc/faults.h), as SQLite tests its allocator: for each path of
cured.sum, the k-th CUDA runtime call or kernel launch it makes is failed, for every k that call
makes, with an out-of-memory error and with an ordinary one. Each such call raises MemoryError or
cured.CudaError (or, where the failed call's error is one the code deliberately gets past, returns
the right bits), leaks nothing (device memory, pinned memory, streams, events, threads), and leaves
the next call correct."""
import numpy as np
import pytest

import cured
from reference import random_array

OUT_OF_MEMORY = 2  # cudaErrorMemoryAllocation
INVALID_VALUE = 1  # cudaErrorInvalidValue: an ordinary, not sticky, error


def test_the_hook_fails_the_armed_call_once():
    """Without a GPU the first CUDA call fails anyway; with one, the armed call fails instead. Either
    way the armed call fires once, the call raises, and the hook is spent."""
    x = np.arange(1000, dtype=np.float32)
    try:
        for error, raised in [(OUT_OF_MEMORY, (MemoryError, cured.CudaError)), (INVALID_VALUE, cured.CudaError)]:
            cured._cured._fault(1, error)
            with pytest.raises(raised):
                cured.sum(x, device="gpu")
            state = cured._cured._fault_state()
            assert state["fired"] and state["calls"] >= 1
        cured._cured._fault(0, INVALID_VALUE)
        assert cured.sum(x, device="cpu") == 499500  # no CUDA there
        assert not cured._cured._fault_state()["fired"]
    finally:
        cured._cured._fault(0, INVALID_VALUE)
    with pytest.raises(ValueError):
        cured._cured._fault(-1, INVALID_VALUE)


def identical(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def alive():
    state = cured._cured._fault_state()
    return {k: state[k] for k in ("streams", "events", "pinned", "device")}, cured._cured.memory_in_use()["used"]


def sweep(call, expected, sync):
    """Fails each call of call() in turn; returns (calls, raised)."""
    for _ in range(2):  # warm: the caches (streams, events, staging buffers, call slots) fill
        call()
    sync()
    before = alive()
    threads = cured._cured._fault_state()["pool_threads"]
    cured._cured._fault(0, INVALID_VALUE)
    call()
    sync()
    calls = cured._cured._fault_state()["calls"]
    assert calls > 0
    raised = 0
    try:
        for k in range(1, calls + 1):
            for error in (OUT_OF_MEMORY, INVALID_VALUE):
                cured._cured._fault(k, error)
                try:
                    got = call()
                except MemoryError:
                    assert error == OUT_OF_MEMORY, k
                    raised += 1
                except cured.CudaError as e:
                    assert e.code == error == INVALID_VALUE, (k, e)
                    raised += 1
                else:  # the failed call's error was one the code gets past, or it was never reached
                    assert identical(got, expected), (k, error, got)
                cured._cured._fault(0, INVALID_VALUE)
                sync()
                assert identical(call(), expected), (k, error)  # the next call is right
                sync()
                assert alive() == before, (k, error, alive(), before)
                assert cured._cured._fault_state()["pool_threads"] == threads
    finally:
        cured._cured._fault(0, INVALID_VALUE)
    return calls, raised


def paths():
    cupy = pytest.importorskip("cupy", reason="CuPy makes the device arrays")
    rng_x = random_array(7, np.dtype("float32"), 300_001)
    d = cupy.asarray(rng_x)
    d2 = cupy.asarray(random_array(8, np.dtype("float32"), 6000).reshape(200, 30))
    out, out_rows = cupy.zeros((), cupy.float32), cupy.zeros(200, cupy.float32)

    def staged(lanes, **kw):
        def call():
            cured._cured._set_staging(lanes, 64 << 10)
            try:
                return cured.sum(rng_x, device="gpu", **kw)
            finally:
                cured._cured._set_staging(0, 0)
        return call

    return {
        "host, 1 lane": staged(1),
        "host, 3 lanes": staged(3),
        "host V0 (passes, scratch)": staged(2, version=0),
        "host CUB": staged(2, version="cub"),
        "host timing=True": lambda: cured.sum(rng_x, device="gpu", timing=True).value,
        "device": lambda: cured.sum(d),
        "device strided": lambda: cured.sum(d[::2]),
        "device out=": lambda: cured.sum(d, out=out).get()[()],
        "device timing=True": lambda: cured.sum(d, timing=True).value,
        "device CUB": lambda: cured.sum(d, version="cub"),
        "device V10": lambda: cured.fsum(d),
        "axis": lambda: cured.sum(d2, axis=0),
        "axis out=": lambda: cured.sum(d2, axis=1, out=out_rows).get(),
        "axis CUB": lambda: cured.sum(d2, axis=1, version="cub"),
    }, cupy.cuda.Device().synchronize


@pytest.mark.gpu
def test_failure_at_every_cuda_call():
    calls, sync = paths()
    report = []
    for name, call in calls.items():
        expected = call()
        n, raised = sweep(call, expected, sync)
        report.append(f"{name}: {n} calls, {raised} of {2 * n} failures raised")
        assert raised >= n, (name, n, raised)  # most failed calls reach the caller as an exception
    print("\n".join(report))
