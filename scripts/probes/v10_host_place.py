"""Host arrays under V10: where the exact sum is faster, the CPU (exact_cpu.c on the pool's threads)
or the GPU path (the copy to the device, then v10_exact.cu). Wall time of cured.fsum(x,
device="cpu") and device="gpu", standard-normal float32 and float64, 2^10 to 2^28 elements, beside
V9's CPU and GPU paths and numpy.sum; medians of up to 2000 calls within the budget. Decides
whether device="auto" should send V10's host input to the CPU (module_sum.c auto_picks_cpu). Prints a
table; nothing reads it. --cpus K holds the process to its first K CPUs (before the pool's threads
start, which inherit it); --to E stops at 2^E elements.
Usage: python3 scripts/probes/v10_host_place.py [--cpus K] [--to E] [--budget SECONDS]
"""
import argparse
import os
import sys

import numpy as np

import cured

sys.path.insert(0, os.path.dirname(__file__))
from host_baseline import wall  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cpus", type=int)
    parser.add_argument("--to", type=int, default=28)
    parser.add_argument("--budget", type=float, default=0.2)
    args = parser.parse_args()
    if args.cpus:
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:args.cpus])
    budget = args.budget
    print(f"{os.uname().nodename}: {len(os.sched_getaffinity(0))} CPUs; {cured.device_info()}")
    print("median wall us; GB/s in brackets")
    for dtype in ("float32", "float64"):
        print(f"\n{dtype}\n| length | V10 cpu | V10 gpu | cpu/gpu time | V9 cpu | V9 gpu | numpy.sum |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for log2 in range(10, args.to + 1, 2):
            x = np.random.default_rng(log2).standard_normal(1 << log2).astype(dtype)
            cells = [wall(lambda: cured.fsum(x, device=place), budget) for place in ("cpu", "gpu")]
            cells += [wall(lambda: cured.sum(x, device=place), budget) for place in ("cpu", "gpu")]
            cells.append(wall(lambda: np.sum(x), budget))
            text = [f"{c * 1e6:.1f} ({x.nbytes / c / 1e9:.1f})" for c in cells]
            text.insert(2, f"{cells[0] / cells[1]:.2f}")
            print(f"| 2^{log2} | " + " | ".join(text) + " |", flush=True)


if __name__ == "__main__":
    main()
