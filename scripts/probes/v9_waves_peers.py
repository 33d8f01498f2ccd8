"""V9's grid of waves against PyTorch, CuPy and CUB on large 1-D sums, in turns: is the float64 row
where PyTorch leads V9 by 0.5 to 1% (issue 13's 1-D row, H100 and one H200, 2026-11-24) a matter of
V9's grid? V9's order does not depend on its grid (docs/v9.md), so forced grids of 1 to 4 whole waves
(`_cured._set_test_launch`) give the same bits. Device time, median of 30, the subjects of a length in
turns behind a wait (cured.axis_bench.times_in_turns). Prints a table; nothing reads it.

    python scripts/probes/v9_waves_peers.py
"""
import statistics
import time

import cupy as cp
import torch

import cured
from cured.axis_bench import times_in_turns
from turns import forced  # this directory

BLOCKS_AN_SM = {"float32": 4, "float64": 5}  # V9's kernel on sm_90 (docs/v9.md)


def main():
    info = cured.device_info()
    sms = info["multiprocessors"]
    print(f"{info['name']}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", flush=True)
    for dtype in ("float64", "float32"):
        for log2 in (26, 28, 30):
            x = cp.random.standard_normal(1 << log2, dtype=cp.float64).astype(dtype)
            t = torch.from_dlpack(x)
            one = cp.empty((), dtype)
            own = lambda: cured.sum(x, out=one)
            subjects = {"V9": own}
            for waves in (1, 2, 3, 4):
                subjects[f"V9 {waves} waves"] = forced(waves * BLOCKS_AN_SM[dtype] * sms, own)
            subjects.update({"torch": lambda: torch.sum(t), "cupy": lambda: cp.sum(x),
                             "CUB": lambda: cured.sum(x, out=one, version="cub")})
            times = {k: statistics.median(v) for k, v in times_in_turns(subjects, 30, 3).items()}
            best = min(times["torch"], times["cupy"])
            print(f"{dtype} 2^{log2}: " + ", ".join(f"{k} {v * 1e6:.1f} us" for k, v in times.items())
                  + "; faster peer / V9 " + " ".join(f"{'own' if k == 'V9' else k[3:]} {best / times[k]:.4f}"
                                                     for k in times if k.startswith("V9")), flush=True)
            del x, t, subjects
            cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
