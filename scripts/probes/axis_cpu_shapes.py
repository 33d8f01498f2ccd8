"""Host sums along axes on the CPU (device="cpu": csrc/cpu_axis.c, and cpu_tiles.c for axis=None)
against numpy.sum, wall time of the whole call, in turns in one process, over a grid of small and
middling shapes, every axis combination, and ten dtypes. Prints each case where cured took longer
than numpy.sum, and how many did; with --all every case. No GPU needed; nothing reads it.

    python scripts/probes/axis_cpu_shapes.py [--all] [dtype,dtype,...]
"""
import itertools
import os
import platform
import statistics
import sys
import time

import numpy as np

import cured
from cured.walltime import _wall_in_turns

SHAPES = [(1000,), (64, 64), (256, 256), (1024, 1024), (2048, 3), (3, 2048), (16, 16, 16), (64, 64, 64),
          (2**16, 2), (2, 2**16), (100, 100, 10), (10000, 10), (10000, 3)]
DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint32", "float16", "float32", "float64"]


def axes_of(ndim):
    yield None
    yield from range(ndim)
    for r in range(2, ndim):
        yield from itertools.combinations(range(ndim), r)


def main():
    show_all = "--all" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--all"]
    dtypes = args[0].split(",") if args else DTYPES
    print(f"{platform.processor() or platform.machine()}, {len(os.sched_getaffinity(0))} CPUs, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; median of 30 calls each, in turns")
    rng = np.random.default_rng(2026)
    rows = []
    for dtype in dtypes:
        for shape in SHAPES:
            if dtype == "bool":
                x = rng.random(shape) < 0.5
            elif np.dtype(dtype).kind in "iu":
                x = rng.integers(0, 100, shape).astype(dtype)
            else:
                x = rng.standard_normal(shape).astype(dtype)
            for axis in axes_of(len(shape)):
                times = _wall_in_turns({"cured": lambda: cured.sum(x, axis=axis, device="cpu"),
                                        "numpy": lambda: np.sum(x, axis=axis)}, 30, 0.05)
                med = {k: statistics.median(v) for k, v in times.items()}
                rows.append((med["numpy"] / med["cured"], dtype, shape, axis, med["cured"], med["numpy"]))
    rows.sort(key=lambda r: r[0])
    print("| numpy / cured | dtype | shape | axis | cured us | numpy.sum us |")
    print("| ---: | --- | --- | --- | ---: | ---: |")
    for ratio, dtype, shape, axis, ours, theirs in rows:
        if show_all or ratio < 1:
            print(f"| {ratio:.2f} | {dtype} | {shape} | {axis} | {ours * 1e6:.1f} | {theirs * 1e6:.1f} |")
    slower = sum(1 for r in rows if r[0] < 1)
    print(f"{slower} of {len(rows)} cases slower than numpy.sum; median ratio {statistics.median(r[0] for r in rows):.2f}")


if __name__ == "__main__":
    main()
