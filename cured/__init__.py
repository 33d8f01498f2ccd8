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

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _cured
from ._cured import CudaError
from .benchmark import BenchResult, BenchRow, bench
from .exact import EXACT_VERSION, ExactSum, fsum, fsum_state
from .numpy_sum import DEFAULT_VERSION, SumTiming, TimedSum, sum
from .walltime import latency
from .profiling import ProfileError, profile

__version__ = "0.1.0"

__all__ = ["CudaError", "ProfileError", "Version", "DEFAULT_VERSION", "EXACT_VERSION", "SumTiming", "TimedSum",
           "BenchRow", "BenchResult", "ExactSum", "sum", "fsum", "fsum_state", "versions", "bench", "latency", "profile", "device_count", "device_info",
           "__version__"]


@dataclass(frozen=True)
class Version:
    """One kernel version, as the C registry (csrc/cured.h) describes it."""

    id: int
    name: str
    source: str  #: the kernel's file, csrc/kernels/<source>.cu
    summary: str  #: what this version changes, in one line
    schedule: str  #: "passes" (V0 to V8: pass after pass) or "tiles" (V9, V10: one launch, tiles fixed by the length)
    threads: int  #: threads a block
    per_thread: int  #: passes: input elements a thread; tiles: 16-byte vectors a thread in each step
    elements_per_thread: int | None  #: passes: input elements each thread adds before the tree
    elements_per_block: int | None  #: passes: input elements a block reduces
    tree: str  #: the block tree's order: "interleaved", "sequential", "warps", or "exact" (V10: no rounding order, one rounding)

    def shape(self, n: int, dtype: Any = "float32") -> dict[str, Any]:
        """How this version cuts n elements of dtype: the blocks of each pass, or the tiles."""
        return _cured.shape(self.id, np.dtype(dtype), n)


def versions() -> list[Version]:
    """The kernel versions, in order, from the C registry."""
    return [Version(**row) for row in _cured.versions()]



def device_count() -> int:
    """Number of CUDA devices; 0 when there is none or no driver."""
    return _cured.device_count()


def device_info() -> dict[str, Any]:
    """The current device: name, compute capability, multiprocessors, L2 size, memory size, memory
    clock and bus width, theoretical bandwidth (memory clock x bus width x 2, bytes/s), driver and
    runtime versions. Raises CudaError without a device."""
    return _cured.device_info()
