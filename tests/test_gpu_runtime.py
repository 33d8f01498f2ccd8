"""The GPU path as a long-running program sees it: threads, memory, failures."""
import resource
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
        return k, [cured.sum(x, version=v.id) for v in cured.versions()]

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
        assert same_bits(cured.sum(view, version=v.id), cured.sum(np.ascontiguousarray(view), version=v.id))


def test_main_prints_the_device_and_versions(capsys):
    # In this process: a GPU in exclusive-process mode refuses a second process while this one
    # holds a context.
    from cured.__main__ import main

    assert main([]) == 0
    out = capsys.readouterr().out
    assert cured.device_info()["name"] in out
    for v in cured.versions():
        assert v.name in out
