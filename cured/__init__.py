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

import sys
import time
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np

from . import _cured
from ._cured import CudaError
from .benchmark import BenchResult, BenchRow, bench
from .exact import EXACT_VERSION, ExactSum, fsum, fsum_state
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

    value: Any  #: the sum (a NumPy scalar), or out= when given
    timing: SumTiming


def sum(  # noqa: A001 - the name users expect, as numpy.sum
    a: Any,
    version: int | Literal["cub"] = DEFAULT_VERSION,
    dtype: Any = None,
    device: Literal["gpu", "cpu"] = "gpu",
    timing: bool = False,
    out: Any = None,
) -> Any:
    """Sum of all elements of `a`, as numpy.sum(a, dtype=dtype, out=out) but computed by kernel `version`.

    Parameters
    ----------
    a : array_like or device array
        Any array-like of bool, int8..int64, uint8..uint64, float16, float32 or float64, of any
        shape (all elements are summed). Host arrays go to the GPU in chunks through pinned
        staging buffers, the copy overlapped with the reduction; they are copied on the host first
        only when not already C-contiguous, aligned and in native byte order. Device arrays (CuPy,
        PyTorch, Numba, JAX: anything with ``__cuda_array_interface__`` or ``__dlpack__``) are read
        in place on their own GPU, in stream order after the producer's pending work (on the
        producer's stream for the CUDA Array Interface 3; DLPack producers order their work before
        the legacy default stream, where the sum then runs); a non-contiguous or misaligned one is
        first copied into C order on the device. The result is the same bits either way.
    version : int or "cub"
        Which kernel: 0 to 10 (see cured.versions(); 10 is cured.fsum's exact sum), or "cub" for NVIDIA's CUB DeviceReduce, the
        reference (GPU only, NumPy's default accumulator only). Defaults to DEFAULT_VERSION.
    dtype : dtype, optional
        The accumulator and result dtype, with NumPy's meaning. By default, as numpy.sum: bool and
        signed integers sum into int64, unsigned into uint64, float16 into float32 (returned as
        float16), float32 into float32, float64 into float64; with `out`, out's dtype, as NumPy
        does. Supported: int64, uint64, float32, float64 (integer dtypes for integer input only),
        and float16 for float16 input.
    device : {"gpu", "cpu"}
        "gpu" runs the kernel on the current CUDA device. "cpu" runs the version's CPU order model:
        the same additions in the same order, so bit for bit the GPU's result.
    timing : bool
        With True, return TimedSum(value, SumTiming(h2d_s, reduce_s, d2h_s, total_s)): the device
        time of each stage (CUDA events) and the call's wall time. For host input the reduction
        runs while the copy goes on: h2d_s lasts until the last chunk is on the device and reduce_s
        is only the work left after that. For device input h2d_s and d2h_s are 0: the last kernel
        writes the result into host memory itself.
    out : ndarray or device array, optional
        Where to put the sum; it is returned. A NumPy array works as in numpy.sum (0-d, writable;
        the sum is taken in its dtype where cured has that accumulator, and cast into it as NumPy
        casts a reduction's result). A device array (one writable element
        of the result dtype, on the input's GPU, which must be a device array too) receives the sum
        on the device, in stream order after the producer's work, and the call returns as soon as
        the work is queued, with no wait on the host.

    Returns
    -------
    numpy scalar of the result dtype (or TimedSum with timing=True), or `out` when given. The same
    input gives the same bits on every run.

    Raises
    ------
    TypeError   for unsupported dtypes (complex, bfloat16, object, strings, ...), a non-integer
                version, a device array cured cannot read (masked, non-native byte order, a
                device other than CUDA), or an out= of the wrong kind or dtype.
    ValueError  for an unknown version or device, device="cpu" with a device array, a malformed
                __cuda_array_interface__, or an out= of the wrong shape, on the wrong device, or
                read-only.
    MemoryError when the GPU has not enough memory.
    CudaError   for any other CUDA failure, including no GPU or no driver.
    """
    dtype = None if dtype is None else np.dtype(dtype)
    if isinstance(out, np.ndarray):
        return _sum_into_ndarray(a, version, dtype, device, timing, out)
    if "torch" in sys.modules:
        a = _torch_view(a)
        if out is not None:
            out = _torch_view(out)
    if not timing:
        return _cured.sum(a, version, dtype, device, False, out)
    start = time.perf_counter()
    value, stages = _cured.sum(a, version, dtype, device, True, out)
    total = time.perf_counter() - start
    return TimedSum(value, SumTiming(stages["h2d"], stages["reduce"], stages["d2h"], total))


