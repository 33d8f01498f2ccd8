"""V10's device time under forced grids (cured._cured._set_test_launch), in turns, against its own
grid and V9's: how many blocks small and middling lengths want. A probe for docs/ and the kernel's
header; it prints, nothing reads it.

    python scripts/probes/v10_grid_ab.py 13,14,16,20,21,22 1,2,4,132,264 [float64]
"""
import sys

import cured

lengths = [1 << int(k) for k in sys.argv[1].split(",")] if len(sys.argv) > 1 else [1 << k for k in (13, 14, 15, 16, 21)]
grids = [int(g) for g in sys.argv[2].split(",")] if len(sys.argv) > 2 else [1, 2, 4]
dtypes = sys.argv[3].split(",") if len(sys.argv) > 3 else ["float32", "float64"]
print(cured.device_info()["name"], "grids", grids, "(0: V10's own)")
for dtype in dtypes:
    for data in ("normal", "full_range"):
        for n in lengths:
            times = {}
            for turn in range(3):
                for grid in [0] + grids:
                    cured._cured._set_test_launch(grid, 0)
                    try:
                        rows = cured.bench(versions=[9, 10] if grid == 0 else [10], lengths=[n], dtype=dtype,
                                           end_to_end=False, data=data, repeats=20)
                    finally:
                        cured._cured._set_test_launch(0, 0)
                    for r in rows:
                        times.setdefault(f"V{r.version}" if grid == 0 else f"g{grid}", []).append(r.time_median_s * 1e6)
            line = "  ".join(f"{k} {min(v):7.2f}" for k, v in times.items())
            print(f"{dtype} {data:>10} 2^{n.bit_length() - 1:<2} {line}  (us, best of 3 medians)", flush=True)
