"""The GPU path as a long-running program sees it: threads, memory, failures."""
import os
import resource
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import cured
from reference import random_array, same_bits

pytestmark = pytest.mark.gpu


def test_threads_get_right_answers(seed):
    """Calls from several Python threads at once (the GIL is released while the GPU works)."""
    inputs = [random_array(seed + k, np.dtype(dtype), n)
              for k, (dtype, n) in enumerate([("float32", 3 << 20), ("int16", 1 << 20), ("float64", 777777),
                                               ("uint8", 5 << 20), ("float16", 1 << 19), ("int64", 123457)])]
    expected = [[cured.sum(x, version=v.id, device="cpu") for v in cured.versions()] for x in inputs]

    def work(k):
        x = inputs[k % len(inputs)]
        return k, [cured.sum(x, version=v.id, device="gpu") for v in cured.versions()]

    with ThreadPoolExecutor(8) as pool:
        for k, got in pool.map(work, range(48)):
            assert all(same_bits(g, e) for g, e in zip(got, expected[k % len(inputs)])), k


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


@pytest.mark.parametrize("version", [0, 8])
def test_ten_thousand_calls_leak_nothing(seed, version):
    x = random_array(seed, np.dtype("float32"), 100003)
    expected = cured.sum(x, version=version, device="cpu")
    for _ in range(200):  # warm up: the pool and Python's caches reach their steady state
        cured.sum(x, version=version)
    device_before, host_before = cured._cured.memory_in_use(), rss_bytes()
    for _ in range(10_000):
        assert same_bits(cured.sum(x, version=version), expected)
    device_after, host_after = cured._cured.memory_in_use(), rss_bytes()
    assert device_after["used"] == device_before["used"] == 0
    assert device_after["reserved"] == device_before["reserved"]  # the pool kept what it had, no more
    assert host_after - host_before < 4 << 20


def test_non_contiguous_input(seed):
    x = random_array(seed, np.dtype("float32"), 3 << 20).reshape(3072, 1024)
    view = x[::3, 1::2]
    for v in cured.versions():
        assert same_bits(cured.sum(view, version=v.id, device="gpu"),
                         cured.sum(np.ascontiguousarray(view), version=v.id, device="cpu"))


def test_main_prints_the_device_and_versions(capsys):
    # In this process: a GPU in exclusive-process mode refuses a second process while this one
    # holds a context.
    from cured.__main__ import main

    assert main([]) == 0
    out = capsys.readouterr().out
    assert cured.device_info()["name"] in out
    for v in cured.versions():
        assert v.name in out


def test_threads_on_device_arrays_get_right_answers(seed):
    """Concurrent device-array sums each take their own call slot (result and workspace)."""
    cupy = pytest.importorskip("cupy", reason="CuPy makes the device arrays")
    inputs = [random_array(seed + k, np.dtype(dtype), n)
              for k, (dtype, n) in enumerate([("float32", 1 << 20), ("int16", 5000), ("float64", 777777)])]
    devices = [cupy.asarray(x) for x in inputs]
    expected = [cured.sum(x) for x in inputs]
    outs = [[cupy.zeros((), e.dtype) for e in expected] for _ in range(8)]

    def work(k):
        i = k % len(inputs)
        into = outs[k % 8][i]
        cured.sum(devices[i], out=into)
        return i, cured.sum(devices[i]), into

    with ThreadPoolExecutor(8) as pool:
        for i, got, into in pool.map(work, range(400)):
            assert same_bits(got, expected[i])
    cupy.cuda.Device().synchronize()
    assert all(same_bits(o.get()[()], expected[i]) for row in outs for i, o in enumerate(row))


@pytest.fixture
def runtime_launch():
    """cured._cured._set_test_driver_launch for one test, then the default (the driver's launch)."""
    yield lambda: cured._cured._set_test_driver_launch(False)
    cured._cured._set_test_driver_launch(True)