class _TorchInterface:
    """A PyTorch CUDA tensor as a CUDA Array Interface 3: its own interface (version 2, no stream)
    with the stream PyTorch's pending work on its device is on."""

    __slots__ = ("__cuda_array_interface__", "tensor")

    def __init__(self, interface: dict, stream: int, tensor: Any):
        self.__cuda_array_interface__ = dict(interface, version=3, stream=stream)
        self.tensor = tensor  # keeps the memory alive for the call


_torch_dtypes: frozenset = frozenset()


def _torch_view(x: Any) -> Any:
    """A CUDA tensor as _TorchInterface, or x itself. PyTorch's DLPack export orders its work
    through Python objects (streams, events) and costs about 16 us a call on an H200; its CUDA Array
    Interface and its current stream's handle cost about 4, with the same ordering: the sum then
    runs on that stream. Tensors that PyTorch refuses to export (requiring grad) or whose dtype it
    cannot describe there (bfloat16, complex) keep DLPack and its errors."""
    global _torch_dtypes
    torch = sys.modules["torch"]
    if type(x) is not torch.Tensor or not x.is_cuda or x.requires_grad:
        return x
    if not _torch_dtypes:
        _torch_dtypes = frozenset(getattr(torch, name) for name in (
            "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
            "float64") if hasattr(torch, name))
    if x.dtype not in _torch_dtypes:
        return x
    index = x.get_device()
    current = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    stream = current(index) if current is not None else torch.cuda.current_stream(index).cuda_stream
    # 0 is PyTorch's default stream, the legacy one; the interface spells it 1 (0 is not allowed).
    return _TorchInterface(x.__cuda_array_interface__, stream or 1, x)


def _sum_into_ndarray(a, version, dtype, device, timing, out: np.ndarray):
    """cured.sum with a NumPy out=, as numpy.sum treats it: 0-d and writable; without dtype=, the sum
    is taken in out's dtype where cured accumulates in it (an integer out of another width gets the
    same bits from the 64-bit sum: addition wraps alike), else with the input's own accumulator, and
    cast into out as NumPy casts a reduction's result; with dtype=, cast with casting="same_kind"."""
    if out.ndim != 0:
        raise ValueError(f"cured.sum: out= must be 0-d for a sum of every element, as in numpy.sum (out has shape "
                         f"{out.shape})")
    if not out.flags.writeable:
        raise ValueError("cured.sum: out= is read-only")
    casting = "same_kind"
    if dtype is None:
        casting = "unsafe"
        try:
            result = sum(a, version, out.dtype, device, timing)
        except TypeError:  # not an accumulator cured has for this input
            result = sum(a, version, None, device, timing)
    else:
        result = sum(a, version, dtype, device, timing)
    np.copyto(out, result.value if timing else result, casting=casting)
    return TimedSum(out, result.timing) if timing else out


def device_count() -> int:
    """Number of CUDA devices; 0 when there is none or no driver."""
    return _cured.device_count()


def device_info() -> dict[str, Any]:
    """The current device: name, compute capability, multiprocessors, L2 size, memory size, memory
    clock and bus width, theoretical bandwidth (memory clock x bus width x 2, bytes/s), driver and
    runtime versions. Raises CudaError without a device."""
    return _cured.device_info()
