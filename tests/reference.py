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


# ---- the exact sum, for V10 ------------------------------------------------------------------------
# Written with Python integers and nothing of cured's: every finite float is an integer times a power
# of two, so the elements add exactly as integers in units of 2^-1074, and the total is rounded once,
# by hand, to nearest with ties to even. (math.fsum rounds to float64; rounding that again to
# float32 or float16 is a double rounding, which can be wrong.)

FORMATS = {np.dtype("float16"): (11, 15), np.dtype("float32"): (24, 127), np.dtype("float64"): (53, 1023)}


def exact_units(x: np.ndarray) -> int:
    """The exact sum of the finite elements of x, in units of 2^-1074 (a Python int)."""
    x = np.asarray(x).ravel()
    if x.dtype.kind in "biu":
        return int(sum(int(v) for v in x.tolist())) << 1074
    wide = x.astype(np.float64)  # exact for float16 and float32
    wide = wide[np.isfinite(wide)]
    bits = wide.view(np.uint64)
    exponent = ((bits >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    mantissa = (bits & np.uint64((1 << 52) - 1)).astype(np.int64) | ((exponent != 0).astype(np.int64) << 52)
    signed = np.where(bits >> np.uint64(63) != 0, -mantissa, mantissa)
    position = np.maximum(exponent, 1) - 1  # value = signed x 2^(position - 1074)
    order = np.argsort(position, kind="stable")
    position, signed = position[order], signed[order]
    high = signed >> 26  # signed = high x 2^26 + low, 0 <= low < 2^26: both sums fit in int64
    low = signed - (high << 26)
    starts = np.flatnonzero(np.r_[True, position[1:] != position[:-1]]) if position.size else np.array([], int)
    total = 0
    for at, hi, lo in zip(position[starts], np.add.reduceat(high, starts) if starts.size else [],
                          np.add.reduceat(low, starts) if starts.size else []):
        total += ((int(hi) << 26) + int(lo)) << int(at)
    return total


def round_units(units: int, dtype) -> float:
    """units x 2^-1074 rounded once, to nearest with ties to even, to dtype's precision and range;
    returned as a Python float holding that value (inf beyond the range)."""
    precision, max_exponent = FORMATS[np.dtype(dtype)]
    if units == 0:
        return 0.0
    magnitude = abs(units)
    top = magnitude.bit_length() - 1 - 1074  # the exponent of the highest bit
    ulp = max(top - (precision - 1), (2 - max_exponent - 1) - (precision - 1))  # not below the subnormals'
    drop = ulp + 1074
    if drop <= 0:
        q = magnitude << -drop
    else:
        q, rest = magnitude >> drop, magnitude & ((1 << drop) - 1)
        half = 1 << (drop - 1)
        if rest > half or (rest == half and q & 1):
            q += 1
    if q and q.bit_length() - 1 + ulp > max_exponent:
        value = math.inf
    else:
        value = math.ldexp(q, ulp) if q else 0.0
    return -value if units < 0 else value


def exact_sum(x: np.ndarray, dtype) -> np.generic:
    """The correctly rounded sum of x in float `dtype`, with IEEE's NaN, infinities and -0.0."""
    x = np.asarray(x).ravel()
    dtype = np.dtype(dtype)
    if x.dtype.kind == "f":
        if np.isnan(x).any() or (np.isposinf(x).any() and np.isneginf(x).any()):
            return dtype.type(np.nan)
        if np.isinf(x).any():
            return dtype.type(np.inf if np.isposinf(x).any() else -np.inf)
    units = exact_units(x)
    if units == 0:
        all_negative_zero = x.size > 0 and x.dtype.kind == "f" and bool(np.signbit(x).all())
        return dtype.type(-0.0 if all_negative_zero else 0.0)
    return dtype.type(round_units(units, dtype))
