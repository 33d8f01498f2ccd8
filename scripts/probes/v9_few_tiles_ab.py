"""V9 at 2 to 4 tiles: its one-block kernel (the default launch) against its ticket kernel (a forced
grid, which always takes the ticket kernel), and CUB, in one process, three interleaved rounds.
Usage: python scripts/probes/v9_few_tiles_ab.py (docs/v9.md has the results)."""
import statistics

import numpy as np

import cured
from cured import _cured

MODES = ("default", "ticket", "cub")
min_bytes = 4 * cured.device_info()["l2_cache_bytes"]  # as python -m cured: inputs rotated past the L2
medians = {}
for _round in range(3):
    for dtype in ("float32", "float64"):
        for log2 in range(10, 18):
            x = np.random.default_rng(log2).standard_normal(1 << log2).astype(dtype)
            for mode in MODES:
                _cured._set_test_launch(528 if mode == "ticket" else 0, 0)
                try:
                    run = _cured.bench(x, "cub" if mode == "cub" else 9, 200, 20, min_bytes)
                finally:
                    _cured._set_test_launch(0, 0)
                medians.setdefault((dtype, log2, mode), []).append(statistics.median(run["seconds"]) * 1e6)
for dtype in ("float32", "float64"):
    for log2 in range(10, 18):
        m = {mode: statistics.median(medians[(dtype, log2, mode)]) for mode in MODES}
        rounds = " | ".join(" ".join(f"{t:.2f}" for t in medians[(dtype, log2, mode)]) for mode in MODES[:2])
        print(f"{dtype} 2^{log2}: default {m['default']:.2f} us  ticket {m['ticket']:.2f} us  cub {m['cub']:.2f} us"
              f"  (rounds: {rounds})")
