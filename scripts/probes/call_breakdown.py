"""Where a waited-for cured.sum of a device array spends its wall time beyond the floor (issue 12):
every subject timed in turns (batches of 50 calls), medians in microseconds. Subjects: the floor
(cured._cured.floor, timed in C), cured.sum and cured._cured.sum on an object holding one fixed
CUDA Array Interface dict (no protocol cost), on a CuPy array, on a PyTorch tensor and on a JAX
array (computed: read through its interface) and the same JAX array offered through DLPack alone (as
JAX arrays were read before 2026-11-23 14:00 UTC), on a Numba array (read from its attributes), CuPy's,
JAX's and Numba's interface dicts and JAX's is_ready() alone,
PyTorch's and CuPy's own calls; and V9's device time (timing=True). The
floor and cured.sum(c) are also timed with the runtime's launch instead of the driver's
(_cured._set_test_driver_launch(False), csrc/kernels/launch.cuh). A probe
for docs/ and issue 12's notes; it prints, nothing reads it.

    python scripts/probes/call_breakdown.py 10,16
"""
import statistics
import sys
import time

import cupy
import torch

import cured
from cured import _cured


try:
    from numba import cuda as numba_cuda
except ImportError:
    numba_cuda = None
try:
    import jax
    import jax.dlpack

    jax.config.update("jax_enable_x64", True)
except ImportError:
    jax = None


class DLPackOnly:
    def __init__(self, array):
        self.__dlpack__, self.__dlpack_device__ = array.__dlpack__, array.__dlpack_device__


class FixedInterface:
    def __init__(self, array):
        self.__cuda_array_interface__ = array.__cuda_array_interface__


lengths = [1 << int(k) for k in sys.argv[1].split(",")] if len(sys.argv) > 1 else [1 << 10, 1 << 16]
print(cured.device_info()["name"], time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
for dtype in ("float32", "float64"):
    for n in lengths:
        c = cupy.random.standard_normal(n, dtype=dtype)
        t = torch.from_dlpack(c)
        fixed = FixedInterface(c)
        subjects = {
            "floor": None,
            "_cured.sum(fixed)": lambda: _cured.sum(fixed, 9),
            "cured.sum(fixed)": lambda: cured.sum(fixed),
            "_cured.sum(c)": lambda: _cured.sum(c, 9),
            "cured.sum(c)": lambda: cured.sum(c),
            "cured.sum(c) runtime launch": lambda: cured.sum(c),
            "floor runtime launch": None,
            "cured.sum(t)": lambda: cured.sum(t),
            "c.__cai__": lambda: c.__cuda_array_interface__,
            "t.sum().item()": lambda: t.sum().item(),
            "float(c.sum())": lambda: float(c.sum()),
        }
        if numba_cuda is not None:
            nb = numba_cuda.as_cuda_array(c)
            subjects.update({
                "cured.sum(numba)": lambda: cured.sum(nb),
                "numba.__cai__": lambda: nb.__cuda_array_interface__,
            })
        if jax is not None:
            j = jax.dlpack.from_dlpack(c).block_until_ready()
            j_dlpack = DLPackOnly(j)
            subjects.update({
                "cured.sum(j)": lambda: cured.sum(j),
                "cured.sum(j through DLPack)": lambda: cured.sum(j_dlpack),
                "j.__cai__": lambda: j.__cuda_array_interface__,
                "j.is_ready()": lambda: j.is_ready(),
            })
        times = {k: [] for k in subjects}
        device = []
        for _ in range(20):
            for name, fn in subjects.items():
                _cured._set_test_driver_launch("runtime launch" not in name)
                if fn is None:
                    times[name] += _cured.floor(50)
                    continue
                for _ in range(50):
                    start = time.perf_counter()
                    fn()
                    times[name].append(time.perf_counter() - start)
            _cured._set_test_driver_launch(True)
            for _ in range(50):
                device.append(cured.sum(c, timing=True).timing.reduce_s)
        line = "  ".join(f"{k} {statistics.median(v) * 1e6:.2f}" for k, v in times.items())
        print(f"{dtype} 2^{n.bit_length() - 1:<2} {line}  V9 device {statistics.median(device) * 1e6:.2f}", flush=True)