def test_launches_through_the_driver_and_the_runtime_alike(seed, runtime_launch):
    """V9's and V10's launches and the floor's go through the driver's cuLaunchKernel, V10's clusters
    of blocks through cuLaunchKernelEx (csrc/kernels/launch.cuh): the path runs, and the runtime's
    launch, its fallback, gives the same bits: one tile, a few (V10: a cluster) and a grid (V10's
    float64: with 90 KiB of dynamic shared memory a block, and blocks of many tiles), aligned or
    not, and from fresh threads, whose first launch has no context current."""
    cupy = pytest.importorskip("cupy", reason="CuPy makes the device arrays")
    cases = [random_array(seed + k, np.dtype(d), n) for k, (d, n) in
             enumerate([("float32", 1000), ("float64", 20000), ("float32", 3 << 20), ("int8", 77777),
                        ("float64", 6 << 20)])]
    arrays = [cupy.asarray(x) for x in cases] + [cupy.asarray(cases[0])[1:]]
    hosts = cases + [cases[0][1:]]
    sums = [cured.sum, cured.fsum]
    expected = [[f(x, device="cpu") for x in hosts] for f in sums]
    clusters = cured._cured._cluster_launches()
    before = cured._cured._driver_launches()
    driver = [[f(a) for a in arrays] for f in sums]
    cured._cured.floor(3)
    assert cured._cured._driver_launches() - before >= 2 * len(arrays) + 3
    if cured.device_info()["compute_capability"] >= (9, 0):
        assert cured._cured._cluster_launches() > clusters  # 20000 float64: a cluster of 5 tiles
    with ThreadPoolExecutor(4) as pool:  # new threads: the first launch in each may fall back
        threaded = [list(pool.map(f, arrays * 4)) for f in sums]
    runtime_launch()
    before = cured._cured._driver_launches()
    runtime = [[f(a) for a in arrays] for f in sums]
    assert cured._cured._driver_launches() == before
    for s in range(len(sums)):
        for k, want in enumerate(expected[s]):
            assert same_bits(driver[s][k], want) and same_bits(runtime[s][k], want), (s, k)
            assert all(same_bits(threaded[s][k + j * len(arrays)], want) for j in range(4)), (s, k)


def test_fork_child_gets_a_clear_error_not_a_hang(seed):
    """A child forked after this process used the GPU cannot use CUDA: cured says so (CudaError) at
    once; the CPU path still works there, on threads of its own (the parent's pool threads are not
    in the child); the parent goes on working."""
    x = random_array(seed, np.dtype("float32"), 100003)
    big = random_array(seed, np.dtype("float32"), 1 << 22)
    expected, expected_big = cured.sum(x, device="gpu"), cured.sum(big, device="cpu")  # the pool's threads start
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report through the pipe, never return into pytest
        code = 3
        try:
            try:
                cured.sum(x, device="gpu")
                code = 0 if same_bits(cured.sum(x, device="gpu"), expected) else 4
            except cured.CudaError:
                code = 1
            code = code if same_bits(cured.sum(x, device="cpu"), expected) else 5
            code = code if same_bits(cured.sum(big, device="cpu"), expected_big) else 6
        finally:
            os.write(write, bytes([code]))
            os._exit(0)
    os.close(write)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and os.waitpid(pid, os.WNOHANG) == (0, 0):
        time.sleep(0.05)
    else:
        if time.monotonic() >= deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("the forked child hung")
    code = os.read(read, 1)
    os.close(read)
    assert code in (b"\x00", b"\x01"), code  # works afresh, or a clear CudaError
    assert same_bits(cured.sum(x, device="gpu"), expected) and same_bits(cured.sum(big, device="cpu"), expected_big)


# The child of test_interpreter_exit_with_work_in_flight: threads busy in cured (the GIL released)
# and, for device input, sums queued into a device out= that nobody waits for, when the main thread
# leaves the interpreter. Python freezes daemon threads at exit; the C code under them must not
# hang the exit or crash it.
EXIT_CHILD = textwrap.dedent("""
    import sys, threading, time
    import numpy as np
    import cured
    place, seed = sys.argv[1], int(sys.argv[2])
    x = np.random.default_rng(seed).standard_normal(1 << 24, dtype=np.float32)  # 64 MiB: staged lanes
    if place == "device-out":
        import cupy
        x = cupy.asarray(x)
        outs = [cupy.zeros((), np.float32) for _ in range(64)]
    calls = []

    def keep_summing():
        while True:
            cured.sum(x, device="gpu" if place == "device-out" else place)
            calls.append(1)

    for _ in range(3):
        threading.Thread(target=keep_summing, daemon=True).start()
    while len(calls) < 6:
        time.sleep(0.001)
    if place == "device-out":
        for o in outs:  # queued; the process leaves before they finish
            cured.sum(x, out=o)
    print("leaving", len(calls), flush=True)
    sys.exit(0)
""")


@pytest.mark.fresh_gpu  # a process of its own on the GPU: before this one opens a context
@pytest.mark.parametrize("place", ["gpu", "cpu", "device-out"])
def test_interpreter_exit_with_work_in_flight(seed, place):
    """Leaving Python while other threads are inside cured.sum (host input staged on the GPU's lanes,
    summed on the CPU's pool, or device input with sums queued into out=) neither hangs nor crashes."""
    if place == "device-out":
        pytest.importorskip("cupy", reason="CuPy makes the device arrays")
    for attempt in range(3):  # leave at different moments of the work
        try:
            done = subprocess.run([sys.executable, "-c", EXIT_CHILD, place, str(seed + attempt)],
                                  capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the interpreter hung at exit with cured.sum on {place!r} in flight")
        assert done.returncode == 0 and done.stdout.startswith("leaving"), (done.returncode, done.stdout, done.stderr)
        assert done.stderr == "", done.stderr
