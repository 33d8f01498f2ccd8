"""cured.sum with NumPy's whole signature: axis, keepdims, out, initial, every accumulator.

CPU tests (CI) check the axis kernels' CPU order model and the argument handling against numpy.sum;
GPU tests check that the kernels give the model's bits, for host and device input, under any grid.
Floats are compared with numpy.sum within the bound of a sum of R terms (gamma(R) * sum|x|), or
exactly where the data makes every order exact (small integers in a float dtype)."""
import itertools
import math

import numpy as np
import pytest

import cured
from reference import DTYPES, random_array

SHAPES = [(5,), (4, 5), (3, 1, 4), (2, 3, 4), (2, 3, 1, 5), (3, 4, 5, 6), (1, 7), (7, 1)]
# Long rows (several row segments) and long columns (several column segments, then their sums);
# float32 rows of 1023 chunks (a warp's row), 1024 and 1024 with a short last chunk (a block's,
# axis.h: float64's are 2046 and 2048 chunks, one block segment each), and 8193 chunks (the
# shortest row of three block segments, the last of one chunk; float64: 16386 chunks, five).
LONG_SHAPES = [(3, 20011), (20011, 3), (2, 70000), (5000, 40), (40, 5000), (64, 64, 65), (4, 4092), (3, 4096),
               (2, 4095), (2, 32772)]
ACCS = ["int64", "uint64", "float32", "float64"]


def all_axes(ndim):
    """Every axis= for ndim: None, each int (also negative), every tuple (also empty)."""
    yield None
    for d in range(ndim):
        yield d
        yield d - ndim
    for k in range(ndim + 1):
        yield from itertools.combinations(range(ndim), k)


def rand(seed, shape, dtype):
    dtype = np.dtype(dtype)
    return random_array(seed, dtype, int(np.prod(shape))).reshape(shape)


def small_integers(seed, shape, dtype):
    """Values in [-8, 8], never all zero: every order of addition gives the exact sum."""
    rng = np.random.default_rng([seed, len(shape), int(np.prod(shape))])
    x = rng.integers(-8, 9, size=shape)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return x > 0
    if dtype.kind == "u":
        x = np.abs(x)
    return x.astype(dtype)


def close_to_numpy(got, x, axis, acc, slack=0.0):
    """Float sums of R terms: |got - exact| <= gamma(R + 1) * sum|x| (acc's unit roundoff), plus
    `slack` (a final rounding into a narrower result)."""
    exact = np.sum(x.astype(np.longdouble), axis=axis)
    bound_terms = np.sum(np.abs(x.astype(np.longdouble)), axis=axis)
    reduced = x.size // max(np.asarray(exact).size, 1)
    u = float(np.finfo(acc).eps) / 2
    h = reduced + 1
    gamma = h * u / (1 - h * u)
    err = np.abs(np.asarray(got, dtype=np.longdouble) - exact)
    assert np.all(err <= gamma * bound_terms + np.finfo(acc).tiny + slack), (got, exact)


@pytest.mark.parametrize("shape", SHAPES + LONG_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "float16", "float32", "float64", "bool"])
def test_every_axis_matches_numpy(seed, shape, dtype):
    x = rand(seed, shape, dtype)
    for axis in all_axes(len(shape)):
        want = np.sum(x, axis=axis)
        got = cured.sum(x, axis=axis, device="cpu")
        assert type(got) is type(want) and np.shape(got) == np.shape(want) and got.dtype == want.dtype, (axis, got)
        if x.dtype.kind == "f":
            acc = np.float64 if dtype == "float64" else np.float32
            if dtype == "float16":  # float32's bound, then one rounding to float16 (half a unit, 2^-11)
                exact = np.sum(x.astype(np.float64), axis=axis)
                slack = np.abs(exact) * 2.0**-11 + 2.0**-24
                close_to_numpy(np.asarray(got, np.float64) - 0, x.astype(acc), axis, acc, slack)
            else:
                close_to_numpy(got, x, axis, acc)
        else:
            assert np.array_equal(got, want), (axis, got, want)


