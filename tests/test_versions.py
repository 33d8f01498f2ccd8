"""Every version against NumPy, through its CPU order model everywhere and on the GPU where there
is one: bit for bit equal to the model, exactly numpy.sum for integers, within the documented error
bound (tests/reference.py) of the exact sum for floats."""
import numpy as np
import pytest

import cured
from reference import DTYPES, LENGTHS, cached_case, check_against_numpy, random_array, same_bits

VERSIONS = cured.versions()
# Ordered by (dtype, length) first so that each input is made once and shared by the nine versions.
CASES = [pytest.param(dtype, n, v, id=f"{dtype}-{n}-V{v.id}") for dtype in DTYPES for n in LENGTHS for v in VERSIONS]


@pytest.mark.parametrize("dtype, n, version", CASES)
def test_cpu_model_matches_numpy(seed, dtype, n, version):
    x, exact, abs_sum = cached_case(seed, dtype, n)
    got = cured.sum(x, version=version.id, device="cpu")
    check_against_numpy(version, x, got, exact, abs_sum)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, n, version", CASES)
def test_gpu_matches_cpu_model_and_numpy(seed, dtype, n, version):
    x, exact, abs_sum = cached_case(seed, dtype, n)
    got = cured.sum(x, version=version.id, device="gpu")
    model = cured._cured.model_sum(x, version.id)
    assert same_bits(got, model), f"V{version.id} GPU {got!r} != CPU model {model!r} (seed {seed})"
    check_against_numpy(version, x, got, exact, abs_sum)


# Accumulators chosen with dtype=, as numpy.sum(x, dtype=...): each pair the launch tables hold.
DTYPE_CASES = [
    ("float32", "float64"), ("float16", "float64"), ("float16", "float16"), ("float64", "float32"),
    ("int8", "float64"), ("int64", "float32"), ("uint64", "float64"), ("bool", "float32"),
    ("int32", "uint64"), ("uint16", "int64"), ("int64", "uint64"),
]


@pytest.mark.parametrize("device", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("in_dtype, acc", DTYPE_CASES)
@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: f"V{v.id}")
def test_dtype_argument(seed, version, in_dtype, acc, device):
    x, exact, abs_sum = cached_case(seed, np.dtype(in_dtype), 32769)
    if exact is None:  # integer input summed in a float accumulator: the exact sum as a Python int
        exact, abs_sum = float(int(np.sum(x.astype(object)))), float(np.abs(x.astype(np.float64)).sum())
    got = cured.sum(x, version=version.id, dtype=acc, device=device)
    if device == "gpu":
        assert same_bits(got, cured.sum(x, version=version.id, dtype=acc, device="cpu"))
    if np.dtype(acc).kind == "f":
        check_against_numpy(version, x, got, exact, abs_sum, dtype=acc)
    else:
        assert got == np.sum(x, dtype=acc) and got.dtype == np.dtype(acc)


SPECIALS = [
    ("nan", [np.nan], "nan"),
    ("inf", [np.inf], "inf"),
    ("-inf", [-np.inf], "-inf"),
    ("inf-inf", [np.inf, -np.inf], "nan"),
]


@pytest.mark.parametrize("device", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name, specials, expected", SPECIALS, ids=[s[0] for s in SPECIALS])
@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: f"V{v.id}")
def test_nan_and_infinity_propagate(seed, version, name, specials, expected, dtype, device):
    x = np.random.default_rng(seed).standard_normal(40000).astype(dtype)
    positions = np.random.default_rng(seed + 1).choice(x.size, len(specials), replace=False)
    x[positions] = specials
    got = cured.sum(x, version=version.id, device=device)
    with np.errstate(invalid="ignore"):  # inf + -inf
        numpy_sum = np.sum(x)
    assert numpy_sum.dtype == got.dtype
    if expected == "nan":
        assert np.isnan(got) and np.isnan(numpy_sum)
    else:
        assert got == float(expected) == numpy_sum


@pytest.mark.gpu
@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: f"V{v.id}")
def test_more_than_2_to_the_31_elements(seed, version, huge_int8):
    x, expected = huge_int8
    assert cured.sum(x, version=version.id, device="gpu") == expected


@pytest.fixture(scope="module")
def huge_int8(seed):
    """An int8 array of more than 2^31 elements (not a multiple of any block's work) and its sum."""
    x = np.random.default_rng(seed).integers(-128, 128, size=2**31 + 4099, dtype=np.int8)
    return x, np.sum(x)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1000, 12000, 20000, 50000, 2**16, 2**20 + 3, 2**25 + 17])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "uint64", "bool"])
def test_v9_bits_do_not_depend_on_grid_or_alignment(seed, dtype, n):
    """V9's order is fixed by the length: any grid, and input not on a 16-byte boundary (scalar
    loads instead of vectors; in the staging buffer or in device memory), give the same bits, those
    of its CPU model. Up to 4 tiles, the
    default launch is the one-block kernel and a forced grid the ticket kernel: both are compared."""
    x = random_array(seed, np.dtype(dtype), n)
    expected = cured.sum(x, version=9, device="cpu")
    shapes = [(0, 0), (1, 0), (2, 0), (7, 0), (132, 0), (1000, 0), (100000, 0)]
    shapes += [(blocks, m) for m in (1, 2, 4, 8, 12) if m % x.itemsize == 0 for blocks in (0, 5)]
    try:
        for mode in ("fed", "direct", "copied"):  # the pinned staging buffer read by one kernel or a launch a
            cured._cured._set_staging(0, 0, mode=mode)  # chunk, or its copy on the device
            for blocks, misalign in shapes:
                cured._cured._set_test_launch(blocks, misalign)
                assert same_bits(cured.sum(x, version=9, device="gpu"), expected), (blocks, misalign, mode)
    finally:
        cured._cured._set_test_launch(0, 0)
        cured._cured._set_staging(0, 0)
