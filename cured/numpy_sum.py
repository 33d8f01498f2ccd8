"""cured.sum: numpy.sum's signature and meaning, summed by cured's kernels.

A sum of every element goes to the version's one-value reduction (csrc/kernels/vN_*.cu), as fast as
a call can be made (this path does no more Python work than it must). A sum along some
axes goes to the default version's axis kernels (csrc/kernels/v9_axis.cu, order in csrc/axis.h).
What NumPy decides (which axes, the accumulator, the result dtype, keepdims, initial, out=) is
decided here, in NumPy's terms, before any GPU work.
"""
from __future__ import annotations

import functools
import operator
import time
from typing import Any, Literal, NamedTuple

import numpy as np

from . import _cured
from .exact import EXACT_VERSION

#: The version cured.sum uses when none is given: the fastest correct one (V9 is faster than every
#: other version at every length measured, README "Results"). Only it sums along axes.
DEFAULT_VERSION: int = 9


class SumTiming(NamedTuple):
    """Where the time of one cured.sum(..., timing=True) went, in seconds, and where the sum ran."""

    h2d_s: float  #: until the last chunk of host input is on the device, staging included (0 for device input and on the CPU)
    reduce_s: float  #: the reduction's work left after that (all of it for device input; on the CPU, its host time)
    d2h_s: float  #: device-to-host copy of the result (device time, CUDA events; 0 on the CPU)
    total_s: float  #: the whole call, argument checks and conversions included (wall clock)
    device: str = "gpu"  #: where the sum ran: "gpu" or "cpu" (device="auto" chooses)


class TimedSum(NamedTuple):
    """cured.sum(..., timing=True): the sum and its timings; unpacks as `value, timing = ...`."""

    value: Any  #: the sum (a NumPy scalar), or out= when given
    timing: SumTiming


class _NoValue:
    """numpy.sum's "not given" for initial=: no initial value is added (the sum of nothing is 0)."""

    def __repr__(self) -> str:
        return "<no value>"


_NO_VALUE: Any = _NoValue()

# The accumulators the kernels have; NumPy's other dtype= choices are reached from these.
_ACCS = frozenset(np.dtype(t) for t in ("int64", "uint64", "float32", "float64"))
_FLOAT_ACCS = frozenset(np.dtype(t) for t in ("float32", "float64"))  # every input sums into these as it is
_FLOAT16 = np.dtype("float16")
_BOOL = np.dtype("bool")
_INT64 = np.dtype("int64")
_UINT64 = np.dtype("uint64")


