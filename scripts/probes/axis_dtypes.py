"""Sums along axes of the dtypes off issue 13's list (integers, bool, float16), device time against
CuPy's and PyTorch's, to find shapes where cured trails (as int8 rows of 2 into int64 did, at 0.34
of CuPy, before 2026-11-27). Each subject in turns behind a wait (cured.axis_bench.times_in_turns);
cured writes into a device out= of NumPy's result dtype (float16 input: float16), CuPy and PyTorch
return theirs. Prints a table of medians and "best peer / cured"; nothing reads it.

    python scripts/probes/axis_dtypes.py [dtype ...]
"""
import statistics
import sys
import time

import cupy as cp
import numpy as np

import cured
from cured.axis_bench import times_in_turns

try:
    import torch
except ImportError:
    torch = None

N = 1 << 26
SHAPES = [((N // 2, 2), 1), ((N // 4, 4), 1), ((N // 8, 8), 1), ((N // 16, 16), 1), ((N // 64, 64), 1),
          ((N // 1024, 1024), 1), ((N // 16, 16), 0), ((N // 256, 256), 0), ((1 << 13, 1 << 13), 0),
          ((16, N // 16), 1), ((256, 256, N // 65536), (0, 2)), ((256, 256, N // 65536), 1)]
DTYPES = sys.argv[1:] or ["int8", "uint8", "int16", "int32", "int64", "bool", "float16", "float32"]


def main():
    print(cured.device_info()["name"], time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), flush=True)
    print("| dtype | shape, axis | cured us | cupy us | torch us | best peer / cured |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    rng = cp.random.default_rng(2026)
    for dtype in DTYPES:
        for shape, axis in SHAPES:
            if dtype == "bool":
                x = rng.integers(0, 2, shape, dtype=cp.int8).astype(cp.bool_)
            elif dtype.startswith(("int", "uint")):
                x = rng.integers(0, 100, shape, dtype=dtype)
            else:
                x = rng.standard_normal(shape, dtype=cp.float32).astype(dtype)
            want = np.sum(x.get(), axis=axis)
            out = cp.empty(want.shape, want.dtype)
            subjects = {"cured": lambda: cured.sum(x, axis=axis, out=out), "cupy": lambda: cp.sum(x, axis=axis)}
            if torch is not None:
                t = torch.from_dlpack(x)
                dim = list(axis) if isinstance(axis, tuple) else axis
                subjects["torch"] = lambda: torch.sum(t, dim=dim)
            cured.sum(x, axis=axis, out=out)
            if want.dtype.kind in "iub" and not np.array_equal(out.get(), want):
                raise RuntimeError(f"cured disagrees with NumPy: {dtype} {shape} {axis}")
            times = {k: statistics.median(v) for k, v in times_in_turns(subjects, 12, 2).items()}
            best = min(v for k, v in times.items() if k != "cured")
            flag = "  <--" if best / times["cured"] < 0.95 else ""
            print(f"| {dtype} | {shape} axis {axis} | {times['cured'] * 1e6:.1f} | {times['cupy'] * 1e6:.1f} | "
                  f"{times.get('torch', float('nan')) * 1e6:.1f} | {best / times['cured']:.2f}{flag} |", flush=True)
            del x, out, subjects
            cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
