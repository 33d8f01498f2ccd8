"""The wall time of small host sums along axes: cured.sum's C route (module_numpy_sum.c's axes_route: a NumPy
array, axis= None or ints, keepdims= a bool, a dtype= that casts no element, initial=, a NumPy out=
of the result's dtype) against the same call through cured/numpy_sum.py's Python path (keepdims= a
NumPy bool sends it there) and numpy.sum, in turns in one process, on the CPU (device="cpu": no GPU
needed). Prints a table of the best of 7 medians; nothing reads it.

    python scripts/probes/axis_call_cost.py
"""
import platform
import statistics
import time
import timeit

import numpy as np

import cured

CASES = [((8, 8), 0, {}), ((64, 64), 0, {}), ((64, 64), 1, {}), ((1000,), 0, {}), ((16, 16, 16), (0, 2), {}),
         ((256, 256), 0, {}), ((256, 256), 1, {}), ((64, 64), 1, {"keepdims": True}),
         ((64, 64), None, {"keepdims": True}), ((64, 64), 0, {"dtype": np.dtype("float64")}),
         ((64, 64), 0, {"out": True}), ((64, 64), 0, {"initial": 1}), ((256, 256), 1, {"dtype": np.dtype("int16")})]
DTYPES = ["float32", "float64", "int32"]
CALLS, ROUNDS = 2000, 7


def main():
    print(f"{platform.processor() or platform.machine()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"best of {ROUNDS} rounds of {CALLS} calls each, in turns")
    print("| shape, axis, keywords | dtype | C route us | Python path us | numpy.sum us | numpy / C route |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    rng = np.random.default_rng(2026)
    for shape, axis, asked in CASES:
        for dtype in DTYPES:
            x = (rng.standard_normal(shape) * 100).astype(dtype)
            if "dtype" in asked and asked["dtype"].kind in "iu" and np.dtype(dtype).kind == "f":
                continue  # a cast of each element: Python's path
            kwargs = dict(asked)
            if "out" in kwargs:
                kwargs["out"] = np.empty_like(np.sum(x, axis=axis))
            keepdims = kwargs.pop("keepdims", False)
            subjects = {"route": lambda: cured.sum(x, axis=axis, keepdims=keepdims, device="cpu", **kwargs),
                        "python": lambda: cured.sum(x, axis=axis, keepdims=np.bool_(keepdims), device="cpu", **kwargs),
                        "numpy": lambda: np.sum(x, axis=axis, keepdims=keepdims, **kwargs)}
            assert np.asarray(subjects["route"]()).tobytes() == np.asarray(subjects["python"]()).tobytes()
            best = {name: float("inf") for name in subjects}
            for _ in range(ROUNDS):
                for name, fn in subjects.items():
                    best[name] = min(best[name], statistics.median(timeit.repeat(fn, number=CALLS // 10, repeat=10))
                                     / (CALLS // 10))
            shown = ", ".join(f"{k}={'out' if k == 'out' else v}" for k, v in asked.items())
            print(f"| {shape} axis {axis}{', ' + shown if shown else ''} | {dtype} | {best['route'] * 1e6:.2f} | {best['python'] * 1e6:.2f} | "
                  f"{best['numpy'] * 1e6:.2f} | {best['numpy'] / best['route']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