def sum(  # noqa: A001 - the name users expect, as numpy.sum
    a: Any,
    axis: None | int | tuple[int, ...] = None,
    dtype: Any = None,
    out: Any = None,
    keepdims: bool = False,
    initial: Any = _NO_VALUE,
    where: Any = True,
    *,
    version: int | Literal["cub"] = DEFAULT_VERSION,
    device: Literal["auto", "gpu", "cpu"] = "auto",
    timing: bool = False,
) -> Any:
    """numpy.sum(a, axis, dtype, out, keepdims, initial), computed by cured's kernel `version`.

    Parameters
    ----------
    a : array_like or device array
        bool, int8..int64, uint8..uint64, float16, float32 or float64, any shape and strides. Host
        arrays go to the GPU (in chunks through pinned staging buffers, which the reduction reads
        over the bus while the next chunks are staged, for a sum of every element). Device arrays (CuPy, PyTorch, Numba, JAX: anything
        with ``__cuda_array_interface__`` or ``__dlpack__``) are read in place on their own GPU, in
        stream order after the producer's pending work (on the producer's stream for the CUDA Array
        Interface 3; DLPack producers order their work before the legacy default stream, where the
        sum then runs); a non-contiguous or misaligned one is first copied into C order on the
        device. The result is the same bits either way.
    axis : None, int or tuple of ints
        As NumPy's: the axes to sum over (negative ones count from the end; () sums none). None sums
        every element with `version`; any other axis is summed by the default version's axis kernels
        (version="cub" runs CUB's DeviceSegmentedReduce, the reference, where each result sums
        consecutive elements; version=10, the exact sum, rounds each output once: device arrays on
        their GPU, host arrays on the CPU; another version raises ValueError). Each output's
        summation order is fixed by the shape and the dtype alone (csrc/axis.h): the same bits on
        every GPU and with device="cpu".
    dtype : dtype, optional
        The accumulator and result dtype, NumPy's rules: by default bool and signed integers sum into
        int64, unsigned into uint64, float16 into float32 (returned as float16), float32 and float64
        into themselves; with a NumPy out= and no dtype, the promotion of the input's dtype and
        out's (numpy.result_type: float32 into a float64 out sums in float64), as NumPy. Narrower
        integers (int8 to int32, uint8 to uint32) and bool give NumPy's bits (wrap-around; bool is
        "any element true"). Where NumPy casts each element first (float input into an integer or
        bool dtype, any other input into float16) cured casts the elements with NumPy on the host,
        a device array's brought there first (NumPy's cast of NaN and out-of-range floats into
        integers is the host CPU's); such a sum reaches a device out= by a copy from the host, in
        out's stream order, so that call waits for the result.
    out : ndarray or device array, optional
        Where the result goes; it is returned. A NumPy array of the result's shape (keepdims
        included), as numpy.sum: the result is cast into it as NumPy does. A device array (the
        input must be one too, on the same GPU) of the result dtype receives the result on the
        device, in stream order after the producer's work, and the call returns as soon as the work
        is queued, with no host wait; for a sum of every element it is any one-element array, along
        axes a C-contiguous array of the result's shape.
    keepdims : bool
        Keep the reduced axes, with extent 1, as NumPy does.
    initial : scalar, optional
        Added to each sum, in the accumulator's type, after the elements (not with the exact
        version, whose sum it would round twice: ValueError). None, as NumPy, means none, and
        an output that sums no elements then raises ValueError.
    where : array_like of bool, optional
        As numpy.sum's: only the elements where the mask (broadcast to the input's shape) is true
        are summed; with initial=None a mask raises ValueError, as NumPy's. A host array's
        masked elements become zeros in a copy, which is then summed as any array; a device array
        with a mask raises TypeError (apply it first, for example cupy.where(mask, a, 0)).
    version : int or "cub"
        Which kernel: 0 to 10 (see cured.versions(); 10 is cured.fsum's exact sum), or "cub" for
        NVIDIA's CUB DeviceReduce, the reference (GPU only, NumPy's default accumulator only; along
        axes, DeviceSegmentedReduce for row sums only).
    device : {"auto", "gpu", "cpu"}
        "gpu" runs the kernel on the current CUDA device (a device array's own). "cpu" sums a host
        array on the CPU in the version's order, so the GPU's bits: V9 with SIMD on every CPU thread
        (csrc/cpu_tiles.c), along axes whole rows at a time on the CPU's threads (csrc/cpu_axis.c),
        the other versions with their scalar order model. "auto" (the default)
        sums device arrays on their GPU, and host arrays where it is faster: V9's sums of every
        element on the CPU, at every size where this process may use 8 CPUs or more, else up to 64
        MiB; V10's (exact, one answer anywhere) on the CPU up to 4096 elements and, with 16 CPUs or
        more, from 2^17 + 1 to 2^21; the rest on the GPU (README's "Where a host array is summed"
        has the measurements). It needs a GPU either way (as "gpu", it raises CudaError without
        one: the same call gives the same answer, or
        error, whatever the input's size or the machine's CPUs). Along axes, "auto" sums host arrays
        on the CPU (the GPU path's copy of pageable memory is slower) and device arrays on their GPU;
        version="cub" runs on the GPU.
    timing : bool
        For a sum of every element: return TimedSum(value, SumTiming(h2d_s, reduce_s, d2h_s,
        total_s, device)), the device time of each stage (CUDA events; on the CPU, its host time),
        the call's wall time and where the sum ran.

    Returns
    -------
    A NumPy scalar for a sum of every element without keepdims (with it too for a 0-d input, as
    NumPy), else a NumPy array (for device input too), or `out` when given. An ndarray subclass's
    result is wrapped by its __array_wrap__, as NumPy's (ndarray's own keeps the subclass, 0-d for
    a whole sum); not with timing=True. The same input gives the same bits on every run.

    Raises
    ------
    numpy.exceptions.AxisError  an axis out of range.
    TypeError   unsupported dtypes (complex, bfloat16, object, strings), a non-integer axis or
                version, a where= mask with a device array or of an array dtype NumPy does not
                cast safely to bool, an out= of the wrong kind or dtype, an ndarray subclass with
                a sum of its own (a masked array).
    ValueError  a repeated axis, an unknown version or device, axis= with a version other than the
                default (or "cub" along other axes than rows; or 10 for a host array with a
                device other than "cpu": floating sums), device="cpu" with a device array or
                "cub", an out= of the wrong shape, on the wrong device, or read-only, a deleted
                (or donated) JAX array.
    OverflowError an initial= the result dtype cannot hold (as NumPy).
    MemoryError when the GPU has not enough memory.
    CudaError   any other CUDA failure, including no GPU or no driver.
    """
    # The common calls, a sum of every element into a NumPy scalar or a device element and a NumPy
    # array's, CuPy array's or PyTorch tensor's sum along axes (with keepdims=, a dtype= that casts
    # no element, initial= or a NumPy out=), are made in C without another Python frame (issue 12:
    # every microsecond here is the user's); the rest comes back to _python_sum.
    return _cured.numpy_sum(a, axis, dtype, out, keepdims, initial, where, version, device, timing)


