"""V9's grid at large lengths: the automatic grid against forced grids of one, two and three waves,
and CUB, in one process. Usage: python scripts/probes/v9_grid_waves.py (docs/v9.md has the results).

The forced grids are waves on the H200 (132 SMs): V9's float32 kernel fits 4 blocks an SM (528
blocks a wave), its float64 kernel 5 (660); on another GPU, change WAVES."""
import statistics

import numpy as np

import cured
from cured import _cured

WAVES = {"float32": (528, 1056, 1584), "float64": (660, 1320, 1980)}

peak = cured.device_info()["peak_bandwidth_bytes_per_s"]
medians = {}
for _round in range(2):
    for dtype, grids in WAVES.items():
        for log2 in (26, 28, 30):
            x = np.ones(1 << log2, dtype=dtype)
            for grid in (0, *grids, "cub"):  # 0: the automatic grid
                _cured._set_test_launch(0 if grid == "cub" else grid, 0)
                try:
                    run = _cured.bench(x, "cub" if grid == "cub" else 9, 20, 3, 0)
                finally:
                    _cured._set_test_launch(0, 0)
                medians.setdefault((dtype, log2, grid), []).append(statistics.median(run["seconds"]))
for (dtype, log2, grid), times in medians.items():
    m = statistics.median(times)
    fraction = (1 << log2) * np.dtype(dtype).itemsize / m / peak
    print(f"{dtype} 2^{log2} grid {grid!s:>5}: {m * 1e6:8.1f} us {100 * fraction:5.1f}% of peak"
          f"  rounds {' '.join(f'{t * 1e6:.1f}' for t in times)}")
