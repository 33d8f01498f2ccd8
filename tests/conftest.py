"""Shared fixtures: the run's random seed and the GPU marker.

Every run draws fresh data from one seed, printed in pytest's header; set CURED_TEST_SEED to
replay a run. Tests marked `gpu` are skipped, with the reason, where no CUDA device can be used; with
CURED_REQUIRE_GPU=1 (scripts/gpu_check.sh) the run fails instead.
"""
import os
import secrets

import pytest

import cured

# JAX takes 75% of the GPU's memory when it starts unless told not to; the tests that need a large
# array (more than 2^31 elements) would find none left.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

SEED = int(os.environ.get("CURED_TEST_SEED", secrets.randbits(32)))


def _no_gpu_reason():
    if cured.device_count() > 0:
        return None
    try:
        cured.device_info()
    except cured.CudaError as error:
        return f"no CUDA device: {error}"
    return "no CUDA device"


NO_GPU_REASON = _no_gpu_reason()
if NO_GPU_REASON is not None and os.environ.get("CURED_REQUIRE_GPU"):
    raise pytest.UsageError(f"CURED_REQUIRE_GPU is set but the GPU cannot be used: {NO_GPU_REASON}")


def pytest_report_header(config):
    # device_name opens no context: the profiler tests, which run first, need the GPU free.
    gpu = cured._cured.device_name() if NO_GPU_REASON is None else NO_GPU_REASON
    return [f"cured {cured.__version__}: random seed {SEED} (replay with CURED_TEST_SEED={SEED})", f"GPU: {gpu}"]


def pytest_collection_modifyitems(config, items):
    # Tests that start a GPU process of their own (ncu's child) go first, before this process opens
    # a context: the lent GPUs run in exclusive-process mode.
    items.sort(key=lambda item: "fresh_gpu" not in item.keywords)
    if NO_GPU_REASON is None:
        return
    skip = pytest.mark.skip(reason=NO_GPU_REASON)
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def seed():
    return SEED