def _python_sum(a, axis, dtype, out, keepdims, initial, where, version, device, timing):
    """cured.sum's calls that _cured.numpy_sum does not make in C: device arrays that only DLPack
    describes, along axes or with keepdims=, initial=, an integer dtype= or a NumPy out=; a device
    out= along axes; a dtype= that casts each element first; where= masks;
    initial=None or of another type than int and float; 0-d and byte-swapped arrays, axis=(), axes
    given as NumPy integers and versions other than the default, along axes; an out= of another
    dtype than the result's; ndarray subclasses (whose results NumPy wraps in the subclass);
    timing=True; and every argument error."""
    refuse_own_sum(a)
    given = a
    if where is not True:  # NumPy's default, the True object itself; anything else is a mask
        a = _masked(a, where, initial)
    if dtype is not None:
        dtype = np.dtype(dtype)
    if not isinstance(keepdims, (bool, np.bool_)):
        keepdims = operator.index(keepdims)  # as NumPy: an integer, not a string, a float or None
    if axis is None and not keepdims and initial is _NO_VALUE and (dtype is None or dtype in _FLOAT_ACCS) \
            and not isinstance(out, np.ndarray):
        if timing:
            start = time.perf_counter()
            value, stages = _cured.sum(a, version, dtype, device, True, out)
            total = time.perf_counter() - start
            return TimedSum(value, SumTiming(stages["h2d"], stages["reduce"], stages["d2h"], total, stages["device"]))
        value = _cured.sum(a, version, dtype, device, False, out)
    else:
        value = _general_sum(a, axis, dtype, out, bool(keepdims), initial, version, device, timing)
    if out is None and not timing and isinstance(given, np.ndarray) and type(given) is not np.ndarray:
        return _wrapped_as(given, value)
    return value


def _masked(a, where, initial) -> np.ndarray:
    """numpy.sum's where=: the elements where the mask, broadcast to a's shape, is false take no part,
    which in a sum is a 0 in their place: a copy of a host array with zeros there, summed then as any
    array (the other elements' additions in their places, the version's order). NumPy's rules: a
    mask needs initial= (add's identity is not used for it); a NumPy array mask must cast to bool
    safely, any other object is read as bool (None is false); it broadcasts to the input's shape."""
    a, shape, _, on_device = _describe(a)
    if on_device:
        raise TypeError("cured.sum: where= masks host arrays; for a device array apply the mask first (for example "
                        "cupy.where(mask, a, 0))")
    if isinstance(where, np.ndarray):
        if not np.can_cast(where.dtype, np.bool_, "safe"):
            raise TypeError(f"Cannot cast array data from {where.dtype!r} to dtype('bool') according to the rule "
                            f"'safe'")
        mask = where.astype(np.bool_, copy=False)
    else:
        mask = np.array(where, dtype=np.bool_)
    if initial is None:
        raise ValueError("reduction operation 'add' does not have an identity, so to use a where mask one has to "
                         "specify 'initial'")
    a = np.asarray(a)
    return np.where(np.broadcast_to(mask, shape), a, np.zeros((), a.dtype))


