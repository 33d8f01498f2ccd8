"""Host arrays summed along axes (issue 13): cured on the CPU (csrc/cpu_axis.c, what device="auto"
picks), cured through the GPU (device="gpu": a pageable copy, the axis kernels, the results back)
and numpy.sum, wall time, median of calls timed in turns (cured.walltime), GB/s of input; and the
CPU's bits against the GPU's. A probe for README and docs/development.md; it prints.

    python scripts/probes/axis_host.py [float32,float64]
"""
import os
import statistics
import sys
import time

import numpy as np

import cured
from cured.walltime import _wall_in_turns

SHAPES = [((64, 64), 0), ((64, 64), 1), ((1024, 1024), 0), ((1024, 1024), 1), ((4096, 4096), 0), ((4096, 4096), 1),
          ((2**20, 16), 0), ((2**20, 16), 1), ((16, 2**20), 1), ((2**14, 2**10), 0), ((512, 512, 64), (0, 2))]

dtypes = sys.argv[1].split(",") if len(sys.argv) > 1 else ["float32", "float64"]
info = cured.device_info()
print(info["name"], time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "CPUs:", len(os.sched_getaffinity(0)))
rng = np.random.default_rng(1)
for dtype in dtypes:
    for shape, axis in SHAPES:
        a = rng.standard_normal(shape).astype(dtype)
        cpu, gpu = cured.sum(a, axis=axis, device="cpu"), cured.sum(a, axis=axis, device="gpu")
        same = np.array_equal(cpu.view(np.uint8), gpu.view(np.uint8))
        t = _wall_in_turns({"cpu": lambda: cured.sum(a, axis=axis, device="cpu"),
                            "gpu": lambda: cured.sum(a, axis=axis, device="gpu"),
                            "numpy": lambda: np.sum(a, axis=axis)}, 50, 0.5)
        med = {k: statistics.median(v) for k, v in t.items()}
        print(f"{dtype} {str(shape):16s} axis {str(axis):6s} " +
              " ".join(f"{k} {a.nbytes / v / 1e9:6.2f} GB/s ({v * 1e6:8.1f} us)" for k, v in med.items()) +
              f"  numpy/cpu {med['numpy'] / med['cpu']:5.2f}  gpu/cpu {med['gpu'] / med['cpu']:5.2f}  same bits {same}",
              flush=True)
