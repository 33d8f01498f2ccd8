"""Row sums (numpy.sum along the last axis) on the GPU: cured's row kernels against PyTorch and CuPy.

Device time (CUDA events, median of 20 after 3 warm-ups) of cured.sum(x, axis=-1, out=...) on CuPy
input, beside torch.sum(dim=-1), cupy.sum(axis=-1) and V9 on the flat array of the same bytes, for
rows of 2 to 4096 elements; then the host time of one call of each (a loop of 2000 calls, the
median, no waiting), which bounds the device time of calls that queue less work than that.
Prints a table; nothing reads it. Usage: python3 scripts/probes/axis_rows.py [float32|float64 ...]
(For the kernel header's comparison, the run of 2026-11-22 13:32 UTC also forced each row shape
through the warp-a-segment kernel and the packed rows through the side-by-side one, by switches in
the launcher that were taken out after it.)
"""
import statistics
import sys
import time

import cupy as cp
import numpy as np
import torch

import cured
from cured.axis_bench import times_in_turns

SHAPES = [(1 << 27, 2), (1 << 26, 4), (1 << 24, 16), (1 << 22, 64), (1 << 21, 128), (1 << 20, 256),
          (1 << 19, 512), (1 << 18, 1024), (4096, 4096), (1 << 14, 1 << 14)]


def host_time(fn, calls=2000):
    fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    cp.cuda.Device().synchronize()
    return statistics.median(times)


def main():
    dtypes = sys.argv[1:] or ["float32", "float64"]
    print(f"{cured.device_info()['name']}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print("| dtype | shape | bits | cured GB/s | torch | cupy | V9 flat | cured / best peer |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for dtype in dtypes:
        for shape in SHAPES:
            x = cp.random.standard_normal(shape, dtype=cp.float64).astype(dtype)
            t = torch.from_dlpack(x)
            out = cp.empty(shape[0], dtype)
            flat = cp.empty((), dtype)
            nbytes = x.nbytes
            subjects = {"torch": lambda: torch.sum(t, dim=-1), "cupy": lambda: cp.sum(x, axis=-1),
                        "V9": lambda: cured.sum(x.reshape(-1), out=flat),
                        "cured": lambda: cured.sum(x, axis=-1, out=out)}
            gbs = {k: nbytes / statistics.median(ts) / 1e9 for k, ts in times_in_turns(subjects, 20, 3).items()}
            model = cured.sum(x[:64].get(), axis=-1, device="cpu")
            got = cured.sum(x[:64], axis=-1)
            same = np.array_equal(got.view(np.uint8), model.view(np.uint8))
            g = gbs["cured"]
            best = max(gbs["torch"], gbs["cupy"])
            print(f"| {dtype} | {shape} | {'' if same else 'MISMATCH'} | {g:.0f} | {gbs['torch']:.0f} | "
                  f"{gbs['cupy']:.0f} | {gbs['V9']:.0f} | {g / best:.2f} |", flush=True)
            del x, t, out
            cp.get_default_memory_pool().free_all_blocks()
            torch.cuda.empty_cache()
    x = cp.random.standard_normal((4096, 4096), dtype=cp.float32)
    out = cp.empty(4096, cp.float32)
    t = torch.from_dlpack(x)
    print("host time of one call, (4096, 4096) float32 along axis 1, us: "
          f"cured {host_time(lambda: cured.sum(x, axis=1, out=out)) * 1e6:.1f}, "
          f"torch {host_time(lambda: torch.sum(t, dim=1)) * 1e6:.1f}, "
          f"cupy {host_time(lambda: cp.sum(x, axis=1)) * 1e6:.1f}, "
          f"cured flat {host_time(lambda: cured.sum(x.reshape(-1), out=out[:1].reshape(()))) * 1e6:.1f}")


if __name__ == "__main__":
    main()