def _wrapped_as(a: np.ndarray, value):
    """The sum of an ndarray subclass (one without a sum of its own) as numpy.sum returns it: through
    the subclass's __array_wrap__, given the result as an array, context None (NumPy's for a
    reduction) and whether a scalar is asked for. ndarray's own keeps the subclass, a 0-d one for a
    whole sum; memmap's gives a NumPy scalar or array."""
    scalar = not isinstance(value, np.ndarray)
    try:
        return a.__array_wrap__(np.asarray(value), None, scalar)
    except TypeError:
        # A subclass written for NumPy 1, whose __array_wrap__ takes (array, context): NumPy 2 calls
        # it so too, after the same TypeError.
        return a.__array_wrap__(np.asarray(value), None)


def refuse_own_sum(a) -> None:
    """numpy.sum calls the sum of an ndarray subclass that has its own (a masked array's skips its
    masked elements, a matrix's keeps two dimensions); cured sums the elements as stored, so it
    refuses those rather than give another answer. Other subclasses (memmap) are summed as arrays."""
    if isinstance(a, np.ndarray) and type(a).sum is not np.ndarray.sum:
        raise TypeError(f"cured.sum: {type(a).__name__} has a sum of its own, which numpy.sum would call (a masked "
                        f"array's skips its masked elements); pass numpy.asarray(a), or a.filled(0) for a masked "
                        f"array")


# ---- everything else NumPy's sum takes ------------------------------------------------------------

