"""Packed rows of 2 read one vector a thread or eight (kernels/v9_axis.cu, sum_packed_rows): the same
build of cured made to assume a GPU whose memory moves 3 or 5 TB/s (`_set_test_memory_bandwidth`),
which picks the one or the other on any GPU, in turns with CuPy's sum along 1, device time. Rows
of 4 float32 (one row a vector, a quarter of the bytes written: always 8 a thread) are the
control; so, since 2026-11-28, are rows whose sums are wider than their elements (int8, int16 and
float32 into float64: one vector a thread whatever the memory's speed), whose two subjects are then
one walk. Every subject's output is compared with the CPU model's bits. A probe for the kernel's
header; nothing reads it.

    python scripts/probes/packed_rows_ab.py
"""
import time

import cupy as cp
import numpy as np

import cured
from turns import print_medians, times_in_turns  # this directory

ROUNDS = 25
CASES = [("float64", None, 1 << 27, 2), ("float32", None, 1 << 27, 2), ("float32", "float64", 1 << 27, 2),
         ("float16", None, 1 << 28, 2), ("int8", None, 1 << 28, 2), ("int16", None, 1 << 27, 4),
         ("float32", None, 1 << 26, 4)]


def assuming(bandwidth, fn):
    def run():
        cured._cured._set_test_memory_bandwidth(bandwidth)
        try:
            return fn()
        finally:
            cured._cured._set_test_memory_bandwidth(0)
    return run


def main():
    info = cured.device_info()
    print(f"{info['name']}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, memory "
          f"{info['peak_bandwidth_bytes_per_s'] / 1e12:.2f} TB/s by its clock and bus", flush=True)
    rng = cp.random.default_rng(2026)
    for dtype, acc, rows, r in CASES:
        if dtype.startswith("int"):
            x = rng.integers(-100, 100, (rows, r), dtype=dtype)
        else:
            x = rng.standard_normal((rows, r), dtype="float64" if dtype == "float64" else "float32").astype(dtype)
        want = cured.sum(x.get(), axis=1, dtype=acc, device="cpu")
        out = cp.empty(rows, want.dtype)
        subjects = {"cupy rows": lambda: x.sum(axis=1, dtype=acc)}
        for tb in (3, 5):
            fn = assuming(tb * 10**12, lambda: cured.sum(x, axis=1, dtype=acc, out=out))
            fn()
            same = out.get().tobytes() == want.tobytes()
            print(f"  assuming {tb} TB/s: bits equal to the CPU model's: {same}", flush=True)
            subjects[f"cured, {tb} TB/s assumed"] = fn
        nbytes = x.nbytes + out.nbytes
        print(f"{dtype} into {want.dtype} ({rows}, {r}) along 1, {nbytes / 2**30:.2f} GiB moved:", flush=True)
        times = times_in_turns(subjects, subjects["cupy rows"], ROUNDS)
        print_medians(times, nbytes, "cupy rows")
        del x, out, subjects
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