@pytest.mark.parametrize("in_dtype", DTYPES, ids=str)
@pytest.mark.parametrize("dtype", [None, "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                   "uint64", "float16", "float32", "float64"])
def test_every_accumulator_as_numpy(seed, in_dtype, dtype):
    """dtype= as numpy.sum takes it: the result dtype, wrap-around, bool's "any", casts first."""
    x = small_integers(seed, (6, 7), in_dtype)
    if in_dtype.kind in "iu":
        x = rand(seed, (6, 7), in_dtype)  # the whole range: sums wrap as NumPy's
        if dtype is not None and np.dtype(dtype).kind == "f":
            x = small_integers(seed, (6, 7), in_dtype)  # exact in every order
    for axis in (None, 0, 1, (0, 1), ()):
        want = np.sum(x, axis=axis, dtype=dtype)
        got = cured.sum(x, axis=axis, dtype=dtype, device="cpu")
        assert np.shape(got) == np.shape(want) and got.dtype == want.dtype, (axis, got, want)
        assert np.array_equal(got, want), (axis, got, want)


@pytest.mark.parametrize("shape, axis", [((4, 5), 0), ((4, 5), 1), ((2, 3, 4), (0, 2)), ((3, 4), None), ((3, 4), ())])
def test_keepdims_initial_and_out(seed, shape, axis):
    x = rand(seed, shape, "int32")
    want = np.sum(x, axis=axis, keepdims=True, initial=5)
    got = cured.sum(x, axis=axis, keepdims=True, initial=5, device="cpu")
    assert got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got, want)
    out = np.full(np.sum(x, axis=axis).shape, -1, np.float64)
    assert cured.sum(x, axis, None, out, device="cpu") is out  # NumPy's positional order
    assert np.array_equal(out, np.sum(x, axis=axis, out=np.zeros_like(out)))
    f = rand(seed, shape, "float32")
    g = cured.sum(f, axis=axis, initial=2.5, device="cpu")
    h = cured.sum(f, axis=axis, device="cpu")
    assert np.array_equal(g, np.asarray(h + np.float32(2.5), dtype=np.float32))  # added once, after the elements


@pytest.mark.parametrize("dtype", ["int8", "uint16", "float16", "float32", "float64", "bool"])
def test_zero_dimensional_input_gives_numpys_scalar(seed, dtype):
    x = np.asarray(rand(seed, (1,), dtype)[0])  # a 0-d array: every axis is reduced, none is kept
    for axis, keepdims in itertools.product((None, ()), (False, True)):
        want = np.sum(x, axis=axis, keepdims=keepdims)
        got = cured.sum(x, axis=axis, keepdims=keepdims, device="cpu")
        assert type(got) is type(want) and got == want, (axis, keepdims, got, want)
    if x.dtype.kind == "f":
        assert type(cured.fsum(x, keepdims=True, device="cpu")) is type(np.sum(x, keepdims=True))


def test_initial_none_is_no_initial_as_numpy(seed):
    """NumPy takes initial=None as no initial value (not as NaN), and refuses it for a sum along an
    empty axis, also where the result has no element."""
    x = rand(seed, (3, 4), "float64")
    for axis in (None, 1, (0, 1)):
        assert np.array_equal(cured.sum(x, axis=axis, initial=None, device="cpu"), cured.sum(x, axis=axis, device="cpu"))
    assert cured.sum(x.astype(np.int32), initial=None, device="cpu") == np.sum(x.astype(np.int32))
    for shape, axis in (((3, 0), 0), ((0, 3), 1), ((2, 0, 3), (0, 2)), ((0,), ())):  # no output sums nothing
        assert cured.sum(np.zeros(shape), axis=axis, initial=None, device="cpu").shape == \
            np.sum(np.zeros(shape), axis=axis, initial=None).shape
    for shape, axis in (((3, 0), 1), ((0, 3), 0), ((0,), None), ((0, 0), 1), ((3, 0, 0, 1), 1), ((0, 3, 0), 2)):
        with pytest.raises(ValueError, match="no identity"):
            np.sum(np.zeros(shape), axis=axis, initial=None)
        with pytest.raises(ValueError, match="no identity"):
            cured.sum(np.zeros(shape), axis=axis, initial=None, device="cpu")


def test_initial_as_numpy():
    x = np.ones((2, 3), np.int8)
    assert np.array_equal(cured.sum(x, axis=1, initial=300, device="cpu"), np.sum(x, axis=1, initial=300))
    assert np.array_equal(cured.sum(x, axis=1, initial=1.5, device="cpu"), np.sum(x, axis=1, initial=1.5))
    with pytest.raises(OverflowError):
        cured.sum(x, axis=1, initial=300, dtype=np.int8, device="cpu")
    with pytest.raises(ValueError, match="round its sum twice"):
        cured.sum(np.ones(3), initial=1.0, version=cured.EXACT_VERSION, device="cpu")


@pytest.mark.parametrize("shape, axis", [((0,), 0), ((0, 3), 0), ((0, 3), 1), ((3, 0), 0), ((3, 0), 1), ((2, 0, 3), (0, 2)),
                                         ((0, 3), None)])
def test_zero_length_extents(shape, axis):
    x = np.ones(shape, np.float32)
    want = np.sum(x, axis=axis, initial=2)
    got = cured.sum(x, axis=axis, initial=2, device="cpu")
    assert np.shape(got) == np.shape(want) and got.dtype == want.dtype and np.array_equal(got, want)
    assert np.array_equal(cured.sum(x, axis=axis, device="cpu"), np.sum(x, axis=axis))


def test_views_are_summed_as_their_c_order_copy(seed):
    """Non-contiguous and negative-stride views: the bits of the same values in C order."""
    base = rand(seed, (6, 8, 10), "float32")
    for view in (base.T, base[::-1], base[:, ::-2], base[..., 1::3], base.transpose(1, 0, 2)[::-1, :, ::-1]):
        for axis in all_axes(view.ndim):
            got = cured.sum(view, axis=axis, device="cpu")
            want = cured.sum(np.ascontiguousarray(view), axis=axis, device="cpu")
            assert np.array_equal(np.asarray(got).view(np.uint32), np.asarray(want).view(np.uint32)), axis


def test_numpy_errors():
    x = np.ones((2, 3))
    with pytest.raises(np.exceptions.AxisError):
        cured.sum(x, axis=2, device="cpu")
    with pytest.raises(np.exceptions.AxisError):
        cured.sum(x, axis=-3, device="cpu")
    with pytest.raises(ValueError, match="duplicate"):
        cured.sum(x, axis=(0, -2), device="cpu")
    for bad in ("yes", 1.0, None):  # keepdims: as NumPy, an integer or a bool, not anything with a truth value
        with pytest.raises(TypeError):
            np.sum(x, keepdims=bad)
        with pytest.raises(TypeError):
            cured.sum(x, keepdims=bad, device="cpu")
    assert cured.sum(x, keepdims=2, device="cpu").shape == np.sum(x, keepdims=2).shape == (1, 1)
    for bad in ([0], 1.0, "0", True, (0, np.True_)):  # NumPy takes no bool for an axis, though bool is an int
        with pytest.raises(TypeError):
            np.sum(x, axis=bad)
        with pytest.raises(TypeError):
            cured.sum(x, axis=bad, device="cpu")
    with pytest.raises(ValueError, match="shape"):
        cured.sum(x, axis=0, out=np.zeros(2), device="cpu")
    with pytest.raises(ValueError, match="shape"):
        cured.sum(x, axis=0, out=np.zeros((1, 3)), device="cpu")  # NumPy: keepdims decides
    read_only = np.zeros(3)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        cured.sum(x, axis=0, out=read_only, device="cpu")
    with pytest.raises(ValueError, match="default version"):
        cured.sum(x, axis=0, version=3, device="cpu")
    with pytest.raises(ValueError, match="consecutive elements"):  # CUB's segmented reduction sums rows only
        cured.sum(x, axis=0, version="cub")
    with pytest.raises(ValueError, match="GPU only"):
        cured.sum(x, axis=1, version="cub", device="cpu")
    with pytest.raises(TypeError, match="default accumulator"):
        cured.sum(x.astype(np.float32), axis=1, dtype=np.float64, version="cub")
    with pytest.raises(TypeError, match="cannot sum"):
        cured.sum(np.ones((2, 2), np.complex64), axis=0, device="cpu")
    assert cured.sum(np.float32(3), axis=0, device="cpu") == 3  # NumPy lets a 0-d array take axis 0
    assert cured.sum(x, axis=0, where=True, device="cpu").shape == (3,)


class InterfaceOnly:
    """A device array as its CUDA Array Interface alone (no GPU needed to read it)."""

    def __init__(self, shape, typestr="<f4"):
        self.__cuda_array_interface__ = dict(version=3, typestr=typestr, shape=shape, data=(1 << 40, False),
                                             strides=None, stream=None)


@pytest.mark.parametrize("dtype", ["int16", "uint8", "bool", "float32", "float64"])
def test_where_masks_as_numpy(seed, dtype):
    """numpy.sum's where=: the masked elements take no part. cured puts zeros in their place, so its
    sum is its own sum of that array (bit for bit) and, for integers and bool, numpy.sum's exactly;
    floats within the order's bound. Masks broadcast, come as lists, scalars or NumPy bools."""
    rng = np.random.default_rng(seed)
    x = rand(seed, (6, 7, 5), dtype)
    masks = [rng.random(x.shape) < 0.5, rng.random((7, 1)) < 0.5, (rng.random(5) < 0.5).tolist(), False, np.True_,
             rng.random((6, 1, 1)) < 0.5]
    for mask, axis, keepdims, initial in itertools.product(masks, [None, 0, (0, 2), -1], [False, True], [0, 3]):
        kw = dict(axis=axis, keepdims=keepdims, initial=initial, where=mask)
        got, want = cured.sum(x, device="cpu", **kw), np.sum(x, **kw)
        assert type(got) is type(want) and np.shape(got) == np.shape(want) and got.dtype == want.dtype
        zeroed = np.where(np.broadcast_to(np.asarray(mask, bool), x.shape), x, np.zeros((), x.dtype))
        same = cured.sum(zeroed, axis=axis, keepdims=keepdims, initial=initial, device="cpu")
        assert np.array_equal(bits(got), bits(same)), kw
        if x.dtype.kind in "biu":
            assert np.array_equal(got, want), kw
        else:
            terms = x.size if axis is None else math.prod(x.shape[a] for a in np.atleast_1d(axis))
            magnitude = np.sum(np.abs(zeroed.astype(np.float64)), axis=axis, keepdims=keepdims) + initial
            bound = (terms + 1) * np.finfo(x.dtype).eps * magnitude + 1e-30  # initial= is added once more
            assert np.all(np.abs(got.astype(np.float64) - want) <= bound), kw
    out, same = np.full(5, -1.0), np.full(5, -1.0)  # a NumPy out= of another dtype, cast into
    assert cured.sum(x, axis=(0, 1), where=masks[0], initial=0, out=out, device="cpu") is out
    cured.sum(np.where(masks[0], x, np.zeros((), x.dtype)), axis=(0, 1), initial=0, out=same, device="cpu")
    assert np.array_equal(bits(out), bits(same))


def test_where_errors_as_numpy():
    x = np.arange(12.0).reshape(3, 4)
    with pytest.raises(ValueError, match="to use a where mask one has to specify 'initial'"):
        cured.sum(x, where=[True, False, True, True], initial=None, device="cpu")
    with pytest.raises(ValueError, match="to use a where mask one has to specify 'initial'"):
        cured.sum(x, where=np.True_, initial=None, device="cpu")  # only the True object is no mask
    assert cured.sum(x, where=True, initial=None, device="cpu") == 66
    with pytest.raises(TypeError, match="Cannot cast array data from dtype\\('int64'\\) to dtype\\('bool'\\)"):
        cured.sum(x, where=np.array([1, 0, 1, 1]), device="cpu")
    assert cured.sum(x, where=[1, 0, 1, 1], device="cpu") == np.sum(x, where=[1, 0, 1, 1])  # a list is read as bool
    with pytest.raises(ValueError, match="broadcast"):
        cured.sum(x, where=[True, False, True], device="cpu")
    with pytest.raises(TypeError, match="where= masks host arrays"):
        cured.sum(InterfaceOnly((3, 4)), where=[True, False, True, True])


def random_call(rng):
    """One random numpy.sum call: an array of 0 to 4 dimensions (extents 0 to 6), reversed or
    transposed or byte-swapped views, any axis form (now and then a bad one), and dtype=, keepdims=
    and initial=, each now and then."""
    ndim = int(rng.integers(0, 5))
    shape = tuple(int(rng.integers(0, 7)) if rng.random() < 0.1 else int(rng.integers(1, 7)) for _ in range(ndim))
    x = random_array(int(rng.integers(1 << 30)), DTYPES[int(rng.integers(len(DTYPES)))], int(np.prod(shape)))
    x = x.reshape(shape)
    if ndim and rng.random() < 0.3:
        x = x[tuple(slice(None, None, -1) if rng.random() < 0.5 else slice(None) for _ in range(ndim))]
    if ndim > 1 and rng.random() < 0.3:
        x = x.transpose(rng.permutation(ndim))
    if rng.random() < 0.1:
        x = x.astype(x.dtype.newbyteorder())
    draw = rng.random()
    if draw < 0.2 or not ndim:
        axis = None if draw < 0.2 else ()
    elif draw < 0.6:
        axis = int(rng.integers(-ndim, ndim))
    else:
        axis = tuple(int(a) for a in rng.choice(ndim, size=int(rng.integers(0, ndim + 1)), replace=False))
    if rng.random() < 0.05:  # NumPy's errors: an axis out of range, or one named twice
        axis = (ndim, -ndim - 1)[int(rng.integers(2))] if not ndim or rng.random() < 0.5 else (0, -ndim)
    kwargs = {}
    if rng.random() < 0.3:
        kwargs["keepdims"] = bool(rng.random() < 0.5)
    if rng.random() < 0.2:
        kwargs["dtype"] = DTYPES[int(rng.integers(len(DTYPES)))]
    if rng.random() < 0.15:
        kwargs["initial"] = int(rng.integers(0, 4))
    return x, axis, kwargs


def test_random_calls_match_numpy_sum(seed):
    """3000 random calls on the CPU against numpy.sum (a fifth of those that return an array also
    with a NumPy out= of its dtype): the same exception type, or the same type,
    shape and dtype of result, integers and bools equal, floats within the bound that both orders
    keep (each result within (n - 1) u sum|x| of the exact sum, n the terms with initial=, u the
    accumulator's unit roundoff).
    float16 accumulators are left out of the values: NumPy rounds each step of a strided float16
    sum to float16 (and can overflow to inf where the exact sum is finite); cured adds in float32
    and rounds once."""
    rng = np.random.default_rng([seed, 13])
    for call in range(3000):
        x, axis, kwargs = random_call(rng)
        try:
            with np.errstate(all="ignore"):
                want = np.sum(x, axis=axis, **kwargs)
        except Exception as error:  # NumPy's refusal: cured must refuse alike
            with pytest.raises(type(error)):
                cured.sum(x, axis=axis, device="cpu", **kwargs)
            continue
        if np.ndim(want) and rng.random() < 0.2:
            kwargs["out"] = np.empty_like(want)
        with np.errstate(all="ignore"):
            got = cured.sum(x, axis=axis, device="cpu", **kwargs)
        case = (call, x.dtype, x.shape, x.strides, axis, {k: v for k, v in kwargs.items() if k != "out"})
        if "out" in kwargs:
            assert got is kwargs["out"], case
        assert type(got) is type(want) and np.shape(got) == np.shape(want) and got.dtype == want.dtype, case
        acc = np.dtype(kwargs.get("dtype") or np.sum(np.zeros(1, x.dtype)).dtype)
        if want.dtype.kind in "biu":
            assert np.array_equal(got, want), case
        elif acc != np.float16 and x.dtype != np.float16:
            initial = kwargs.get("initial", 0)  # one more term, added first by NumPy and last by cured
            n = x.size // max(want.size, 1) + ("initial" in kwargs)  # terms an output adds
            magnitude = np.sum(np.abs(x.astype(np.float64)), axis=axis, keepdims=kwargs.get("keepdims", False))
            bound = max(n - 1, 1) * np.finfo(np.result_type(acc, np.float32)).eps / 2 * (magnitude + abs(initial))
            assert np.all(np.abs(got.astype(np.float64) - want.astype(np.float64)) <= 2 * bound), case


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_plain_calls_along_axes_equal_the_general_path(seed, dtype):
    """A NumPy array along axes with nothing else asked is summed in C (module_numpy_sum.c's axes_route); the
    same call with keepdims=np.False_ takes cured/numpy_sum.py's path: the same object, bit for bit,
    as NumPy's in type, shape and dtype. Axes it leaves to Python (NumPy integers, lists, bools, out
    of range, repeated) still give NumPy's results and errors."""
    for shape in [(7,), (4, 5), (3, 1, 4), (2, 3, 4), (3, 4, 5, 6), (0, 3), (5000, 40), (2, 70000)]:
        x = rand(seed, shape, dtype)
        for view in (x, x[::-1], np.asfortranarray(x), x.astype(x.dtype.newbyteorder())):
            for axis in all_axes(len(shape)):
                if axis is None:
                    continue
                got = cured.sum(view, axis=axis, device="cpu")
                general = cured.sum(view, axis=axis, keepdims=np.False_, device="cpu")
                want = np.sum(view, axis=axis)
                assert type(got) is type(general) is type(want), (shape, axis)
                assert np.shape(got) == np.shape(want) and got.dtype == want.dtype, (shape, axis)
                assert np.asarray(got).tobytes() == np.asarray(general).tobytes(), (shape, axis)
                if x.dtype.kind != "f":
                    assert np.array_equal(got, want), (shape, axis)
    x = rand(seed, (3, 4), dtype)
    assert np.asarray(cured.sum(x, axis=np.int64(1), device="cpu")).tobytes() == \
        np.asarray(cured.sum(x, axis=1, device="cpu")).tobytes()
    assert np.asarray(cured.sum(x, axis=(np.int8(-1), 0), device="cpu")).tobytes() == \
        np.asarray(cured.sum(x, axis=(0, 1), device="cpu")).tobytes()
    for bad, error in (([0], TypeError), (False, TypeError), ((1, True), TypeError), (2, np.exceptions.AxisError),
                       ((-3,), np.exceptions.AxisError), (1 << 70, (np.exceptions.AxisError, OverflowError)),
                       ((1, -1), ValueError)):
        with pytest.raises(error):
            np.sum(x, axis=bad)
        with pytest.raises(error):
            cured.sum(x, axis=bad, device="cpu")
    with pytest.raises(ValueError, match="default version"):
        cured.sum(x, axis=0, version=8, device="cpu")
    with pytest.raises(ValueError, match="device must be"):
        cured.sum(x, axis=0, device="tpu")
    with pytest.raises(ValueError, match="device must be"):
        cured.sum(x.ravel(), axis=0, device="tpu")


NO_CAST_DTYPES = [None, "float32", "float64", "float16", "int8", "uint16", "int32", "int64", "uint64"]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_keyword_calls_along_axes_equal_the_general_path(seed, dtype):
    """keepdims= a bool, a dtype= that casts no element, initial= an int or a float and a NumPy out=
    of the result's dtype and shape are summed in C too (axes_route): each call gives, bit for bit,
    what cured/numpy_sum.py's path gives (taken with keepdims= a NumPy bool), NumPy's type, shape and
    dtype, and NumPy's values for integers (wrapped into int8 or uint16); out= is the object
    returned, whether the sums are written there directly (C-contiguous) or copied (a strided
    view)."""
    x = rand(seed, (6, 5, 4), dtype)
    casts = np.dtype(dtype).kind == "f"
    for into in NO_CAST_DTYPES:
        if into is not None and (np.dtype(into).kind in "iu") == casts:
            continue  # a cast of each element first (or a float sum of integers): Python's path
        if into == "float16" and dtype != "float16":
            continue
        for axis, keepdims, initial in itertools.product([None, 0, 1, (0, 2), (0, 1, 2)], (False, True),
                                                         ({}, {"initial": 3}, {"initial": 1.5})):
            kwargs = {"axis": axis, "dtype": into, "keepdims": keepdims, "device": "cpu", **initial}
            got = cured.sum(x, **kwargs)
            general = cured.sum(x, **{**kwargs, "keepdims": np.bool_(keepdims)})
            want = np.sum(x, axis=axis, dtype=into, keepdims=keepdims, **initial)
            case = (into, axis, keepdims, initial)
            assert type(got) is type(general) is type(want), case
            assert np.shape(got) == np.shape(want) and got.dtype == want.dtype, case
            assert np.asarray(got).tobytes() == np.asarray(general).tobytes(), case
            if want.dtype.kind != "f":
                assert np.array_equal(got, want), case
            if not np.ndim(want):
                continue
            for out in (np.empty_like(want), np.empty(want.shape + (2,), want.dtype)[..., 1]):
                out.fill(3)
                assert cured.sum(x, out=out, **kwargs) is out, case
                assert out.tobytes() == np.ascontiguousarray(general).tobytes(), case


def test_numpy_out_takes_the_results_directly_unless_it_overlaps_the_input(seed):
    """A NumPy out= of the accumulator's dtype, C-contiguous and apart from the input, receives the
    results itself (sum_axes returns it); any other out= gets them through a copy, as NumPy's cast.
    Either way the bits are those of the call without out=, and an out= inside the input gets the
    sums of the input as it was (NumPy buffers such a reduction)."""
    x = rand(seed, (6, 5, 40), "float32")
    want = cured.sum(x, axis=0, device="cpu")
    fold = ((6, 200), (True, False))
    direct = np.full((5, 40), np.nan, np.float32)
    assert cured._cured.sum_axes(x, *fold, np.float32, "cpu", into=direct) is direct
    assert np.array_equal(bits(direct), bits(want))
    for refused in (np.empty((40, 5), np.float32).T, np.empty((5, 40), np.float64), np.empty((5, 40), ">f4"),
                    np.empty((5, 39), np.float32), x[1], x.reshape(-1)[150:350]):
        before = refused.copy()
        got = cured._cured.sum_axes(x, *fold, np.float32, "cpu", into=refused)
        assert got is not refused and np.array_equal(bits(got), bits(want).ravel())
        assert np.array_equal(bits(refused), bits(before))  # a refused out= is left alone
    for out in (np.full((5, 40), np.nan, np.float32), np.empty((40, 5), np.float32).T, np.empty((5, 40), ">f4")):
        assert cured.sum(x, axis=0, out=out, device="cpu") is out
        assert np.array_equal(out, want)
    wide = np.empty((5, 40), np.float64)  # NumPy sums into a float64 out= in float64: directly here
    assert cured.sum(x, axis=0, out=wide, device="cpu") is wide
    assert np.array_equal(bits(wide), bits(cured.sum(x, axis=0, dtype=np.float64, device="cpu")))
    for start in (0, 100, 150, 1000):  # out= inside the input, where the results begin or not
        y = x.copy()
        inside = y.reshape(-1)[start:start + 200].reshape(5, 40)
        assert cured.sum(y, axis=0, out=inside, device="cpu") is inside
        assert np.array_equal(bits(inside), bits(want)), start
    ints = rand(seed, (7, 9), "int32")
    out = np.full((1, 9), -1, np.int64)
    assert cured.sum(ints, axis=0, keepdims=True, initial=5, out=out, device="cpu") is out
    assert np.array_equal(out, np.sum(ints, axis=0, keepdims=True, initial=5))
    empty = np.full(4, 3.0)  # no element summed: zeros, then initial
    assert cured.sum(np.ones((4, 0)), axis=1, out=empty, device="cpu") is empty and np.array_equal(empty, np.zeros(4))
    assert cured.sum(np.ones((4, 0)), axis=1, initial=2, out=empty, device="cpu") is empty
    assert np.array_equal(empty, np.full(4, 2.0))


def test_fold_order_is_the_shape_s(seed):
    """Merging axes is free: (a, b, c) along (1, 2) has the bits of (a, b * c) along 1."""
    x = rand(seed, (7, 30, 41), "float32")
    got = cured.sum(x, axis=(1, 2), device="cpu")
    assert np.array_equal(got.view(np.uint32), cured.sum(x.reshape(7, -1), axis=1, device="cpu").view(np.uint32))
    y = rand(seed, (5, 1, 9000, 1), "float64")  # extents of 1 change nothing
    assert np.array_equal(cured.sum(y, axis=2, device="cpu").ravel(), cured.sum(y.reshape(5, 9000), axis=1, device="cpu"))


# Beyond the shapes above: several blocks of 1024 columns, strands (columns narrower than 32 vectors),
# rows of several segments, enough bytes for several threads, and rows of one whole round of 1 to 32
# lanes (cpu_axis.c's short rows: float32 rows of 4 to 128, float64 rows of 2 to 64).
FAST_SHAPES = [(3000, 700), (3000, 2), (3000, 16), (3000, 100), (40, 2500), (5, 3000, 7), (2, 2**17 + 3),
               (2**17 + 3, 2), (16, 2**14, 3), (300, 4100), (300, 32), (200, 64), (100, 128)]


def model_pairs():
    """(input dtype, accumulator) pairs sum_axes takes: NumPy's own, and each input into the others
    it allows (floats only into floats)."""
    for dtype in ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16",
                  "float32", "float64"]:
        kind = np.dtype(dtype).kind
        for acc in (["float32", "float64"] if kind == "f" else ["int64", "uint64", "float32", "float64"]):
            yield dtype, acc


