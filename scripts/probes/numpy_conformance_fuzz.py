"""Random cured.sum(..., device="cpu") calls against numpy.sum, for a while: random shapes (up to 4-D,
empty extents included), views (transposed, reversed, strided), dtypes, axis= (None, ints and tuples,
out of range and repeated ones included), dtype=, keepdims=, initial= (None included) and out=
(right and wrong shapes, any dtype) and where= (masks, broadcast ones, bad ones), on ndarrays and an
ndarray subclass. Each call must raise what NumPy raises (the same class, or one
a subclass of the other) or return what NumPy returns: the same type, dtype and shape, integers
equal, floats within a loose bound of the order's error. Needs no GPU. Written on 2026-11-28, when
it found initial=None's rule for empty reduced extents apart from NumPy's (b7b5082).

Left out on purpose, as README's "Types" says: float16 added along strided axes (NumPy rounds each
addition in float16 there, cured once from float32), undefined casts of NaN, infinities and
out-of-range values into integers, and float sums cast into an integer out= (the order's last bit
decides the integer). Also NumPy's way with an out= that cannot hold the sum's dtype: its
reduction runs through out=, casting initial= into out's dtype first (numpy.sum([True] * 4,
dtype=np.int32, initial=-4, out=<bool>) is True, where the sum is 0), or with initial=None the first
element straight into it, past dtype=, and the running sums into it and back at each buffer's end;
cured adds initial= in the sum's dtype and casts the sum into out= once.

    python scripts/probes/numpy_conformance_fuzz.py [seconds] [seed]

Prints the seed, up to 25 differences and a count; exits 1 on any difference.
"""
import sys
import time
import warnings

import numpy as np

import cured

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64"]
EXTENTS = [0, 1, 2, 3, 5, 17, 64, 300]


def data(rng, dtype, shape):
    dtype, n = np.dtype(dtype), int(np.prod(shape))
    if dtype.kind == "b":
        x = rng.random(n) < 0.5
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    else:
        x = rng.standard_normal(n).astype(dtype)
    return x.reshape(shape)


class Subclass(np.ndarray):
    """An ndarray subclass without a sum of its own: NumPy wraps its sums in it."""


def view(rng, x):
    kind = rng.integers(4)
    if kind == 1 and x.ndim:
        x = x.T
    elif kind == 2 and x.ndim:
        x = x[(slice(None, None, -1),) * x.ndim]
    elif kind == 3 and x.ndim and x.shape[0] > 1:
        x = x[::2]
    return x.view(Subclass) if rng.random() < 0.1 else x


def mask(rng, shape):
    """A where= mask: of the input's shape or broadcast to it (extents of 1, fewer dimensions), now
    and then a scalar, a list, None, an integer array (which NumPy refuses) or a shape that does not
    broadcast."""
    r = rng.random()
    if r < 0.1:
        return bool(rng.random() < 0.5)
    if r < 0.15:
        return rng.choice([None, np.True_, np.False_, 1, 0.0])
    if r < 0.2:
        return np.ones(shape, np.int64)
    drop = int(rng.integers(0, len(shape) + 1))
    shape = [e if rng.random() < 0.7 else 1 for e in shape[drop:]]
    if r < 0.25 and shape:
        shape[-1] += 1
    m = rng.random(shape) < 0.6
    return m.tolist() if r < 0.35 else m


def arguments(rng, shape):
    ndim = len(shape)
    kw = {}
    r = rng.random()
    if r < 0.25:
        kw["axis"] = None
    elif r < 0.5 and ndim:
        kw["axis"] = int(rng.integers(-ndim - 1, ndim + 1))
    elif r < 0.8:
        count = int(rng.integers(0, ndim + 1))
        kw["axis"] = tuple(int(a) for a in rng.choice(range(-ndim - 1, ndim + 1), size=count, replace=rng.random() < 0.1))
    if rng.random() < 0.4:
        kw["dtype"] = np.dtype(rng.choice(DTYPES))
    if rng.random() < 0.3:
        kw["keepdims"] = True
    if rng.random() < 0.3:
        kw["initial"] = rng.choice([0, 1, -3, 2.5, 300, None])
    if rng.random() < 0.2:
        kw["where"] = mask(rng, shape)
    return kw


def outcome(f):
    try:
        return f(), None
    except Exception as error:  # noqa: BLE001 -- the error is what is compared
        return None, error


def summed_dtype(x, kw):
    """The dtype NumPy adds in: dtype=, else the promotion of the input's and out's (NumPy's rule for
    an out= without dtype=), else numpy.sum's default."""
    if kw.get("dtype") is not None:
        return np.dtype(kw["dtype"])
    default = np.sum(np.zeros(1, x.dtype)).dtype
    return np.result_type(x.dtype, kw["out"].dtype) if "out" in kw else default


