"""V10 against V9 and CUB, device time, on standard-normal and full-range data; and the CPU
implementation's throughput against math.fsum. A probe for tuning V10 (the record command,
python -m cured --record, writes the figures README uses)."""
import math
import sys
import time

import numpy as np

import cured

lengths = [1 << k for k in map(int, sys.argv[1].split(","))] if len(sys.argv) > 1 else [1 << k for k in (10, 12, 14, 16, 20, 24, 26, 28)]
print(cured.device_info()["name"])
for data in ("normal", "full_range"):
    for dtype in ("float32", "float64"):
        rows = cured.bench(versions=[9, 10, "cub"], lengths=lengths, dtype=dtype, end_to_end=False, data=data, repeats=10)
        for n in lengths:
            t = {r.version: r for r in rows if r.n == n}
            print(f"{data:>10} {dtype} 2^{n.bit_length() - 1:<2} V9 {t[9].time_median_s * 1e6:9.2f} us  V10 {t[10].time_median_s * 1e6:9.2f} us"
                  f"  CUB {t['cub'].time_median_s * 1e6:9.2f} us  V10 {t[10].bandwidth_gbs:7.0f} GB/s = {t[9].time_median_s / t[10].time_median_s:6.3f} of V9", flush=True)
for dtype in ("float32", "float64"):
    x = np.random.default_rng(0).standard_normal(1 << 24).astype(dtype)
    cured.fsum(x, device="cpu")
    start = time.perf_counter(); cured.fsum(x, device="cpu"); cpu = time.perf_counter() - start
    y = x[: 1 << 20].astype(np.float64).tolist()
    start = time.perf_counter(); math.fsum(y); fs = (time.perf_counter() - start) * 16
    print(f"CPU {dtype}: cured.fsum(device='cpu') {x.nbytes / cpu / 1e9:.2f} GB/s, math.fsum {x.nbytes / fs / 1e9:.3f} GB/s")
