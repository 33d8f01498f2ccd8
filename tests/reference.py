"""What the tests compare cured with: random inputs, exact references and the float error bound.

The error bound (also in README, "Accuracy"). A version reduces n elements in passes; in one pass an
element meets at most (elements a thread - 1) additions in its thread's register and log2(threads)
in the block's tree, so along its path to the result it meets at most h additions, h summed over the
passes. V9 (tiles) is one such pass over each tile, its thread adding steps x 8 x (elements a
vector) elements from 0, then one over the tiles' partials, ceil(tiles / 256) a thread. Each addition in the accumulator (unit roundoff u: 2^-24 for float32, 2^-53 for float64)
and the conversion into it round once, so (Higham, Accuracy and Stability of Numerical Algorithms,
section 4.2)

    |computed - exact| <= gamma(h + 1) * sum(|x|),   gamma(k) = k*u / (1 - k*u).

A float16 result is the float32 accumulator rounded once more (u = 2^-11).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

import cured

DTYPES = [np.dtype(t) for t in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64")]
LENGTHS = [0, 1, 2, 31, 32, 33, 255, 256, 257, 511, 512, 513, 32767, 32768, 32769, 2**20 + 3, 2**25]
UNIT_ROUNDOFF = {np.dtype("float16"): 2.0**-11, np.dtype("float32"): 2.0**-24, np.dtype("float64"): 2.0**-53}


def random_array(seed: int, dtype: np.dtype, n: int) -> np.ndarray:
    """Fresh random data for (seed, dtype, n): integers over their whole range (so sums wrap as
    NumPy's do), floats standard normal (mixed signs, never zeros)."""
    rng = np.random.default_rng([seed, DTYPES.index(dtype), n])
    if dtype.kind == "b":
        return rng.random(n) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    return rng.standard_normal(n).astype(dtype)


@lru_cache(maxsize=2)
def cached_case(seed: int, dtype: np.dtype, n: int):
    """The input, its exact sum (floats: correctly rounded to float64) and sum(|x|)."""
    x = random_array(seed, dtype, n)
    if dtype.kind == "f":
        wide = x.astype(np.float64)
        return x, math.fsum(wide), float(np.abs(wide).sum()) * (1 + 2.0**-40)
    return x, None, None


def additions_on_path(version: cured.Version, n: int, dtype=np.float32) -> int:
    """h: the most additions any element meets on its way to the result."""
    tree = int(math.log2(version.threads))
    if version.schedule == "tiles":  # a thread's elements from 0, the tree, then the partials likewise
        t = version.shape(n, dtype)
        h = t["steps"] * version.per_thread * t["vector"] + tree
        return h if t["tiles"] == 1 else h + -(-t["tiles"] // version.threads) + tree
    per_pass = version.elements_per_thread - 1 + tree
    h, count = 0, n
    while True:
        h += per_pass
        count = -(-count // version.elements_per_block)
        if count <= 1:
            return h


def error_bound(version: cured.Version, n: int, acc: np.dtype, result: np.dtype, exact: float, abs_sum: float,
                in_dtype=np.float32) -> float:
    """The largest |computed - exact| the bound above allows, plus the reference's own rounding."""
    u = UNIT_ROUNDOFF[np.dtype(acc)]
    k = additions_on_path(version, n, in_dtype) + 1
    bound = k * u / (1 - k * u) * abs_sum
    if np.dtype(result) == np.dtype("float16"):
        bound = bound * (1 + 2.0**-11) + 2.0**-11 * abs(exact)
    return bound + 2.0**-52 * abs(exact)


def same_bits(a: np.generic, b: np.generic) -> bool:
    """Bit-for-bit equality of two results of one dtype; any NaN equals any NaN (CPUs and GPUs
    make different NaN payloads)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f" and np.isnan(a) and np.isnan(b):
        return True
    return a.tobytes() == b.tobytes()


def check_against_numpy(version: cured.Version, x: np.ndarray, got: np.generic, exact, abs_sum, dtype=None) -> None:
    """Integers: exactly numpy.sum. Floats: within error_bound of the exact sum."""
    expected = np.sum(x, dtype=dtype)
    assert np.asarray(got).dtype == np.asarray(expected).dtype, (got, expected)
    if np.asarray(got).dtype.kind in "iu":
        assert got == expected, f"V{version.id}: {got!r} != numpy.sum {expected!r}"
        return
    acc = np.dtype("float32") if np.asarray(got).dtype == np.float16 else np.asarray(got).dtype
    bound = error_bound(version, x.size, acc, np.asarray(got).dtype, exact, abs_sum, x.dtype)
    error = abs(float(got) - exact)
    assert error <= bound, f"V{version.id}: |{float(got)!r} - {exact!r}| = {error} > bound {bound}"