def holds(wide, narrow):
    """Whether every value of dtype `narrow` goes into `wide` and back unchanged (numpy's "safe"
    casts but 64-bit integers into float64 and the like, which round)."""
    if narrow.kind in "biu" and wide.kind == "f":
        return narrow.kind == "b" or 2 * narrow.itemsize <= wide.itemsize
    return np.can_cast(narrow, wide, "safe")


def difference(x, kw, want, want_error, got, got_error):
    """What differs between NumPy's outcome and cured's, or None."""
    if (want_error is None) != (got_error is None):
        return f"numpy {want_error!r}, cured {got_error!r}"
    if got_error is not None:
        same = isinstance(got_error, type(want_error)) or isinstance(want_error, type(got_error))
        return None if same else f"numpy {want_error!r}, cured {got_error!r}"
    a, b = np.asarray(want), np.asarray(got)
    if a.dtype != b.dtype or a.shape != b.shape or type(want) is not type(got):
        return f"numpy {type(want).__name__} {a.dtype} {a.shape}, cured {type(got).__name__} {b.dtype} {b.shape}"
    if "out" in kw and got is not kw["out"]:
        return "out= not returned"
    summed_in = summed_dtype(x, kw)
    if a.dtype.kind in "biu" and summed_in.kind == "f":
        return None  # a float sum cast into an integer out=: the order's last bit decides the integer
    if x.dtype.kind == "f" and summed_in.kind in "biu":
        return None  # floats cast into integers element by element: undefined out of range
    if "out" in kw and (not holds(kw["out"].dtype, summed_in) or
                        (kw.get("initial", 0) is None and kw["out"].dtype != summed_in)):
        # NumPy's reduction runs through out=: initial= cast into its dtype first (bool(-4) is
        # True), or with initial=None the first element cast straight into it, and the running
        # sums cast into it and back at each buffer's end
        return None
    if a.dtype.kind in "biu":
        return None if np.array_equal(a, b) else f"integers differ: numpy {a.ravel()[:4]}, cured {b.ravel()[:4]}"
    if "where" in kw and np.asarray(a).size:
        # NumPy skips the masked elements; cured adds zeros in their place: the bound below, on the
        # unmasked elements' magnitudes
        x = np.where(np.broadcast_to(np.array(kw["where"], dtype=bool), x.shape), x, np.zeros((), x.dtype))
    if np.float16 in (a.dtype, summed_in, x.dtype):
        return None  # NumPy adds float16 in float16 along strided axes
    # NumPy may add in out='s float32 where the promotion says float64: the coarser of the two.
    coarser = min((d for d in (summed_in, a.dtype) if d.kind == "f"), key=lambda d: d.itemsize, default=a.dtype)
    tolerance = {"f": 1e-3, "d": 1e-9}[coarser.char]
    scale = np.sum(np.abs(x.astype(np.float64)), axis=kw.get("axis"), keepdims=kw.get("keepdims", False)) + 1
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    close = (np.abs(a64 - b64) <= tolerance * scale) | (np.isnan(a64) & np.isnan(b64)) | (a64 == b64)
    return None if np.all(close) else f"floats differ: numpy {a.ravel()[:4]}, cured {b.ravel()[:4]}"


def main():
    warnings.simplefilter("ignore")  # NumPy's warnings for the casts it makes
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else int(np.random.SeedSequence().entropy % 2**32)
    rng = np.random.default_rng(seed)
    print(f"seed {seed}")
    cases = differences = 0
    end = time.time() + seconds
    while time.time() < end:
        shape = tuple(int(rng.choice(EXTENTS)) for _ in range(int(rng.integers(0, 5))))
        if np.prod(shape) > 200_000:
            continue
        x = view(rng, data(rng, rng.choice(DTYPES), shape))
        kw = arguments(rng, x.shape)
        want, want_error = outcome(lambda: np.sum(x, **kw))
        if want_error is None and rng.random() < 0.3:
            out_shape = np.shape(want) + ((2,) if rng.random() < 0.15 else ())
            out_dtype = np.dtype(rng.choice(DTYPES)) if rng.random() < 0.5 else np.asarray(want).dtype
            kw["out"] = np.zeros(out_shape, out_dtype)
            want, want_error = outcome(lambda: np.sum(x, **{**kw, "out": np.zeros(out_shape, out_dtype)}))
        got, got_error = outcome(lambda: cured.sum(x, device="cpu", **kw))
        cases += 1
        found = difference(x, kw, want, want_error, got, got_error)
        if found:
            differences += 1
            if differences <= 25:
                shown = {k: (v.dtype, v.shape) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
                print(f"{x.dtype} {x.shape} strides {x.strides} {shown}: {found}")
    print(f"{cases} calls, {differences} differences (seed {seed})")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
