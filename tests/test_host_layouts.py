"""Host arrays of any layout (csrc/cpu_gather.c): the C-order copy that cured's sums read is NumPy's,
element for element, for views of every dtype (steps, reversed axes, transposes, Fortran order,
merged and unit dimensions), small and large (the pool's threads, AVX2's 8 x 8 and 4 x 4 blocks and
the elements past them); and a view sums to the bits of its C-order copy, whole and along axes. No
GPU needed."""
import numpy as np
import pytest

import cured
from reference import DTYPES, random_array


def random_view(rng, dtype):
    """A view of 1 to 4 dimensions of extents 1 to 19: every other element of the last axis now and
    then, axes reversed at random, then permuted."""
    ndim = int(rng.integers(1, 5))
    shape = tuple(int(rng.integers(1, 20)) for _ in range(ndim))
    step = int(rng.integers(1, 3))
    size = int(np.prod(shape)) * step
    x = random_array(int(rng.integers(1 << 30)), np.dtype(dtype), size).reshape(shape[:-1] + (shape[-1] * step,))
    x = x[..., ::step]
    x = x[tuple(slice(None, None, int(rng.choice([-1, 1]))) for _ in range(ndim))]
    return x.transpose(rng.permutation(ndim))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_c_order_copy_is_numpys(seed, dtype):
    rng = np.random.default_rng([seed, 41])
    for _ in range(300):
        view = random_view(rng, dtype)
        got = cured._cured._c_order_copy(view)
        assert got.flags.c_contiguous and got.shape == view.shape and got.dtype == view.dtype
        assert got.tobytes() == np.ascontiguousarray(view).tobytes(), (view.shape, view.strides)
    for shape, axes in [((2048, 1027), (1, 0)), ((3, 1001, 515), (2, 0, 1)), ((999, 3, 700), (1, 2, 0)),
                        (((1 << 20) + 3,), None), ((37, 53), (1, 0))]:
        x = random_array(seed + len(shape), np.dtype(dtype), int(np.prod(shape))).reshape(shape)
        views = [x.transpose(axes), np.asfortranarray(x)] if len(shape) > 1 else [x[::-1], x[::3], x[-2::-5]]
        for view in views:
            assert cured._cured._c_order_copy(view).tobytes() == np.ascontiguousarray(view).tobytes(), \
                (shape, view.strides)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int16"])
def test_views_sum_as_their_c_order_copies(seed, dtype):
    rng = np.random.default_rng([seed, 42])
    x = random_array(seed, np.dtype(dtype), 512 * 300).reshape(512, 300)
    for view in (x.T, np.asfortranarray(x), x[::-1, ::2], x[:, ::-3].T):
        copy = np.ascontiguousarray(view)
        for axis in (None, 0, 1):
            got = cured.sum(view, axis=axis, device="cpu")
            assert np.asarray(got).tobytes() == np.asarray(cured.sum(copy, axis=axis, device="cpu")).tobytes()
    for _ in range(50):
        view = random_view(rng, dtype)
        assert cured.sum(view, device="cpu").tobytes() == cured.sum(np.ascontiguousarray(view), device="cpu").tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rows_read_across_have_the_models_bits(seed, dtype):
    """A transposed or Fortran-order matrix along its last axis is summed in place, rows side by side
    (cpu_axis.c's rows across): the order model's bits on the C-order copy, for rows of 1 to 4000
    elements (short last chunks; 1 to 32 lanes; several chunks a lane), row counts around the
    passes' 256 bytes and the threads' shares, signed zeros and infinities among the elements."""
    rng = np.random.default_rng([seed, 43])
    for rows, length in [(1, 7), (3, 2), (17, 5), (63, 129), (64, 130), (65, 257), (300, 1000), (1000, 4000),
                         (5000, 33)]:
        base = random_array(seed + rows, np.dtype(dtype), rows * length).reshape(length, rows)
        base[rng.random(base.shape) < 0.05] = -0.0
        base[rng.random(base.shape) < 0.001] = np.inf
        for view in (base.T, np.asfortranarray(base.T)):
            copy = np.ascontiguousarray(view)
            model = cured._cured.sum_axes(copy, copy.shape, (False, True), np.dtype(dtype), "cpu", model=True)
            got = cured.sum(view, axis=1, device="cpu")
            assert got.tobytes() == model.tobytes(), (rows, length)