@pytest.mark.parametrize("dtype, acc", list(model_pairs()), ids=str)
@pytest.mark.parametrize("threads", [0, 1, 3])
def test_cpu_sum_along_axes_has_the_models_bits(seed, dtype, acc, threads):
    """device="cpu" along axes (csrc/cpu_axis.c: whole rows into blocks of columns' sums, the pool's
    threads) against the scalar order model the GPU's kernels are tested against, bit for bit."""
    try:
        cured._cured._set_cpu_tiles(threads, False)
        for shape in SHAPES + LONG_SHAPES + ROW_SHAPES + FAST_SHAPES:
            x = rand(seed + len(shape), shape, dtype)
            for axis in all_axes(len(shape)) if len(shape) <= 3 else (1, (0, 2), (1, 3), -1):
                axes = (axis,) if isinstance(axis, int) else tuple(range(len(shape))) if axis is None else axis
                reduce = tuple(d in {a % len(shape) for a in axes} for d in range(len(shape)))
                got, want = (cured._cured.sum_axes(x, shape, reduce, np.dtype(acc), "cpu", model=model)
                             for model in (False, True))
                assert got.dtype == want.dtype and np.array_equal(bits(got), bits(want)), (shape, axis)
    finally:
        cured._cured._set_cpu_tiles(0, False)


