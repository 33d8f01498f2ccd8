"""cured: parallel sum on the GPU, from naive to fast.

    >>> import numpy as np, cured
    >>> x = np.random.default_rng(0).standard_normal(1 << 20, dtype=np.float32)
    >>> cured.sum(x)                       # the default version, on the GPU
    >>> cured.sum(x, version=3)            # the classic "no bank conflict" kernel
    >>> cured.sum(x, version=3, device="cpu")   # its CPU order model: the same bits, no GPU needed
    >>> [v.name for v in cured.versions()]

Every version finishes the whole sum on the GPU, in a summation order fixed by the version and the
length, so the same input gives the same bits on every run; `device="cpu"` runs a C model of that
exact order.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np

from . import _cured
from ._cured import CudaError
from .benchmark import BenchResult, BenchRow, bench

__version__ = "0.1.0"

__all__ = ["CudaError", "Version", "DEFAULT_VERSION", "SumTiming", "TimedSum", "BenchRow", "BenchResult",
           "sum", "versions", "bench", "device_count", "device_info", "__version__"]


@dataclass(frozen=True)
class Version:
    """One kernel version, as the C registry (csrc/cured.h) describes it."""

    id: int
    name: str
    source: str  #: the kernel's file, csrc/kernels/<source>.cu
    summary: str  #: what this version changes, in one line
    schedule: str  #: "passes" (V0 to V8: pass after pass) or "tiles" (V9: one launch, tiles fixed by the length)
    threads: int  #: threads a block
    per_thread: int  #: passes: input elements a thread; tiles: 16-byte vectors a thread in each step
    elements_per_thread: int | None  #: passes: input elements each thread adds before the tree
    elements_per_block: int | None  #: passes: input elements a block reduces
    tree: str  #: the block tree's order: "interleaved", "sequential" or "warps"

    def shape(self, n: int, dtype: Any = "float32") -> dict[str, Any]:
        """How this version cuts n elements of dtype: the blocks of each pass, or the tiles."""
        return _cured.shape(self.id, np.dtype(dtype), n)


def versions() -> list[Version]:
    """The kernel versions, in order, from the C registry."""
    return [Version(**row) for row in _cured.versions()]


#: The version cured.sum uses when none is given: the fastest correct one (V9 is faster than every
#: other version at every length measured, README "Results").
DEFAULT_VERSION: int = 9


class SumTiming(NamedTuple):
    """Where the time of one cured.sum(..., timing=True) went, in seconds."""

    h2d_s: float  #: until the last chunk of host input is on the device, staging included (0 for device input)
    reduce_s: float  #: the reduction's work left after that (all of it for device input)
    d2h_s: float  #: device-to-host copy of the result (device time, CUDA events)
    total_s: float  #: the whole call, argument checks and conversions included (wall clock)


class TimedSum(NamedTuple):
    """cured.sum(..., timing=True): the sum and its timings; unpacks as `value, timing = ...`."""

    value: np.generic
    timing: SumTiming


def sum(  # noqa: A001 - the name users expect, as numpy.sum
    a: Any,
    version: int | Literal["cub"] = DEFAULT_VERSION,
    dtype: Any = None,
    device: Literal["gpu", "cpu"] = "gpu",
    timing: bool = False,
) -> np.generic | TimedSum:
    """Sum of all elements of `a`, as numpy.sum(a, dtype=dtype) but computed by kernel `version`.

    Parameters
    ----------
    a : array_like or device array
        Any array-like of bool, int8..int64, uint8..uint64, float16, float32 or float64, of any
        shape (all elements are summed). Host arrays go to the GPU in chunks through pinned
        staging buffers, the copy overlapped with the reduction; they are copied on the host first
        only when not already C-contiguous, aligned and in native byte order. Device arrays (CuPy,
        PyTorch, Numba, JAX: anything with ``__cuda_array_interface__`` or ``__dlpack__``) are read
        in place on their own GPU, after the work pending on their stream; a non-contiguous or
        misaligned one is first copied into C order on the device. The result is the same bits
        either way.
    version : int or "cub"
        Which kernel: 0 to 9 (see cured.versions()), or "cub" for NVIDIA's CUB DeviceReduce, the
        reference (GPU only, NumPy's default accumulator only). Defaults to DEFAULT_VERSION.
    dtype : dtype, optional
        The accumulator and result dtype, with NumPy's meaning. By default, as numpy.sum: bool and
        signed integers sum into int64, unsigned into uint64, float16 into float32 (returned as
        float16), float32 into float32, float64 into float64. Supported: int64, uint64, float32,
        float64 (integer dtypes for integer input only), and float16 for float16 input.
    device : {"gpu", "cpu"}
        "gpu" runs the kernel on the current CUDA device. "cpu" runs the version's CPU order model:
        the same additions in the same order, so bit for bit the GPU's result.
    timing : bool
        With True, return TimedSum(value, SumTiming(h2d_s, reduce_s, d2h_s, total_s)): the device
        time of each stage (CUDA events) and the call's wall time. For host input the reduction
        runs while the copy goes on: h2d_s lasts until the last chunk is on the device and reduce_s
        is only the work left after that.

    Returns
    -------
    numpy scalar of the result dtype (or TimedSum with timing=True). The same input gives the same
    bits on every run.

    Raises
    ------
    TypeError   for unsupported dtypes (complex, bfloat16, object, strings, ...), a non-integer
                version, or a device array cured cannot read (masked, non-native byte order, a
                device other than CUDA).
    ValueError  for an unknown version or device, device="cpu" with a device array, or a
                malformed __cuda_array_interface__.
    MemoryError when the GPU has not enough memory.
    CudaError   for any other CUDA failure, including no GPU or no driver.
    """
    dtype = None if dtype is None else np.dtype(dtype)
    if not timing:
        return _cured.sum(a, version, dtype, device)
    start = time.perf_counter()
    value, stages = _cured.sum(a, version, dtype, device, True)
    total = time.perf_counter() - start
    return TimedSum(value, SumTiming(stages["h2d"], stages["reduce"], stages["d2h"], total))


def device_count() -> int:
    """Number of CUDA devices; 0 when there is none or no driver."""
    return _cured.device_count()


def device_info() -> dict[str, Any]:
    """The current device: name, compute capability, multiprocessors, L2 size, memory size, memory
    clock and bus width, theoretical bandwidth (memory clock x bus width x 2, bytes/s), driver and
    runtime versions. Raises CudaError without a device."""
    return _cured.device_info()