def _general_sum(a, axis, dtype, out, keepdims, initial, version, device, timing):
    a, shape, in_dtype, on_device = _describe(a)
    reduce = _reduced_axes(axis, len(shape))
    every = all(reduce)
    if initial is None:  # NumPy: no initial value, so a sum along an empty axis has none
        # (refused even where no output is left to take it: NumPy 2 checks the reduced extents alone)
        if any(r and e == 0 for e, r in zip(shape, reduce)):
            raise ValueError("cured.sum: initial=None and a sum of no elements: zero-size array to reduction "
                             "operation add which has no identity (as numpy.sum)")
        initial = _NO_VALUE
    result_shape = tuple(1 if r else e for e, r in zip(shape, reduce)) if keepdims else \
        tuple(e for e, r in zip(shape, reduce) if not r)
    if out is not None and not isinstance(out, np.ndarray) and not hasattr(out, "__cuda_array_interface__") \
            and not hasattr(out, "__dlpack__"):
        raise TypeError(f"cured.sum: out= must be a NumPy array or a device array, not {type(out).__name__}")
    numpy_out = out if isinstance(out, np.ndarray) else None
    device_out = out if out is not None and numpy_out is None else None
    if numpy_out is not None:
        _check_numpy_out(numpy_out, result_shape)
    requested = dtype
    if requested is None and numpy_out is not None:
        requested = _numpy_out_dtype(in_dtype, numpy_out.dtype)
    acc, result, cast_to = _resolve(in_dtype, requested)
    if device_out is not None and not every:
        out_shape = _shape_of_device(device_out)
        if out_shape != result_shape:
            raise ValueError(f"cured.sum: out= has shape {out_shape} but the result has shape {result_shape}")
    if cast_to is not None and device_out is not None:
        # NumPy's cast of each element is the host's (below): the sum is made there and its result
        # copied into out=, in out's stream order. That waits, as bringing the elements there does.
        if not on_device:
            raise ValueError("cured.sum: an out= on the device needs a device array to sum; for a host array, pass "
                             "a NumPy out= or none")
        if timing:
            raise ValueError("cured.sum: timing=True waits for the result, which an out= on the device does not; "
                             "time it with CUDA events instead")
        _cured.copy_into(device_out, np.empty(result_shape, result), True)  # a bad out= before any sum runs
        value = _general_sum(a, axis, dtype, None, keepdims, initial, version, device, False)
        return _cured.copy_into(device_out, np.ascontiguousarray(value))
    if cast_to is not None:
        if on_device:
            # NumPy's cast of NaN, infinities and out-of-range floats into integers is the host's
            # (x86's differs from Arm's), so the elements come to the host and NumPy casts them.
            a = _device_elements(a, in_dtype, device)
            on_device, device = False, "auto" if device == "gpu" else device
        a = np.asarray(a).astype(cast_to)
        in_dtype = cast_to
    exact = _is_exact(version)
    if initial is not _NO_VALUE:
        if exact:
            raise ValueError("cured.sum: initial= with the exact version would round its sum twice; add it as an "
                             "element instead")
        initial = acc.type(result.type(initial))  # as NumPy: initial in the result dtype (OverflowError)
    if timing and not every:
        raise ValueError("cured.sum: timing=True times a sum of every element; it takes no axis")
    if exact and not every:
        if acc.kind != "f":
            version = DEFAULT_VERSION  # integer sums are exact already, and wrap as NumPy's: V9's
        else:
            if on_device:
                # On the array's GPU (kernels/v10_axis.cu): each output rounded once into `result`, as
                # a float64 (float64 results) or float32 that holds it exactly (_cured.EXACT_ROWS_ACC;
                # device="cpu" raises ValueError for device arrays).
                rows_acc = _cured.EXACT_ROWS_ACC[result]
                flat = _cured.sum_axes(a, shape, reduce, rows_acc, device, device_out, result, None, False, True,
                                       into=_direct_out(numpy_out, rows_acc, result))
                if device_out is not None or flat is numpy_out:
                    return flat
                value = flat.astype(result, copy=False)  # float32 results are held in float32: no copy
            elif device_out is not None or device == "gpu":
                raise ValueError("cured.fsum: along axes the exact sum of a host array runs on the CPU "
                                 "(device='cpu' or 'auto'); device arrays are summed on their GPU")
            else:
                # On the CPU, under "auto" too (which, as everywhere, raises CudaError without a GPU).
                value = _exact_along_axes(np.asarray(a), reduce, result, device)
            value = value.reshape(result_shape)
            if numpy_out is not None:
                np.copyto(numpy_out, value, casting="unsafe")
                value = numpy_out
            return value
    if not every and version != DEFAULT_VERSION and version != "cub":
        raise ValueError(f"cured.sum: axis= is summed by the default version ({DEFAULT_VERSION}) and, for row sums, "
                         f"by 'cub' (CUB's DeviceSegmentedReduce), not by version {version!r}")
    # The C extension takes initial= as the accumulator's bytes, padded to 8.
    initial_bytes = None if initial is _NO_VALUE else np.asarray(initial, dtype=acc).tobytes().ljust(8, b"\0")
    if every:
        value = _whole_sum(a, version, requested, acc, result, device, timing, device_out, initial, initial_bytes)
    else:
        flat = _cured.sum_axes(a, shape, reduce, acc, device, device_out, result, initial_bytes, version == "cub",
                               into=_direct_out(numpy_out, acc, result))
        if device_out is not None:
            return device_out
        if initial is not _NO_VALUE:
            np.add(flat, initial, out=flat)
        if flat is numpy_out:
            return numpy_out
        value = flat.astype(result, copy=False).reshape(result_shape)
    if device_out is not None:
        return value
    timed = None
    if timing:
        value, timed = value
    if keepdims and result_shape:  # a 0-d input keeps no axis: NumPy returns its scalar
        value = np.asarray(value).reshape(result_shape)
    if numpy_out is not None:
        np.copyto(numpy_out, value, casting="unsafe")
        value = numpy_out
    return TimedSum(value, timed) if timing else value


def _device_elements(a, in_dtype: np.dtype, device: str) -> np.ndarray:
    """A device array's elements in a NumPy array of their dtype: its sum along no axis (each output
    one element, in an accumulator that holds it exactly), brought to the host."""
    return np.asarray(_general_sum(a, (), None, None, False, _NO_VALUE, DEFAULT_VERSION, device, False)).astype(
        in_dtype, copy=False)


def _direct_out(numpy_out, acc: np.dtype, result: np.dtype):
    """The NumPy out= that sum_axes may write its results into itself (it still returns a new array
    where out= is not C-contiguous and aligned, or overlaps the input): one of the accumulator's
    dtype, which is the result's. Else None: the results are cast into out= afterwards, as NumPy's."""
    if numpy_out is not None and numpy_out.dtype == acc and result == acc:
        return numpy_out
    return None