@pytest.mark.parametrize("dtype, width", [("float32", 4), ("float32", 8), ("float64", 2)])
def test_cpu_rows_of_one_or_two_chunks_have_the_models_bits(seed, dtype, width):
    """cpu_axis.c's rows of one 16-byte chunk (a register's lanes are consecutive rows) and float32
    rows of two (the tree's one level after): every count of rows around the registers' 4 (float64:
    2) rows a step, elements of magnitudes 1e-8 to 1e8 so that another order of the additions
    shows, and a row of -0.0 (its chain starts from +0.0, so its sum is +0.0)."""
    rng = np.random.default_rng([seed, width])
    for rows in range(1, 13):
        x = (rng.standard_normal((rows, width)) * 10.0 ** rng.integers(-8, 9, (rows, width))).astype(dtype)
        x[rows // 2] = -0.0
        got, want = (cured._cured.sum_axes(x, x.shape, (False, True), np.dtype(dtype), "cpu", model=model)
                     for model in (False, True))
        assert np.array_equal(bits(got), bits(want)), (rows, got, want)
        assert bits(got)[rows // 2] == 0  # +0.0


@pytest.mark.parametrize("dtype, acc", [pair for pair in model_pairs() if pair[1].startswith("float")], ids=str)
def test_cpu_rows_of_one_round_have_the_models_bits(seed, dtype, acc):
    """cpu_axis.c's rows of at most 32 chunks, each one round of its lanes: read in place where they
    fill the round and are of the accumulator's type, else converted into whole rounds a batch at a
    time with zeros past each row's end (float32 rows of 10: 3 chunks, 4 lanes; float16 into float32:
    8-element chunks). Every length to 40 elements and around 32 chunks, more rows than a batch, on
    one thread and three, against the scalar model, and a row of -0.0 (its chains start from +0.0)."""
    v = 16 // np.dtype(dtype).itemsize
    lengths = sorted(set(range(2, 41)) | {31 * v + 1, 32 * v - 1, 32 * v})
    try:
        for threads in (1, 3):
            cured._cured._set_cpu_tiles(threads, False)
            for length in lengths:
                x = rand(seed + length, (301, length), dtype)
                rng = np.random.default_rng([seed, length])
                if x.dtype.kind == "f":  # magnitudes far apart, so that another order shows
                    top = 3 if dtype == "float16" else 8
                    x = (x * 10.0 ** rng.integers(-top, top + 1, x.shape)).astype(dtype)
                    x[150] = -0.0
                elif x.dtype.kind in "iu":
                    x = x >> rng.integers(0, 8 * x.itemsize, x.shape).astype(x.dtype)
                got, want = (cured._cured.sum_axes(x, x.shape, (False, True), np.dtype(acc), "cpu", model=model)
                             for model in (False, True))
                assert np.array_equal(bits(got), bits(want)), (threads, length)
                if x.dtype.kind == "f":
                    assert bits(got)[150] == 0, length  # +0.0
    finally:
        cured._cured._set_cpu_tiles(0, False)



def test_float16_sums_in_float32_along_any_axis_where_numpy_may_round_each_addition(seed):
    """NumPy adds float16 in float32 along a contiguous axis but in float16 along a strided one,
    rounding each addition (4096 ones along axis 0 of a (4096, 2) array sum to 2048 there: 2048 + 1
    rounds back to 2048); cured adds float16 in float32 along every axis and rounds each sum once
    (README, "Types"), so its result is NumPy's contiguous one whichever axis holds the elements."""
    x = np.ones((4096, 2), np.float16)
    assert np.sum(x, axis=0)[0] == 2048 and np.sum(np.ascontiguousarray(x.T), axis=1)[0] == 4096  # NumPy's two
    assert np.array_equal(cured.sum(x, axis=0, device="cpu"), np.full(2, 4096, np.float16))
    # Random columns: float32's bound on 3000 additions, then one float16 rounding (half an ulp, 2^-11).
    y = rand(seed, (3000, 7), "float16")
    want = np.array([math.fsum(column) for column in y.T.astype(np.float64)])
    got = cured.sum(y, axis=0, device="cpu").astype(np.float64)
    bound = 2.0**-11 * np.abs(want) + 3000 * 2.0**-24 * np.sum(np.abs(y.astype(np.float64)), axis=0)
    assert np.all(np.abs(got - want) <= 1.001 * bound)


@pytest.mark.parametrize("acc", ["float32", "float64"])
def test_cpu_float16_inputs_convert_as_the_model(acc):
    """Every float16 bit pattern (subnormals, infinities, NaNs, -0.0) through cpu_axis.c's conversion
    (F16C's eight at a time where the CPU has it, else one by one) along columns and rows of every
    length kind, against the scalar model's cured_half_to_float: bit for bit, any NaN equal to any
    NaN (a NaN's payload is the CPU's). Deterministic: the input is all 2^16 patterns, shuffled."""
    patterns = np.arange(1 << 16, dtype=np.uint16)
    order = np.random.default_rng(16).permutation(patterns.size)
    x = patterns[order].view(np.float16)
    for shape, reduce in (((2, 32768), (True, False)), ((256, 256), (False, True)), ((65536 // 13, 13), (False, True)),
                          ((13, 65536 // 13), (True, False)), ((16, 4096), (False, True))):
        y = x[:int(np.prod(shape))].reshape(shape)
        got, want = (cured._cured.sum_axes(y, shape, reduce, np.dtype(acc), "cpu", model=model)
                     for model in (False, True))
        assert same_bits_any_nan(got, want), shape


# ---- on the GPU ------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_gpu_device_input_into_a_numpy_out(seed):
    """A device array's sums along axes into a NumPy out=: written there directly (through the lanes
    for 1 MiB of results or more) or cast into it, V9's and V10's, with the bits of the call without."""
    cp = pytest.importorskip("cupy")
    for shape, axis in (((300, 70), 0), ((2**19 + 3, 2), 1)):
        x = rand(seed, shape, "float32")
        d = cp.asarray(x)
        want = cured.sum(d, axis=axis)
        exact = cured.fsum(d, axis=axis)
        for dtype in ("float32", ">f4"):  # directly, and through a copy
            out = np.full(want.shape, np.nan, dtype)
            assert cured.sum(d, axis=axis, out=out) is out
            assert np.array_equal(out, want), (shape, dtype)
            assert cured.fsum(d, axis=axis, out=out) is out
            assert np.array_equal(out, exact), (shape, dtype)
        direct = np.full(want.size, np.nan, np.float32)
        fold = (shape, tuple(d == axis for d in range(2)))
        assert cured._cured.sum_axes(d, *fold, np.float32, into=direct) is direct
        assert np.array_equal(bits(direct), bits(want).ravel())


def bits(a):
    a = np.asarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.kind == "f" else a


def same_bits_any_nan(got, want) -> bool:
    """Bit for bit, any NaN equal to any NaN (a NaN's payload is the CPU's or the GPU's own)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype.kind != "f":
        return np.array_equal(got, want)
    nan = np.isnan(got)
    return np.array_equal(nan, np.isnan(want)) and np.array_equal(bits(got)[~nan], bits(want)[~nan])


# Rows of every kernel (v9_axis.cu): packed into vectors (2, 4 and 8 elements of 1- to 4-byte
# types), one chunk a lane (16, 40), 2 and 4 chunks a lane (200, 500 float32), and longer.
ROW_SHAPES = [(777, 2), (300, 4), (513, 8), (1000, 16), (257, 40), (129, 200), (65, 500)]
GPU_SHAPES = SHAPES + LONG_SHAPES + ROW_SHAPES + [(1000, 1000), (4096, 33), (33, 4096), (2**20, 2), (2, 2**20),
                                                  (16, 2**16, 3)]


@pytest.mark.gpu
@pytest.mark.parametrize("shape", GPU_SHAPES, ids=str)
@pytest.mark.parametrize("dtype, acc", [("float32", None), ("float64", None), ("float16", None), ("int8", None),
                                        ("int32", "uint64"), ("uint8", "float32"), ("bool", None),
                                        ("float32", "float64"), ("int64", "float64")])
def test_gpu_bits_equal_the_cpu_model(seed, shape, dtype, acc):
    x = rand(seed, shape, dtype)
    for axis in all_axes(len(shape)) if len(shape) <= 3 else (1, (0, 2), (1, 3), -1):
        want = cured.sum(x, axis=axis, dtype=acc, device="cpu")
        got = cured.sum(x, axis=axis, dtype=acc, device="gpu")
        assert np.shape(got) == np.shape(want) and np.array_equal(bits(got), bits(want)), (axis, got, want)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(3000, 700), (3000, 2), (3000, 16), (3000, 100), (7, 20000)], ids=str)
def test_gpu_grid_does_not_change_the_bits(seed, shape):
    x = rand(seed, shape, "float32")
    expected = {axis: cured.sum(x, axis=axis, device="cpu") for axis in (0, 1)}
    try:
        for blocks in (1, 3, 1000):
            cured._cured._set_test_launch(blocks, 0)
            for axis in (0, 1):
                assert np.array_equal(bits(cured.sum(x, axis=axis, device="gpu")), bits(expected[axis])), (blocks, axis)
    finally:
        cured._cured._set_test_launch(0, 0)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, acc", [("float64", None), ("float32", None), ("float16", None), ("int8", None),
                                        ("float32", "float64")])
def test_gpu_packed_rows_of_two_on_either_memory(seed, dtype, acc):
    """Rows of 2, whose sums are half the bytes read or more, take one vector a thread on a GPU whose
    memory moves under 4 TB/s (the H100) and 8 a thread above (the H200) but where the sums are
    wider than the elements (int8 and float32 into float64 here: one vector either way),
    v9_axis.cu: both give the CPU model's bits, under any grid, with a last pass that ends inside a
    block."""
    x = rand(seed, (2 * 256 * 8 * 3 + 5, 2), dtype)
    want = cured.sum(x, axis=1, dtype=acc, device="cpu")
    try:
        for bandwidth in (3 * 10**12, 5 * 10**12):
            cured._cured._set_test_memory_bandwidth(bandwidth)
            for blocks in (0, 1, 3):
                cured._cured._set_test_launch(blocks, 0)
                got = cured.sum(x, axis=1, dtype=acc, device="gpu")
                assert np.array_equal(bits(got), bits(want)), (bandwidth, blocks)
    finally:
        cured._cured._set_test_launch(0, 0)
        cured._cured._set_test_memory_bandwidth(0)


def test_memory_bandwidth_hook_refuses_negative_rates():
    with pytest.raises(ValueError, match="bytes_per_s must be >= 0"):
        cured._cured._set_test_memory_bandwidth(-1)
    cured._cured._set_test_memory_bandwidth(0)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "uint16", "bool"])
def test_gpu_cub_row_sums(seed, dtype):
    """version="cub" along the last axes: CUB's DeviceSegmentedReduce, the reference. Its order is
    CUB's, so floats are held to the bound of a sum of R terms, integers to NumPy's exact sums."""
    cp = pytest.importorskip("cupy")
    for shape, axis in [((1000, 16), 1), ((3, 20011), -1), ((7, 30, 41), (1, 2)), ((4096, 2), 1), ((5, 0), 1)]:
        x = rand(seed, shape, dtype)
        for given in (x, cp.asarray(x)):
            got = cured.sum(given, axis=axis, version="cub")
            want = np.sum(x, axis=axis)
            assert got.shape == want.shape and got.dtype == want.dtype, (shape, got.dtype)
            if x.dtype.kind == "f":
                acc = np.float64 if dtype == "float64" else np.float32
                slack = np.abs(want.astype(np.float64)) * 2.0**-11 if dtype == "float16" else 0.0
                close_to_numpy(np.asarray(got, np.float64), x.astype(acc), axis, acc, slack)
            else:
                assert np.array_equal(got, want), shape
    d = cp.asarray(rand(seed, (300, 50), "float32"))
    out = cp.full(300, -1, cp.float32)
    assert cured.sum(d, axis=1, version="cub", out=out) is out
    close_to_numpy(out.get(), d.get(), 1, np.float32)


@pytest.mark.gpu
def test_gpu_device_arrays(seed):
    cp = pytest.importorskip("cupy")
    x = rand(seed, (300, 40, 50), "float32")
    d = cp.asarray(x)
    views = [(d, x), (d.transpose(2, 0, 1), x.transpose(2, 0, 1)), (d[::-1, :, ::2], x[::-1, :, ::2]),
             (d.reshape(-1)[1:1 + 300 * 1999].reshape(300, 1999)[:, :1000],  # misaligned rows: scalar loads
              x.reshape(-1)[1:1 + 300 * 1999].reshape(300, 1999)[:, :1000]),
             (d.reshape(-1)[1:1 + 2 * 9000].reshape(9000, 2),  # rows of 2 off 16 bytes: not packed
              x.reshape(-1)[1:1 + 2 * 9000].reshape(9000, 2)),
             (d.reshape(-1)[4:4 + 64 * 2000].reshape(2000, 64),  # aligned rows of 16 chunks
              x.reshape(-1)[4:4 + 64 * 2000].reshape(2000, 64))]
    for dv, xv in views:
        for axis in (0, 1, -1, (0, 1), ()):
            got = cured.sum(dv, axis=axis)
            assert type(got) is type(np.sum(xv, axis=axis))  # an array unless every axis is summed
            assert np.array_equal(bits(got), bits(cured.sum(xv, axis=axis, device="cpu"))), axis


@pytest.mark.gpu
def test_gpu_torch_input(seed):
    torch = pytest.importorskip("torch")
    x = rand(seed, (257, 129), "float64")
    t = torch.from_numpy(x).cuda()
    for axis in (0, 1):
        assert np.array_equal(bits(cured.sum(t, axis=axis)), bits(cured.sum(x, axis=axis, device="cpu")))
        assert np.array_equal(bits(cured.sum(t.T, axis=axis)), bits(cured.sum(x.T, axis=axis, device="cpu")))


@pytest.mark.gpu
@pytest.mark.parametrize("shape, axis", [((5, 0), 1), ((0, 3), 0), ((2, 0, 4), (0, 1)), ((0, 6), 1)])
def test_gpu_zero_length_extents(shape, axis):
    """No element to add: the results are zeros (no kernel writes them), host and device input alike."""
    cp = pytest.importorskip("cupy")
    for dtype in ("float32", "int16"):
        x = np.ones(shape, dtype)  # no element
        want = np.sum(x, axis=axis)
        for given in (x, cp.asarray(x)):
            got = cured.sum(given, axis=axis, device="gpu")
            assert got.shape == want.shape and got.dtype == want.dtype and np.array_equal(bits(got), bits(want))
        out = cp.full(want.shape, 7, want.dtype)
        cured.sum(cp.asarray(x), axis=axis, out=out)
        assert np.array_equal(out.get(), want)


@pytest.mark.gpu
def test_gpu_device_out(seed):
    cp = pytest.importorskip("cupy")
    x = rand(seed, (500, 300), "float32")
    d = cp.asarray(x)
    out = cp.full(300, -1, cp.float32)
    assert cured.sum(d, axis=0, out=out) is out
    assert np.array_equal(bits(out.get()), bits(cured.sum(x, axis=0, device="cpu")))
    half = cp.zeros((500, 1), cp.float16)
    cured.sum(d.astype(cp.float16), axis=1, keepdims=True, out=half, initial=1)
    want = cured.sum(x.astype(np.float16), axis=1, keepdims=True, initial=1, device="cpu")
    assert np.array_equal(bits(half.get()), bits(want))
    ints = cp.asarray(rand(seed, (64, 33), "int16"))
    small = cp.zeros(33, cp.int16)
    cured.sum(ints, axis=0, dtype=cp.int16, out=small)
    assert np.array_equal(small.get(), np.sum(ints.get(), axis=0, dtype=np.int16))
    with pytest.raises(ValueError, match="shape"):
        cured.sum(d, axis=0, out=cp.zeros(299, cp.float32))
    with pytest.raises(TypeError, match="dtype"):
        cured.sum(d, axis=0, out=cp.zeros(300, cp.float64))
    with pytest.raises(ValueError, match="C-contiguous"):
        cured.sum(d, axis=0, out=cp.zeros(600, cp.float32)[::2])
    with pytest.raises(TypeError, match="out= has dtype int64 but the sum's result is int32"):
        cured.sum(d, axis=0, dtype=np.int32, out=cp.zeros(300, cp.int64))  # a cast of each element, on the host


CASTS = [("float32", "int32"), ("float64", "int8"), ("float32", "uint64"), ("float16", "int64"), ("float64", "bool"),
         ("int64", "float16"), ("float32", "float16"), ("uint8", "bool"), ("bool", "float16")]


@pytest.mark.gpu
@pytest.mark.parametrize("in_dtype, dtype", CASTS)
def test_gpu_a_dtype_that_casts_each_element_is_numpys(seed, in_dtype, dtype):
    """A dtype= that NumPy reaches by casting each element first (float input into an integer or
    bool, anything into float16): a device array's elements are cast by NumPy on the host, NaN,
    infinities and out-of-range floats included, so its sums are the host array's (numpy.sum's
    values for integer and bool results), whole and along axes, for CuPy and PyTorch input and
    strided views, returned or copied into a device out= (CuPy's, on a stream of its own, whose
    work the copy follows)."""
    cp = pytest.importorskip("cupy")
    x = rand(seed, (37, 64), in_dtype)
    if x.dtype.kind == "f":
        x = x * np.asarray(1e3, x.dtype)  # out of int8's range
        x.flat[[3, 100, 500]] = [np.nan, np.inf, -np.inf]
        x.flat[7] = np.asarray(3e38 if x.dtype.itemsize > 2 else 6e4, x.dtype)  # beyond int32
    inputs = [(cp.asarray(x), x), (cp.asarray(x)[:, ::3], x[:, ::3])]
    try:
        import torch
        inputs.append((torch.from_numpy(x).cuda(), x))
    except ImportError:
        pass
    with np.errstate(invalid="ignore", over="ignore"):
        for given, host in inputs:
            for axis, keepdims in [(None, False), (0, False), (1, True), ((), False)]:
                want = cured.sum(host, axis=axis, dtype=dtype, keepdims=keepdims, device="cpu")
                if np.dtype(dtype).kind != "f":
                    numpy_sum = np.sum(host, axis=axis, dtype=dtype, keepdims=keepdims)
                    assert type(want) is type(numpy_sum) and np.array_equal(want, numpy_sum)
                got = cured.sum(given, axis=axis, dtype=dtype, keepdims=keepdims)
                assert type(got) is type(want) and np.asarray(got).dtype == want.dtype
                assert np.shape(got) == np.shape(want)
                assert same_bits_any_nan(got, want), (type(given), axis)
                with cp.cuda.Stream(non_blocking=True):
                    out = cp.full(np.shape(want), 7, want.dtype)  # queued on that stream
                    assert cured.sum(given, axis=axis, dtype=dtype, keepdims=keepdims, out=out) is out
                    assert same_bits_any_nan(out.get(), want), (type(given), axis, "out=")


@pytest.mark.gpu
@pytest.mark.parametrize("shape", ROW_SHAPES + [(2**13 + 3, 2), (300, 40, 50), (3000, 700), (7, 20000), (5, 3, 1)],
                         ids=str)
def test_gpu_float16_out_written_by_the_kernels(seed, shape):
    """A float16 device out= of float16 input's sums: the kernels round their float32 sums into it
    themselves (each kernel, a step over segments' sums last, any grid), the CPU model's bits; an out=
    two bytes off a four-byte boundary too. With initial= the store kernel rounds them (elsewhere)."""
    cp = pytest.importorskip("cupy")
    x = rand(seed, shape, "float16")
    d = cp.asarray(x)
    try:
        for blocks in (0, 3):
            cured._cured._set_test_launch(blocks, 0)
            for axis in all_axes(len(shape)):
                want = cured.sum(x, axis=axis, device="cpu")
                if np.ndim(want) == 0:
                    continue  # every element: the sum of issue 12, not the kernels along axes
                raw = cp.full(want.size + 1, np.nan, cp.float16)
                for out in (raw[:-1].reshape(want.shape), raw[1:].reshape(want.shape)):
                    assert cured.sum(d, axis=axis, out=out) is out
                    assert np.array_equal(bits(out.get()), bits(want)), (blocks, axis)
    finally:
        cured._cured._set_test_launch(0, 0)


@pytest.mark.gpu
@pytest.mark.parametrize("lanes, chunk", [(1, 4096), (3, 4096), (3, 64 << 10), (0, 0)])
def test_gpu_many_results_come_back_through_the_lanes(seed, lanes, chunk):
    """Results of fetch_min_bytes or more (here every result) come back through the host path's
    lanes and pinned buffers (csrc/fetch.c): chunks of whole pages, as many a lane, the last one
    ragged, a lane or a chunk of one result. The bits are the CPU's whatever the lanes and chunks,
    for device and host input, V9's sums and V10's exact ones."""
    cp = pytest.importorskip("cupy")
    cases = [((100_003, 3), 1, "float32"), ((20_001, 7), 1, "int16"), ((5, 30_011), 0, "float64"),
             ((3, 1), 0, "float32"), ((70_001, 5), 1, "float16")]
    try:
        cured._cured._set_staging(lanes, chunk, True, 1)
        for shape, axis, dtype in cases:
            x = rand(seed, shape, dtype)
            want = cured.sum(x, axis=axis, device="cpu")
            for given in (x, cp.asarray(x)):
                got = cured.sum(given, axis=axis, device="gpu")
                assert got.dtype == want.dtype and np.array_equal(bits(got), bits(want)), (shape, type(given))
            if x.dtype.kind == "f":
                exact = cured.fsum(cp.asarray(x), axis=axis)
                assert np.array_equal(bits(exact), bits(cured.fsum(x, axis=axis))), shape
    finally:
        cured._cured._set_staging(0, 0)


@pytest.mark.gpu
def test_gpu_auto_sums_host_arrays_along_axes_on_the_cpu(seed):
    """device="auto" along axes: a host array on the CPU (no CUDA call counted by the fault hook),
    a device array on its GPU; CUB's reference rows on the GPU whatever the input."""
    cp = pytest.importorskip("cupy")
    x = rand(seed, (300, 70), "float32")
    want = cured.sum(x, axis=0, device="cpu")
    cured.sum(x, axis=0)  # device="auto" checks once a process that there is a GPU
    cases = [(x, 0, 9, "auto", False), (x, 0, 9, "gpu", True), (x, 1, "cub", "auto", True),
             (cp.asarray(x), 0, 9, "auto", True)]
    for given, axis, version, device, on_gpu in cases:
        cured._cured._fault(0, 1)  # counts the CUDA calls from here, failing none
        got = cured.sum(given, axis=axis, version=version, device=device)
        assert (cured._cured._fault_state()["calls"] > 0) == on_gpu, (type(given), version, device)
        if version == 9:
            assert np.array_equal(bits(got), bits(want))


@pytest.mark.gpu
def test_gpu_whole_sum_with_numpy_arguments(seed):
    cp = pytest.importorskip("cupy")
    x = rand(seed, (100, 70), "float32")
    d = cp.asarray(x)
    assert np.array_equal(bits(cured.sum(d, keepdims=True)), bits(np.reshape(cured.sum(x, device="cpu"), (1, 1))))
    out = cp.zeros((), cp.float32)
    cured.sum(d, out=out, initial=3)
    assert bits(out.get()) == bits(np.float32(cured.sum(x, device="cpu") + np.float32(3)))
