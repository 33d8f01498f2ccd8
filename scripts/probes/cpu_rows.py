"""Row sums of host arrays on the CPU (device="cpu": csrc/cpu_axis.c's row steps, the pool's threads)
against numpy.sum along the last axis, wall time of the whole call, in turns in one process, float32
and float64, rows of 2^13 to 2^20 elements (block rows: 256 lanes a segment) and of 1000 to 10000.
Prints a line a case; nothing reads it. No GPU needed.

    python scripts/probes/cpu_rows.py [float64 float32 ...]
"""
import statistics
import sys

import numpy as np

import cured
from cured.walltime import _wall_in_turns

SHAPES = [(2, 1 << 13), (2, 1 << 16), (8, 1 << 16), (1, 1 << 18), (64, 4096), (1000, 1000), (100, 10000),
          (16, 1 << 16), (4, 1 << 20)]


def main():
    rng = np.random.default_rng(1)
    for dtype in sys.argv[1:] or ["float64", "float32"]:
        for shape in SHAPES:
            x = rng.standard_normal(shape).astype(dtype)
            times = _wall_in_turns({"cured": lambda: cured.sum(x, axis=1, device="cpu"),
                                    "numpy": lambda: np.sum(x, axis=1)}, 30, 0.05)
            med = {k: statistics.median(v) * 1e6 for k, v in times.items()}
            print(f"{dtype} {shape}: cured {med['cured']:.1f} us, numpy {med['numpy']:.1f}, "
                  f"ratio {med['numpy'] / med['cured']:.2f}")


if __name__ == "__main__":
    main()