def _whole_sum(a, version, requested, acc, result, device, timing, device_out, initial, initial_bytes):
    """A sum of every element, by `version`: the result (timed: (result, SumTiming)) or device_out."""
    # The kernel rounds into the result where it can (once: an exact version into float16), and the
    # C extension wraps an integer sum into a narrower integer result (NumPy's bits); else it returns
    # the accumulator, which NumPy then casts.
    direct = result in _ACCS or (result == _FLOAT16 and acc == np.float32)
    ask = result if (direct or result.kind in "iu") and initial is _NO_VALUE else acc
    if device_out is not None:
        # The store kernel writes any result dtype there: integers of 1 to 4 bytes the 64-bit sum
        # wrapped, bool (of bool input; other inputs into bool are cast on the host, and refused
        # with a device out=) the count of true elements not zero. Without dtype=, the C extension
        # takes out's dtype as the accumulator (cured.sum's rule for a device element since issue
        # 12); with it, the result must be out's dtype.
        return _cured.sum(a, version, None if requested is None else result, device, False, device_out, False,
                          initial_bytes)
    start = time.perf_counter()
    got = _cured.sum(a, version, ask, device, timing, None)
    value, stages = got if timing else (got, None)
    if initial is not _NO_VALUE:
        value = value + initial
    if value.dtype != result:
        value = value.astype(result)
    if timing:
        total = time.perf_counter() - start
        return value, SumTiming(stages["h2d"], stages["reduce"], stages["d2h"], total, stages["device"])
    return value


