"""The wall time of small sums of device arrays along axes: cured.sum's C route (module_numpy_sum.c's
device_axes_route) against the same call through cured/numpy_sum.py's Python path (keepdims= a NumPy
bool sends it there), and CuPy's and PyTorch's sums brought to the host as cured's results are
(`.get()`, `.cpu().numpy()`), in turns in one process. Prints a table of medians; nothing reads it.
Needs a GPU, CuPy and PyTorch.

    python scripts/probes/device_axis_cost.py
"""
import statistics
import time

import numpy as np

import cured
from cured.walltime import _wall_in_turns

CASES = [((64, 64), 0, {}), ((64, 64), 1, {}), ((1000, 3), 1, {}), ((256, 256), 0, {}),
         ((16, 16, 16), (0, 2), {}), ((64, 64), 1, {"keepdims": True}), ((64, 64), 0, {"initial": 1})]


def main():
    import cupy
    import torch
    print(f"{cured.device_info()['name']}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, median wall time")
    print("| shape, axis, keywords | library | C route us | Python path us | library's sum to host us |")
    print("| --- | --- | ---: | ---: | ---: |")
    rng = np.random.default_rng(2026)
    for shape, axis, asked in CASES:
        x = rng.standard_normal(shape).astype(np.float32)
        keepdims = asked.get("keepdims", False)
        extra = {k: v for k, v in asked.items() if k != "keepdims"}
        for library, d in (("cupy", cupy.asarray(x)), ("torch", torch.from_numpy(x).cuda())):
            if library == "cupy":
                native = lambda: cupy.sum(d, axis=axis, keepdims=keepdims).get()  # noqa: E731
            else:
                dim = axis if isinstance(axis, int) else tuple(axis)
                native = lambda: torch.sum(d, dim=dim, keepdim=keepdims).cpu().numpy()  # noqa: E731
            subjects = {"route": lambda: cured.sum(d, axis=axis, keepdims=keepdims, **extra),
                        "python": lambda: cured.sum(d, axis=axis, keepdims=np.bool_(keepdims), **extra),
                        "native": native}
            times = _wall_in_turns(subjects, 400, 1.0)
            med = {k: statistics.median(v) * 1e6 for k, v in times.items()}
            shown = ", ".join(f"{k}={v}" for k, v in asked.items())
            print(f"| {shape} axis {axis}{', ' + shown if shown else ''} | {library} | {med['route']:.1f} | "
                  f"{med['python']:.1f} | {med['native']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
