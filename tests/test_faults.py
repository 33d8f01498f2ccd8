"""Failure at every CUDA call (csrc/faults.h), as SQLite tests its allocator: for each path of
cured.sum, the k-th CUDA runtime call or kernel launch it makes is failed, for every k that call
makes, with an out-of-memory error and with an ordinary one. Each such call raises MemoryError or
cured.CudaError (or, where the failed call's error is one the code deliberately gets past, returns
the right bits), leaks nothing (device memory, pinned memory, streams, events, threads), and leaves
the next call correct; and failing every call from the k-th on (a GPU that stops answering), no sum
hangs. The host memory that the CPU sums take for themselves is failed the same way, allocation by
allocation, with no GPU."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import cured
from reference import random_array

OUT_OF_MEMORY = 2  # cudaErrorMemoryAllocation
INVALID_VALUE = 1  # cudaErrorInvalidValue: an ordinary, not sticky, error


def test_the_hook_fails_the_armed_call_once():
    """The armed call fails, once: the sum raises its error, or gets past it (cured_device_ready
    retries a failed cudaGetDevice) with the right bits. Without a GPU, device="auto"'s first CUDA
    call is cudaGetDeviceCount, so the injected error, not the missing GPU's, reaches the caller;
    with one, the GPU path (auto would sum this array on the CPU, with no CUDA call)."""
    x = np.arange(1000, dtype=np.float32)
    no_gpu = cured.device_count() == 0
    try:
        for error, raised in [(OUT_OF_MEMORY, MemoryError), (INVALID_VALUE, cured.CudaError)]:
            cured._cured._fault(1, error)
            try:
                got = cured.sum(x, device="auto" if no_gpu else "gpu")
            except raised as e:
                assert error == OUT_OF_MEMORY or e.code == INVALID_VALUE, e
            else:
                assert not no_gpu and got == 499500
            state = cured._cured._fault_state()
            assert state["fired"] and state["calls"] >= 1
            if no_gpu:  # the hook is spent: the missing GPU speaks again
                with pytest.raises(cured.CudaError, match="no usable CUDA GPU"):
                    cured.sum(x)
        cured._cured._fault(0, INVALID_VALUE)
        assert cured.sum(x, device="cpu") == 499500  # no CUDA there
        assert not cured._cured._fault_state()["fired"]
    finally:
        cured._cured._fault(0, INVALID_VALUE)
    with pytest.raises(ValueError):
        cured._cured._fault(-1, INVALID_VALUE)


def test_the_hook_can_fail_every_call_from_the_armed_one():
    """_fault(k, error, every=True) fails the k-th call and every one after it until the next _fault
    (a GPU that stops answering): each sum raises the injected error, however it retries; disarmed,
    the next sum is right (with a GPU) or meets the missing GPU again (without one)."""
    x = np.arange(1000, dtype=np.float32)
    no_gpu = cured.device_count() == 0
    try:
        cured._cured._fault(1, INVALID_VALUE, True)
        for _ in range(3):
            with pytest.raises(cured.CudaError) as raised:
                cured.sum(x, device="auto" if no_gpu else "gpu")
            assert raised.value.code == INVALID_VALUE
        state = cured._cured._fault_state()
        assert state["fired"] and state["calls"] >= 3
        cured._cured._fault(0, INVALID_VALUE)
        assert cured.sum(x, device="cpu") == 499500
        if no_gpu:
            with pytest.raises(cured.CudaError, match="no usable CUDA GPU"):
                cured.sum(x)
        else:
            assert cured.sum(x, device="gpu") == 499500
    finally:
        cured._cured._fault(0, INVALID_VALUE)


def host_paths(seed):
    """The CPU sums that take host memory for themselves (csrc/faults.h's second hook), by name."""
    x = random_array(seed, np.dtype("float32"), 300_001)
    m = random_array(seed, np.dtype("float32"), 3_000_000).reshape(3000, 1000)
    columns = random_array(seed, np.dtype("float64"), 1 << 21).reshape(-1, 2)  # two steps: columns in segments
    c = cured._cured

    def strided():  # on one thread, whose range buffer the first call left: the same allocations each call
        c._set_cpu_tiles(1, False)
        try:
            return cured.sum(m.T, device="cpu")
        finally:
            c._set_cpu_tiles(0, False)

    return {
        "V9 (partials)": lambda: cured.sum(x, device="cpu"),
        "V9 strided (partials)": strided,
        "V3's order model (passes)": lambda: c.model_sum(x, 3),
        "V9's order model (tiles)": lambda: c.model_sum(x, 9),
        "along axis 0": lambda: cured.sum(m, axis=0, device="cpu"),
        "along axis 0, two steps": lambda: cured.sum(columns, axis=0, device="cpu"),
        "along axis 0, the order model's two steps": lambda: c.sum_axes(columns, columns.shape, (True, False),
                                                                        np.float64, "cpu", model=True),
        "V10, the pieces' states": lambda: cured.fsum(m, device="cpu"),
    }


def test_host_memory_failures_raise_memory_error_and_leave_the_next_call_right(seed):
    """Each allocation of host memory that a CPU sum makes for itself is failed in turn: the call
    raises MemoryError, or (V10, which then sums its pieces on one thread) returns the same bits, and
    the next call is right. Every path allocates at least once, so none of this passes by doing
    nothing."""
    problems, report = [], []
    try:
        for name, call in host_paths(seed).items():
            expected = call()
            cured._cured._fault_host(0)
            call()
            calls = cured._cured._fault_state()["host_calls"]
            raised = 0
            for k in range(1, calls + 1):
                cured._cured._fault_host(k)
                try:
                    got = call()
                except MemoryError:
                    raised += 1
                else:
                    if not identical(got, expected):
                        problems.append(f"{name}, allocation {k}: {got!r}, not {expected!r}")
                if not cured._cured._fault_state()["host_fired"]:
                    problems.append(f"{name}, allocation {k}: never made")
                cured._cured._fault_host(0)
                if not identical(call(), expected):
                    problems.append(f"{name}, allocation {k}: the next call was wrong")
            report.append(f"{name}: {calls} allocations, {raised} raised MemoryError")
            if calls == 0 or (raised < calls and not name.startswith("V10")):
                problems.append(f"{name}: {calls} allocations, {raised} raised MemoryError")
    finally:
        cured._cured._fault_host(0)
    print("\n".join(report))
    assert not problems, "\n".join(problems[:40])
    with pytest.raises(ValueError):
        cured._cured._fault_host(-1)


def test_a_range_buffer_that_cannot_be_had_raises_memory_error(tmp_path, seed):
    """A strided V9 sum on the CPU gathers ranges into a buffer each thread keeps (cpu_tiles.c), so
    only a thread's first (or a larger) range allocates: in a fresh process, on one thread, the
    first call takes the partials, the buffer's record and its memory, each failed in turn here
    (the record, once had, stays: the fourth call takes the partials and the memory, and its fourth
    allocation never comes), and the calls after them are right."""
    script = tmp_path / "range_buffer.py"
    script.write_text(f"""
import numpy as np
import cured
m = np.random.default_rng({seed}).standard_normal((2048, 1024)).astype(np.float32)
expected = cured.sum(np.ascontiguousarray(m.T), device="cpu")  # the C-order copy's: the same bits
cured._cured._set_cpu_tiles(1, False)
outcomes = []
for k in (1, 2, 3, 4):
    cured._cured._fault_host(k)
    try:
        got = cured.sum(m.T, device="cpu")
    except MemoryError:
        outcomes.append("MemoryError")
    else:
        fired = cured._cured._fault_state()["host_fired"]
        outcomes.append("wrong" if got != expected else "fired, no error" if fired else "ran")
cured._cured._fault_host(0)
outcomes.append("right" if cured.sum(m.T, device="cpu") == expected else "wrong")
print(" ".join(outcomes))
""")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["MemoryError"] * 3 + ["ran", "right"], run.stdout


def identical(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def alive():
    state = cured._cured._fault_state()
    return {k: state[k] for k in ("streams", "events", "pinned", "device")}, cured._cured.memory_in_use()["used"]


def alive_on(cupy, devices):
    """alive(), with the pool bytes in use on each of `devices` (memory_in_use reads the current one)."""
    counts, _ = alive()
    used = []
    for device in devices:
        with cupy.cuda.Device(device):
            used.append(cured._cured.memory_in_use()["used"])
    return counts, tuple(used)


def grew(before, after):
    """What is alive now and was not before: a leak. (A cache may shrink: a stream whose device
    could not be read is destroyed, not pooled.)"""
    (live_before, used_before), (live_after, used_after) = before, after
    leaks = {k: (live_before[k], v) for k, v in live_after.items() if v > live_before[k]}
    if used_after != used_before:
        leaks["pool bytes in use"] = (used_before, used_after)
    return leaks


def sweep(call, expected, sync, alive=alive, every=False, errors=(OUT_OF_MEMORY, INVALID_VALUE)):
    """Fails each call of call() in turn (with `every`, it and every call after it), with each of
    `errors`; returns (calls, raised, problems)."""
    for _ in range(2):  # warm: the caches (streams, events, staging buffers, call slots) fill
        call()
    sync()
    before = alive()
    threads = cured._cured._fault_state()["pool_threads"]
    cured._cured._fault(0, INVALID_VALUE)
    call()
    sync()
    calls = cured._cured._fault_state()["calls"]
    raised, problems = 0, []
    try:
        for k in range(1, calls + 1):
            for error in errors:
                cured._cured._fault(k, error, every)
                try:
                    got = call()
                except MemoryError:
                    raised += 1
                    if error != OUT_OF_MEMORY:
                        problems.append(f"call {k}: MemoryError for error {error}")
                except cured.CudaError as e:
                    raised += 1
                    if e.code != error or error != INVALID_VALUE:
                        problems.append(f"call {k}: CudaError {e.code} for error {error}")
                else:  # the failed call's error was one the code gets past, or it was never reached
                    if not identical(got, expected):
                        problems.append(f"call {k}, error {error}: returned {got!r}, not {expected!r}")
                cured._cured._fault(0, INVALID_VALUE)
                sync()
                if not identical(call(), expected):
                    problems.append(f"call {k}, error {error}: the next call was wrong")
                sync()
                leaks = grew(before, alive())
                if leaks:
                    problems.append(f"call {k}, error {error}: leaked {leaks}")
                if cured._cured._fault_state()["pool_threads"] != threads:
                    problems.append(f"call {k}, error {error}: the pool started threads")
    finally:
        cured._cured._fault(0, INVALID_VALUE)
    return calls, raised, problems


def sweep_paths(calls, sync, least, label="", **sweep_args):
    """sweep() over each path of `calls` (name: call; its first value the expected one): (a report
    line a path, the problems), a path whose failures raised fewer than least(n) times over its n
    calls among them (n == 0 or none raised: the hook reached nothing, so the sweep tested nothing).
    Each name is printed as its sweep starts, so that a hang shows where."""
    tries = len(sweep_args.get("errors", (OUT_OF_MEMORY, INVALID_VALUE)))
    report, problems = [], []
    for name, call in calls.items():
        print(f"{name}{label}", flush=True)
        n, raised, found = sweep(call, call(), sync, **sweep_args)
        line = f"{name}{label}: {n} calls, {raised} of {tries * n} failures raised"
        report.append(line)
        problems += [f"{name}{label}: {p}" for p in found]
        if n == 0 or raised < max(least(n), 1):
            problems.append(f"{line}, fewer than {max(least(n), 1)}")
    return report, problems


def paths():
    cupy = pytest.importorskip("cupy", reason="CuPy makes the device arrays")
    rng_x = random_array(7, np.dtype("float32"), 300_001)
    d = cupy.asarray(rng_x)
    d2 = cupy.asarray(random_array(8, np.dtype("float32"), 6000).reshape(200, 30))
    out, out_rows = cupy.zeros((), cupy.float32), cupy.zeros(200, cupy.float32)
    out_half = cupy.zeros((), cupy.float16)
    d3 = cupy.asarray(random_array(9, np.dtype("float32"), 150_000).reshape(50_000, 3))

    def fetched():  # 200 KB of results in 6 chunks of 9 pages, 2 a lane (fetch.c)
        cured._cured._set_staging(3, 64 << 10, True, 1)
        try:
            return cured.sum(d3, axis=1)
        finally:
            cured._cured._set_staging(0, 0)

    def traced():  # the probes' trace of each chunk (staged_trace.c), whose events each sum makes and destroys
        cured._cured._set_staging(3, 64 << 10)
        cured._cured._set_staging_trace(True)
        try:
            return cured.sum(rng_x, device="gpu", timing=True).value
        finally:
            cured._cured._set_staging_trace(False)
            cured._cured._set_staging(0, 0)

    def staged(lanes, mode=None, **kw):
        def call():
            cured._cured._set_staging(lanes, 64 << 10, mode=mode)
            try:
                return cured.sum(rng_x, device="gpu", **kw)
            finally:
                cured._cured._set_staging(0, 0)
        return call

    return {
        "host, 1 lane": staged(1),
        "host, 3 lanes": staged(3),
        "host, 3 lanes, a launch a chunk": staged(3, mode="direct"),
        "host, 3 lanes, copied to the device": staged(3, mode="copied"),
        "host V0 (passes, scratch)": staged(2, version=0),
        "host CUB": staged(2, version="cub"),
        "host timing=True": lambda: cured.sum(rng_x, device="gpu", timing=True).value,
        "host timing=True, traced": traced,
        "device": lambda: cured.sum(d),
        "device strided": lambda: cured.sum(d[::2]),
        "device out=": lambda: cured.sum(d, out=out).get()[()],
        "device cast into out= (made on the host)": lambda: cured.sum(d, dtype=np.float16, out=out_half).get()[()],
        "device timing=True": lambda: cured.sum(d, timing=True).value,
        "device CUB": lambda: cured.sum(d, version="cub"),
        "device V10": lambda: cured.fsum(d),
        "axis": lambda: cured.sum(d2, axis=0),
        "axis out=": lambda: cured.sum(d2, axis=1, out=out_rows).get(),
        "axis CUB": lambda: cured.sum(d2, axis=1, version="cub"),
        "axis, results through the lanes": fetched,
    }, cupy.cuda.Device().synchronize


@pytest.mark.gpu
def test_failure_at_every_cuda_call():
    calls, sync = paths()
    report, problems = sweep_paths(calls, sync, least=lambda n: n)  # most failures reach the caller
    print("\n".join(report))
    assert not problems, "\n".join(problems[:40])


@pytest.mark.gpu
def test_failure_at_every_cuda_call_on_a_second_gpu():
    """The sweep over arrays on the second GPU, the caller's current device the first: cured moves to
    the array's device for the call and back after it (module_args.c's enter_device and
    leave_device), failed or not. Every failure raises or returns the right bits, leaks nothing on
    either device, leaves the caller's device current and the next call right; where the failed call
    is the one that makes the caller's device current again, the error says so. Run twice: one call
    failing, then every call from it on (a GPU that stops answering), where the switch back fails
    after the call had failed already: that error is raised, the first as its __context__."""
    cupy = pytest.importorskip("cupy", reason="CuPy makes the device arrays")
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("only one GPU: a device array on a second GPU cannot be made here")
    x = random_array(10, np.dtype("float32"), 300_001)
    with cupy.cuda.Device(1):
        d = cupy.asarray(x)
        rows = cupy.asarray(random_array(11, np.dtype("float32"), 6000).reshape(200, 30))
        out, out_rows = cupy.zeros((), cupy.float32), cupy.zeros(200, cupy.float32)
    moved, chained = [], []

    def kept(name, call):
        def run():
            try:
                got = call()
            except (MemoryError, cured.CudaError) as error:
                if cupy.cuda.runtime.getDevice() != 0:
                    if "back to the caller's device" not in str(error):
                        moved.append(f"{name}: {error}")
                    elif error.__context__ is not None:
                        chained.append(error.__context__)
                    cupy.cuda.runtime.setDevice(0)
                raise
            if cupy.cuda.runtime.getDevice() != 0:
                moved.append(f"{name}: returned")
                cupy.cuda.runtime.setDevice(0)
            return got
        return run

    calls = {
        "device": lambda: cured.sum(d),
        "device strided": lambda: cured.sum(d[::2]),
        "device out=": lambda: cured.sum(d, out=out),
        "device timing=True": lambda: cured.sum(d, timing=True).value,
        "device CUB": lambda: cured.sum(d, version="cub"),
        "device V10": lambda: cured.fsum(d),
        "axis": lambda: cured.sum(rows, axis=0),
        "axis out=": lambda: cured.sum(rows, axis=1, out=out_rows),
    }

    def sync():
        for device in (0, 1):
            cupy.cuda.Device(device).synchronize()

    def value(got):  # a device out= read back, on its device
        if isinstance(got, cupy.ndarray):
            with got.device:
                return got.get()
        return got

    report, problems = [], []
    assert cupy.cuda.runtime.getDevice() == 0
    runs = {name: kept(name, lambda call=call: value(call())) for name, call in calls.items()}
    for every in (False, True):
        lines, found = sweep_paths(runs, sync, least=lambda n: n, label=", every call on" if every else "",
                                   alive=lambda: alive_on(cupy, (0, 1)), every=every)
        report += lines
        problems += found
    report.append(f"{len(chained)} failed switches back after a failed call, the first failure their __context__")
    print("\n".join(report))
    problems += [f"the caller's current device changed, unsaid: {m}" for m in moved]
    problems += [f"a switch back's error has {c!r} as its context" for c in chained
                 if not isinstance(c, (MemoryError, cured.CudaError))]
    if not chained:  # with every=True, a failed cudaSetDevice onto the array's device is one
        problems.append("no failed switch back kept the call's own failure as its context")
    assert not problems, "\n".join(problems[:40])


STOPPED_GPU_CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
from test_faults import INVALID_VALUE, paths, sweep_paths

calls, sync = paths()
report, problems = sweep_paths(calls, sync, least=lambda n: 1, every=True, errors=(INVALID_VALUE,))
print("\\n".join(report))
print("problems:", len(problems), flush=True)
print("\\n".join(problems[:40]))
"""


@pytest.mark.gpu
@pytest.mark.fresh_gpu  # a process of its own on the GPU: before this one opens a context
def test_a_gpu_that_stops_answering_mid_call():
    """Every CUDA call from the k-th of a sum on fails, for every k of every path of the sweep above
    (the host path's lanes and fed kernel, device arrays, out=, timing=True, CUB, V10, axes): the sum
    raises the injected error or returns the right bits and never hangs (a process of its own, with
    a time limit); once calls succeed again, nothing leaked, no thread started and the next call is
    right (sweep(every=True))."""
    pytest.importorskip("cupy", reason="CuPy makes the device arrays")
    tests = str(Path(__file__).resolve().parent)
    try:
        run = subprocess.run([sys.executable, "-c", STOPPED_GPU_CHILD, tests], capture_output=True, text=True,
                             timeout=600)
    except subprocess.TimeoutExpired as stopped:
        out = stopped.stdout or ""  # bytes, text=True or not, on some Pythons
        out = out.decode(errors="replace") if isinstance(out, bytes) else out
        pytest.fail(f"a sum hung once every CUDA call failed: {out.strip().splitlines()[-1:]}")
    assert run.returncode == 0, run.stderr[-4000:]
    print(run.stdout)
    assert "problems: 0" in run.stdout, run.stdout[-4000:]