def _exact_along_axes(a: np.ndarray, reduce: tuple[bool, ...], result: np.dtype, device: str) -> np.ndarray:
    """V10 along axes, on the CPU: each output's elements summed exactly and rounded once into
    `result` (float16 to float64), in C order over the kept axes."""
    kept = [k for k, r in enumerate(reduce) if not r]
    summed = [k for k, r in enumerate(reduce) if r]
    outputs = 1
    for k in kept:
        outputs *= a.shape[k]
    rows = np.ascontiguousarray(np.transpose(a, kept + summed), dtype=a.dtype.newbyteorder("="))
    rows = rows.reshape(outputs, rows.size // outputs if outputs else 0)
    return _cured.exact_rows(rows, result, device).astype(result, copy=False)  # float64 results: no copy


def _is_exact(version) -> bool:
    return isinstance(version, int) and not isinstance(version, bool) and version == EXACT_VERSION


def _describe(a):
    """(a, shape, dtype, on_device): a host array-like becomes an ndarray here, once."""
    if type(a) is np.ndarray:  # the common case, without the protocols' attribute lookups
        return a, a.shape, a.dtype, False
    _cured._refuse_unreadable_array(a)  # as the C entry refuses them, before any protocol is asked
    interface = getattr(a, "__cuda_array_interface__", None)
    if interface is not None:
        return a, tuple(int(e) for e in interface["shape"]), np.dtype(interface["typestr"]), True
    if hasattr(a, "__dlpack_device__") and not isinstance(a, np.ndarray):
        kind, _ = a.__dlpack_device__()
        if int(kind) in (2, 3, 13):  # kDLCUDA, kDLCUDAHost, kDLCUDAManaged
            try:
                return a, tuple(int(e) for e in a.shape), np.dtype(a.dtype), int(kind) == 2
            except (AttributeError, TypeError) as error:
                raise TypeError(f"cured.sum: axis=, keepdims=, initial= and NumPy dtypes need a device array with a "
                                f"NumPy .shape and .dtype; {type(a).__name__} has none") from error
    if not isinstance(a, np.ndarray):
        a = np.from_dlpack(a) if hasattr(a, "__dlpack__") and not hasattr(a, "__array__") else np.asarray(a)
    return a, a.shape, a.dtype, False


def _reduced_axes(axis, ndim: int) -> tuple[bool, ...]:
    """Which axes axis= names, with NumPy's errors: AxisError, ValueError for a repeat, TypeError
    for a non-integer (a list included, as numpy.sum)."""
    if axis is None:
        return (True,) * ndim
    axes = axis if isinstance(axis, tuple) else (axis,)
    if any(isinstance(x, (bool, np.bool_)) for x in axes):
        raise TypeError("an integer is required")  # NumPy's words: operator.index would take True as 1
    if ndim == 0 and all(operator.index(x) in (0, -1) for x in axes):
        return ()  # NumPy lets a 0-d array be summed over axis 0 (or -1)
    picked = [False] * ndim
    for x in axes:
        x = operator.index(x)
        if not -ndim <= x < ndim:
            raise np.exceptions.AxisError(x, ndim)
        x %= ndim
        if picked[x]:
            raise ValueError("duplicate value in 'axis'")
        picked[x] = True
    return tuple(picked)


@functools.lru_cache(maxsize=512)  # a pure function of two dtypes, asked on every call along axes
def _resolve(in_dtype: np.dtype, requested: np.dtype | None):
    """(accumulator, result dtype, dtype each element is first cast to or None), NumPy's rules."""
    if in_dtype.kind not in "biuf" or in_dtype.itemsize > 8 or (in_dtype.kind == "f" and in_dtype.itemsize < 2):
        raise TypeError(f"cured.sum: cannot sum an array of dtype {in_dtype}; cured sums bool, int8 to int64, uint8 "
                        f"to uint64, float16, float32 and float64")
    in_dtype = in_dtype.newbyteorder("=")
    if requested is None:
        if in_dtype.kind in "bi":
            return _INT64, _INT64, None
        if in_dtype.kind == "u":
            return _UINT64, _UINT64, None
        return (np.dtype("float32") if in_dtype == _FLOAT16 else in_dtype), in_dtype, None
    if not requested.isnative:
        raise TypeError(f"cured.sum: dtype={requested} is not supported: as numpy.sum, dtype= picks the type, not "
                        f"its byte order")
    d = requested
    if d.kind not in "biuf" or d.itemsize > 8:
        raise TypeError(f"cured.sum: dtype={requested} is not supported; cured sums into bool, integers and floats "
                        f"of up to 64 bits")
    if d == _BOOL:  # NumPy: each element cast to bool, then "or"; a count that is not zero
        return _INT64, d, (None if in_dtype == _BOOL else _BOOL)
    if d.kind in "iu":
        cast = d if in_dtype.kind == "f" else None  # NumPy truncates each float into the integer
        return (_INT64 if d.kind == "i" else _UINT64), d, cast
    if d == _FLOAT16:
        return np.dtype("float32"), d, (None if in_dtype == _FLOAT16 else _FLOAT16)
    return d, d, None


def _numpy_out_dtype(in_dtype: np.dtype, out_dtype: np.dtype) -> np.dtype | None:
    """The dtype NumPy sums in for a NumPy out= without dtype=: the promotion of the input's dtype and
    out's (float32 into a float64 out sums in float64; uint64 into an int64 out in float64), the sum
    then cast into out. A complex out sums a real input in its real part's dtype, a long double one
    in float64, the widest cured has; an out of another kind leaves the input's own accumulator."""
    try:
        d = np.result_type(in_dtype, out_dtype)
    except TypeError:
        return None
    if d.kind == "c":
        d = np.dtype(f"f{min(d.itemsize // 2, 8)}")
    elif d.kind == "f" and d.itemsize > 8:
        d = np.dtype(np.float64)
    return d if d.kind in "biuf" else None


def _check_numpy_out(out: np.ndarray, result_shape: tuple) -> None:
    if out.shape != result_shape:
        raise ValueError(f"cured.sum: out= has shape {out.shape} but the result has shape {result_shape} (as "
                         f"numpy.sum: keepdims= decides whether the summed axes stay)")
    if not out.flags.writeable:
        raise ValueError("cured.sum: out= is read-only")


def _shape_of_device(x) -> tuple:
    interface = getattr(x, "__cuda_array_interface__", None)
    if interface is not None:
        return tuple(int(e) for e in interface["shape"])
    return tuple(int(e) for e in x.shape)


_cured._set_python_sum(_python_sum, _NO_VALUE, DEFAULT_VERSION)
