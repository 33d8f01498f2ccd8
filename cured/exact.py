"""cured.fsum: the correctly rounded sum (V10), and the exact partial sums it is made of.

    >>> import numpy as np, cured
    >>> x = np.array([3e38, 3e38, -3e38], dtype=np.float32)
    >>> cured.fsum(x)                         # no intermediate overflow
    np.float32(3e+38)
    >>> halves = cured.fsum_state(x[:2]) + cured.fsum_state(x[2:])
    >>> halves.round(np.float32) == cured.fsum(x)   # pieces summed anywhere, the same bits
    True

V10 keeps every bit of every element and rounds once, to nearest with ties to even, so there is one
answer, whichever GPU, grid, chunking of host input or the CPU computes it (csrc/kernels/v10_exact.cu).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import math
import time

import numpy as np

from . import _cured
from .results import Row, timing_row

#: The exact version's id in the registry.
EXACT_VERSION: int = 10

_LIMBS: int = _cured.EXACT_LIMBS
_UNIT_EXP: int = _cured.EXACT_UNIT_EXP
_STATE_BYTES: int = 8 * _LIMBS + 8


def fsum(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    keepdims: bool = False,
    *,
    device: Literal["auto", "gpu", "cpu"] = "auto",
    timing: bool = False,
) -> Any:
    """The exact sum of all elements of `a`, rounded once: math.fsum's answer, for arrays.

    cured.sum(a, axis, dtype, out, keepdims, version=10, ...) with cured.sum's arguments. Along axes
    (axis= other than None) each output is correctly rounded: device arrays on their GPU
    (kernels/v10_axis.cu), host arrays on the CPU ("auto" or "cpu"). The real sum of the elements
    is rounded once, to nearest with ties to even, into the result dtype (NumPy's: float32 for float16
    and float32 input, float64 for float64 input; float16 input returns float16, rounded once to
    float16, never through float32). There is no intermediate overflow: [3e38, 3e38, -3e38] in
    float32 sums to 3e38. IEEE's rules for the rest: a NaN, or +inf with -inf, gives NaN; an exact
    sum beyond the dtype's range rounds to +-inf; the sum is -0.0 only when every element is -0.0.
    Exact for fewer than 2^64 elements (every length memory can hold). Integer input with an integer
    result is exact already and wraps modulo 2^64 as numpy.sum's; with dtype=float32 or float64 it
    is rounded once too.

    The GPU, the CPU (device="cpu") and every grid and chunking give the same bits: there is only
    one correctly rounded sum. device="auto" (the default, as cured.sum's) sums device arrays on
    their GPU, and a host array on the CPU's threads (exact_cpu.c) where that was measured faster
    than the copy to the device: up to 4096 elements, and from 2^17 + 1 to 2^21 where the process
    may use 16 CPUs or more; the others on the GPU, which read them at 39 to 51 GB/s from 2^26
    elements where 16 CPU threads reached 15 to 32 (wall time, H100 and H200 hosts, 2026-11-23).
    Like every "auto", it needs a GPU.
    """
    from . import sum as cured_sum

    return cured_sum(a, axis, dtype, out, keepdims, version=EXACT_VERSION, device=device, timing=timing)


@dataclass(frozen=True)
class ExactSum:
    """An exact partial sum: what a piece of an array sums to, with no rounding yet.

    Add partial sums of pieces (in any order, on any GPU or host, pickled through Dask or sent
    between processes) and round the total once: the bits are those of one cured.fsum over the
    whole array. `value` is the exact sum in units of 2^-1074 (every float16, float32, float64 and
    integer is a whole number of them); `flags` carries what an integer cannot: NaN, infinities, and
    whether an element had its sign bit clear (for -0.0).
    """

    value: int
    flags: int = 0

    @classmethod
    def from_bytes(cls, state: bytes) -> ExactSum:
        """An ExactSum from the state's bytes (cured._cured.sum(..., state=True), or to_bytes)."""
        if len(state) != _STATE_BYTES:
            raise ValueError(f"ExactSum.from_bytes: a state is {_STATE_BYTES} bytes, not {len(state)}")
        limbs = np.frombuffer(state, dtype="<i8", count=_LIMBS)
        value = 0
        for k in range(_LIMBS - 1, -1, -1):  # limbs may hold carries: add them as signed numbers
            value = (value << 32) + int(limbs[k])
        return cls(value, int.from_bytes(state[8 * _LIMBS:], "little"))

    def to_bytes(self) -> bytes:
        """The state's bytes: normalized limbs of 32 bits (two's complement), then the flags."""
        if not -(1 << (32 * _LIMBS - 1)) <= self.value < 1 << (32 * _LIMBS - 1):
            raise OverflowError("ExactSum: the sum is beyond the state's 2176 bits (2^64 elements or more)")
        limbs = [(self.value >> (32 * k)) & 0xFFFFFFFF for k in range(_LIMBS - 1)]
        limbs.append(self.value >> (32 * (_LIMBS - 1)))
        return np.array(limbs, dtype="<i8").tobytes() + int(self.flags).to_bytes(8, "little")

    def __add__(self, other: object) -> ExactSum:
        if not isinstance(other, ExactSum):
            return NotImplemented
        return ExactSum(self.value + other.value, self.flags | other.flags)

    def __radd__(self, other: object) -> ExactSum:
        # Python's sum() starts from 0: the empty sum.
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:
            return self
        return NotImplemented

    def round(self, dtype: Any = np.float64) -> np.floating:
        """The sum rounded once, to nearest with ties to even, into float16, float32 or float64."""
        return _cured.exact_round(self.to_bytes(), np.dtype(dtype))

    def __float__(self) -> float:
        return float(self.round(np.float64))


def fsum_state(a: Any, device: Literal["auto", "gpu", "cpu"] = "auto") -> ExactSum:
    """The exact partial sum of all elements of `a`, on the GPU or the CPU (device= as cured.fsum's):
    add the states of pieces and round once (ExactSum.round) to get cured.fsum's bits for the whole."""
    from .numpy_sum import refuse_own_sum  # numpy_sum imports this module

    refuse_own_sum(a)
    return ExactSum.from_bytes(_cured.sum(a, EXACT_VERSION, None, device, False, None, True))



def cpu_rows(device: str, date: str, n: int = 1 << 24, repeats: int = 5) -> list[Row]:
    """Wall time of the CPU implementation (cured.fsum(x, device="cpu"), one core) and of math.fsum
    on standard-normal float32 and float64 data of n elements (math.fsum on n / 16, scaled: it
    takes seconds), as rows of the results schema: subjects "V10-cpu" and "math.fsum", input
    "host", measure "wall"."""
    rows = []
    for dtype in ("float32", "float64"):
        x = np.random.default_rng([n, 10]).standard_normal(n).astype(dtype)
        seconds = []
        _cured._set_cpu_tiles(1, False)  # one core: fsum(device="cpu") takes the CPU's threads otherwise
        try:
            fsum(x, device="cpu")
            for _ in range(repeats):
                start = time.perf_counter()
                fsum(x, device="cpu")
                seconds.append(time.perf_counter() - start)
        finally:
            _cured._set_cpu_tiles(0, False)
        rows.append(timing_row(seconds=seconds, device=device, date=date, dtype=dtype, n=n, subject="V10-cpu",
                               input="host", measure="wall"))
        part = x[: n // 16].tolist()  # a list of Python floats: math.fsum's own input, no conversion timed
        seconds = []
        for _ in range(max(1, repeats // 2)):
            start = time.perf_counter()
            math.fsum(part)
            seconds.append((time.perf_counter() - start) * 16)
        rows.append(timing_row(seconds=seconds, device=device, date=date, dtype=dtype, n=n, subject="math.fsum",
                               input="host", measure="wall"))
    return rows
