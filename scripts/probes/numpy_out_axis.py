"""A sum along axes into a NumPy out= the caller keeps across calls: wall time (time.perf_counter
around the call), median of the rounds, the subjects in turns each round. `cured.sum(x, axis,
out=o)` now writes the results into o itself (module_axes.c's results_array) where it was a new array
and np.copyto; the probe times that path against the same call through a new array and a copy
(what it did before, `np.copyto(o, cured.sum(x, axis))`), CuPy's `x.sum(axis).get(out=o)` and,
for host input, `numpy.sum(x, axis, out=o)`. A probe for the README's out= sentence; it prints,
nothing reads it.

    python scripts/probes/numpy_out_axis.py [ROUNDS]
"""
import time

import cupy
import numpy as np

import cured
from axis_results_fetch import in_turns  # this folder; it reads ROUNDS from the same argument


def main():
    print(cured.device_info()["name"], time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), cured._cured.__file__,
          flush=True)
    for shape, axis, dtype in [((2**20, 16), 1, "float32"), ((2**24, 16), 1, "float32"), ((2**26, 4), 1, "float32"),
                               ((2**24, 8), 1, "float64"), ((4096, 4096), 0, "float32"), ((16, 2**22), 0, "float32")]:
        d = cupy.random.standard_normal(shape, dtype=np.float32).astype(dtype)
        o = np.empty(d.sum(axis=axis).shape, dtype)
        direct = cured.sum(d, axis=axis, out=o).copy()
        assert np.array_equal(direct, cured.sum(d, axis=axis))
        medians = in_turns({"out=": lambda: cured.sum(d, axis=axis, out=o),
                            "new + copyto": lambda: np.copyto(o, cured.sum(d, axis=axis)),
                            "cupy .get(out=)": lambda: d.sum(axis=axis).get(out=o)})
        line = "  ".join(f"{name} {m * 1e3:8.3f} ms" for name, m in medians.items())
        print(f"device {str(shape):<14} axis {axis} {dtype:<8} {line}  before / now "
              f"{medians['new + copyto'] / medians['out=']:.2f}", flush=True)
        x = d.get()
        del d
        medians = in_turns({"out=": lambda: cured.sum(x, axis=axis, out=o),
                            "new + copyto": lambda: np.copyto(o, cured.sum(x, axis=axis)),
                            "numpy out=": lambda: np.sum(x, axis=axis, out=o)})
        line = "  ".join(f"{name} {m * 1e3:8.3f} ms" for name, m in medians.items())
        print(f"host   {str(shape):<14} axis {axis} {dtype:<8} {line}  before / now "
              f"{medians['new + copyto'] / medians['out=']:.2f}", flush=True)


if __name__ == "__main__":
    main()
