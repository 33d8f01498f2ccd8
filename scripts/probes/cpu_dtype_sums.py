"""Whole sums of host arrays into a dtype= other than the input's default accumulator, on the CPU
(device="cpu": csrc/cpu_tiles.c), against numpy.sum with the same dtype=, wall time of the whole
call, in turns in one process: integers into narrower integers (NumPy sums in the result's dtype,
wrapping), integers and float16 into float64. Prints a line a case and the cases slower than
numpy.sum; nothing reads it. No GPU needed.

    python scripts/probes/cpu_dtype_sums.py [low_exponent high_exponent]
"""
import statistics
import sys

import numpy as np

import cured
from cured.walltime import _wall_in_turns

CASES = [("int32", "int32"), ("int16", "int16"), ("uint8", "int8"), ("int8", "int16"), ("bool", "int16"),
         ("bool", "int32"), ("uint16", "uint32"), ("int64", "int32"), ("int32", "int64"), ("int16", "float64"),
         ("float16", "float64")]


def main():
    low, high = (int(a) for a in sys.argv[1:3]) if len(sys.argv) > 2 else (10, 22)
    rng = np.random.default_rng(1)
    slower = []
    for exponent in range(low, high + 1, 2):
        for source, into in CASES:
            x = rng.integers(-100, 100, 1 << exponent).astype(source)
            dtype = np.dtype(into)
            assert cured.sum(x, dtype=dtype, device="cpu") == np.sum(x, dtype=dtype)
            times = _wall_in_turns({"cured": lambda: cured.sum(x, dtype=dtype, device="cpu"),
                                    "numpy": lambda: np.sum(x, dtype=dtype)}, 200, 0.3)
            med = {k: statistics.median(v) * 1e6 for k, v in times.items()}
            ratio = med["numpy"] / med["cured"]
            line = f"{source} -> {into} 2^{exponent}: cured {med['cured']:.2f} us, numpy {med['numpy']:.2f}, ratio {ratio:.2f}"
            print(line, flush=True)
            if ratio < 1:
                slower.append(line)
    print(f"slower than numpy.sum: {len(slower)} of {len(CASES) * len(range(low, high + 1, 2))}")
    for line in slower:
        print("  " + line)


if __name__ == "__main__":
    main()
