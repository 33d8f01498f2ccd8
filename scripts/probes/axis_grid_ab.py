"""Sums along axes under forced grids, in one process: is a step's grid what keeps it below V9?

The order of a sum along axes does not depend on the grid (axis.h), so every kernel of v9_axis.cu
may run with fewer blocks than it asks for, each thread then taking several units. For each case
(dtype:shape:axis, as axis_ncu.py), device time (CUDA events, median of REPEATS) of V9 on the flat
array and of the sum along the axis with its own grid and with each forced grid, taken in turns so
that the machine's drift falls on all alike; then, through PyTorch's profiler (CUPTI), each kernel's
time in one call with its own grid, which says what the follow-up launches cost outside Nsight
Compute's serialisation. Prints a table; nothing reads it.
Usage: python3 scripts/probes/axis_grid_ab.py [--grids x2,x3,396] [--breakdown K] CASES
"""
import argparse
import statistics
import time

import cupy as cp
import numpy as np
import torch

import cured
from turns import forced, times_in_turns  # this directory

REPEATS = 30


def kernel_breakdown(fn):
    fn()
    cp.cuda.Device().synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            fn()
        cp.cuda.Device().synchronize()
    per_kernel = {}
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            t = getattr(event, "device_time", None) or getattr(event, "cuda_time", 0.0)
            per_kernel.setdefault(event.name, []).append(t)
    # Launches a call and mean time of each (kernels of one template share a name).
    return {name: (len(ts) / 5, sum(ts) / len(ts)) for name, ts in per_kernel.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grids", default="x2,x3,x4,x6", help="blocks, or xK for K blocks an SM")
    parser.add_argument("--breakdown", type=int, default=2, help="forced grids profiled kernel by kernel")
    parser.add_argument("cases", nargs="+")
    args = parser.parse_args()
    sms = cured.device_info()["multiprocessors"]
    grids = [int(g[1:]) * sms if g.startswith("x") else int(g) for g in args.grids.split(",") if g]
    print(f"{cured.device_info()['name']}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    rng = cp.random.default_rng(2026)
    for case in args.cases:
        dtype, shape, axis = case.split(":")
        shape = tuple(int(e) for e in shape.split("x"))
        axis = tuple(int(a) for a in axis.split(",")) if "," in axis else int(axis)
        x = rng.standard_normal(shape, dtype=dtype)
        expected = cured.sum(x, axis=axis)
        out = cp.empty(expected.shape, dtype)
        flat, one = x.reshape(-1), cp.empty((), dtype)
        subjects = {"V9 flat": lambda: cured.sum(flat, out=one), "own grid": lambda: cured.sum(x, axis=axis, out=out)}
        for g in grids:
            subjects[f"grid {g}"] = forced(g, lambda: cured.sum(x, axis=axis, out=out))
        for name, fn in subjects.items():
            fn()
            if name != "V9 flat" and not np.array_equal(out.get().view(np.uint8), expected.view(np.uint8)):
                print(f"{case} {name}: MISMATCH")
        times = times_in_turns(subjects, lambda: cured.sum(flat, out=one), REPEATS)
        v9 = statistics.median(times["V9 flat"])
        cells = ", ".join(f"{name} {statistics.median(t) * 1e6:.1f} us ({v9 / statistics.median(t):.3f})"
                          for name, t in times.items() if name != "V9 flat")
        print(f"{case}: V9 flat {v9 * 1e6:.1f} us; {cells}", flush=True)
        for label, fn in [("V9 flat", subjects["V9 flat"]), ("own grid", subjects["own grid"])] + [
                (f"grid {g}", subjects[f"grid {g}"]) for g in grids[:args.breakdown]]:
            parts = kernel_breakdown(fn)
            print(f"  kernels, {label}: " + "; ".join(f"{n[:70]} x{c:g} {t:.1f} us" for n, (c, t) in parts.items()), flush=True)
        del x, out, flat
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
