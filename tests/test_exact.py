"""V10 and cured.fsum: the correctly rounded sum, against an exact reference written with Python
integers (tests/reference.py: exact_sum), never against math.fsum alone. Every path (CPU, GPU,
host and device input, any grid, any chunking, exact partial states added) must give the one answer."""
import math
import pickle
import sys
from fractions import Fraction

import numpy as np
import pytest

import cured
from reference import exact_sum, same_bits

FLOATS = ["float16", "float32", "float64"]
LENGTHS = [0, 1, 2, 3, 31, 33, 1000, 8191, 8192, 8193, 65537, 2**20 + 7]
BITS = {"float16": np.uint16, "float32": np.uint32, "float64": np.uint64}
MANTISSA = {"float16": 10, "float32": 23, "float64": 52}
MAX_EXPONENT_FIELD = {"float16": 30, "float32": 254, "float64": 2046}


def result_dtype(dtype) -> np.dtype:
    return np.dtype(dtype)  # NumPy's: float16 stays float16, the others their own


def normal(rng, dtype, n):
    return rng.standard_normal(n).astype(dtype)


def wide_range(rng, dtype, n, top_gap=24):
    """Finite values whose exponents span the dtype's range (subnormals included) up to 2^top_gap
    below the largest, so that sums of many stay finite; random signs and significands."""
    bits_type = BITS[dtype]
    m = MANTISSA[dtype]
    exponent = rng.integers(0, MAX_EXPONENT_FIELD[dtype] - top_gap, size=n, endpoint=True).astype(np.uint64)
    fraction = rng.integers(0, 1 << m, size=n, dtype=np.uint64)
    sign = rng.integers(0, 2, size=n).astype(np.uint64)
    width = np.dtype(dtype).itemsize * 8
    raw = (sign << np.uint64(width - 1)) | (exponent << np.uint64(m)) | fraction
    return raw.astype(bits_type).view(dtype)


def cancelling(rng, dtype, n):
    """Pairs x, -x over the whole range, shuffled, and a few small remainders: the sum is tiny
    beside the elements, which a floating accumulator loses."""
    half = wide_range(rng, dtype, n // 2, top_gap=2)
    rest = normal(rng, dtype, n - 2 * (n // 2)) * np.asarray(1e-3, dtype)
    x = np.concatenate([half, -half, rest])
    rng.shuffle(x)
    return x


def outliers(rng, dtype, n):
    """Standard-normal data with about one element in 40 replaced by a huge or a tiny one (any
    exponent): most of V10's steps are then mixed, a step's fast window refused or undone
    (csrc/kernels/v10_exact.cu), beside steps that keep it."""
    x = normal(rng, dtype, n)
    at = np.flatnonzero(rng.random(n) < 1 / 40)
    x[at] = wide_range(rng, dtype, at.size)
    return x


GENERATORS = {"normal": normal, "wide_range": wide_range, "cancelling": cancelling, "outliers": outliers}


def check(x, got, dtype=None):
    expected = exact_sum(x, result_dtype(dtype if dtype is not None else x.dtype))
    assert same_bits(got, expected), f"{got!r} != exact {expected!r}"


# ---- hand-made cases: ties, just above halfway, overflow, specials ---------------------------

f32, f16 = np.float32, np.float16
TRICKY = {
    # ties to even: 1 + 2^-24 is halfway between 1 and the next float32; 1 + 3 x 2^-24 between odd and even
    "tie_down": np.array([1.0, 2.0**-24], f32),
    "tie_up": np.array([1.0 + 2.0**-23, 2.0**-24], f32),
    # just above halfway: a float64 accumulator drops 2^-80 and then rounds the tie down (wrong)
    "above_half": np.array([1.0, 2.0**-24, 2.0**-80], f32),
    "below_half": np.array([1.0, 2.0**-24, -(2.0**-80)], f32),
    # ... and in float64, where a float64 sum and its rounding errors' sum (a double-double) lose the
    # 2^-110: then the tie rounds down (wrong)
    "float64_above_half": np.array([1.0, 2.0**-53, 2.0**-110]),
    # float16, rounded once: through float32 the 2^-24 is lost to a tie, and the tie rounds down
    "half_double_rounding": np.array([1.0, 2.0**-11, 2.0**-24], f16),
    # no intermediate overflow; overflow to inf by rounding; back from it
    "no_overflow": np.array([3e38, 3e38, -3e38], f32),
    "overflow": np.array([np.finfo(f32).max, np.finfo(f32).max], f32),
    "overflow_by_rounding": np.array([np.finfo(f32).max, 2.0**103], f32),
    "max_stays": np.array([np.finfo(f32).max, 2.0**102], f32),
    "float64_no_overflow": np.array([1.7e308, 1.7e308, -1.7e308, -1.6e308]),
    # subnormals, and cancellation to exactly zero
    "subnormals": np.array([2.0**-149, 2.0**-149, 3 * 2.0**-149, -(2.0**-148)], f32),
    "float64_subnormals": np.array([5e-324, 5e-324, -1e-323, 2.5e-323]),
    "to_zero": np.array([1e30, 1.0, -1e30, -1.0], f32),
    # signed zeros: -0.0 only when every element is -0.0
    "negative_zeros": np.array([-0.0, -0.0, -0.0], f32),
    "mixed_zeros": np.array([-0.0, 0.0], f32),
    "one_negative_zero": np.array([-0.0]),
    "cancel_is_positive_zero": np.array([-1.0, 1.0], f32),
    # zeros in a step that the fast window refuses (a huge element): a step holding the input's end
    # skips zeros there, the padding's and these (csrc/kernels/v10_exact.cu)
    "zeros_beside_huge": np.array([0.0, 1e30, -0.0, -1e30, -0.0], f32),
    "float64_zeros_beside_huge": np.array([-0.0, 1e300, 0.0, 5e-324, -1e300, -0.0]),
    # NaN and infinities, IEEE's way
    "nan": np.array([1.0, np.nan, 2.0], f32),
    "inf": np.array([1.0, np.inf, -1e38], f32),
    "minus_inf": np.array([-np.inf, 1e30], f32),
    "inf_minus_inf": np.array([np.inf, -np.inf], f32),
    "half_inf": np.array([65504.0, 65504.0, -65504.0], f16),
    "half_overflow": np.array([65504.0, 16.0], f16),
    # a float64 NaN whose high word is an infinity's (its payload in the low word only)
    "nan_low_payload": np.array([1.0, np.uint64(0x7FF0000000000001).view(np.float64), 2.0]),
    "nan_among_many": np.concatenate([np.full(100, 0.5, f32), [np.float32(np.nan)], np.full(100, 0.25, f32)]),
    # just below halfway, through a borrow across the whole state: the state's limbs between the
    # tiny element and the halfway point are all ones once normalized (on the GPU, the carry
    # lookahead of exact_round.cuh across all 68 limbs)
    "borrow_through_the_state": np.array([2.0**100, -(2.0**75), -(2.0**-140)], f32),
    "float64_borrow_through_the_state": np.array([2.0**1000, -(2.0**946), -(2.0**-1000)]),
    # ... and a carry through a run of ones 1900 bits long (bits 945 down to -962), up to a tie
    # between 2^1000 - 2^947 and 2^1000 (ties to even: up)
    "float64_carry_through_the_state": np.concatenate(
        [[2.0**1000 - 2.0**947], [(2.0**53 - 1) * 2.0**(893 - 53 * k) for k in range(36)], [2.0**-962]]),
}


@pytest.mark.parametrize("name", TRICKY)
def test_tricky_cases_on_the_cpu(name):
    x = TRICKY[name]
    check(x, cured.fsum(x, device="cpu"))


def test_the_tricky_cases_say_what_they_claim():
    # the reference itself, by hand: a guard against a test that cannot fail
    assert exact_sum(TRICKY["tie_down"], f32) == f32(1.0)
    assert exact_sum(TRICKY["tie_up"], f32) == f32(1.0 + 2.0**-22)
    assert exact_sum(TRICKY["above_half"], f32) == f32(1.0 + 2.0**-23)
    assert f32(np.float64(1.0) + 2.0**-24 + 2.0**-80) == f32(1.0)  # what a float64 accumulator gives
    assert exact_sum(TRICKY["float64_above_half"], np.float64) == 1.0 + 2.0**-52
    assert np.float64(1.0) + (2.0**-53 + 2.0**-110) == 1.0  # what a double-double that drops 2^-110 gives
    assert exact_sum(TRICKY["half_double_rounding"], f16) == f16(1.0 + 2.0**-10)
    assert f16(f32(1.0) + f32(2.0**-11) + f32(2.0**-24)) == f16(1.0)  # through float32: wrong
    assert exact_sum(TRICKY["no_overflow"], f32) == f32(3e38)
    assert np.isinf(exact_sum(TRICKY["overflow_by_rounding"], f32))
    assert exact_sum(TRICKY["max_stays"], f32) == np.finfo(f32).max
    assert np.signbit(exact_sum(TRICKY["negative_zeros"], f32)) and not np.signbit(exact_sum(TRICKY["mixed_zeros"], f32))
    assert np.isnan(exact_sum(TRICKY["inf_minus_inf"], f32))
    assert same_bits(exact_sum(TRICKY["zeros_beside_huge"], f32), f32(0.0))
    assert exact_sum(TRICKY["float64_zeros_beside_huge"], np.float64) == 5e-324
    assert exact_sum(TRICKY["borrow_through_the_state"], f32) == f32(2.0**100 - 2.0**76)
    assert f32(np.float64(2.0**100) - 2.0**75 - 2.0**-140) == f32(2.0**100)  # the tie, without the borrow
    assert exact_sum(TRICKY["float64_borrow_through_the_state"], np.float64) == 2.0**1000 - 2.0**947
    assert exact_sum(TRICKY["float64_carry_through_the_state"], np.float64) == 2.0**1000
    assert exact_sum(TRICKY["float64_carry_through_the_state"][:-1], np.float64) == 2.0**1000 - 2.0**947


@pytest.mark.parametrize("kind", GENERATORS)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", LENGTHS)
def test_cpu_is_exact(seed, kind, dtype, n):
    x = GENERATORS[kind](np.random.default_rng([seed, n, FLOATS.index(dtype)]), dtype, n)
    check(x, cured.fsum(x, device="cpu"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_other_result_dtypes_round_once(seed, dtype):
    x = wide_range(np.random.default_rng(seed), "float16", 5000)
    check(x, cured.fsum(x, dtype=dtype, device="cpu"), dtype)
    y = normal(np.random.default_rng(seed + 1), "float64", 5000)
    check(y, cured.fsum(y, dtype="float32", device="cpu"), "float32")


@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "int64", "uint64"])
def test_integers(seed, dtype):
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype) if dtype != "bool" else None
    x = rng.random(3000) < 0.5 if info is None else rng.integers(info.min, info.max, size=3000, dtype=dtype, endpoint=True)
    got = cured.fsum(x, device="cpu")
    assert got.dtype == np.sum(x).dtype and got == np.sum(x)  # exact already, and wrapping as NumPy's
    check(x, cured.fsum(x, dtype="float64", device="cpu"), "float64")  # rounded once, not per addition


def test_states_add_to_the_whole(seed):
    rng = np.random.default_rng(seed)
    x = cancelling(rng, "float64", 40001)
    cuts = np.sort(rng.integers(0, x.size, size=6))
    pieces = np.split(x, cuts)
    states = [cured.fsum_state(p, device="cpu") for p in pieces]
    total = sum(states)
    assert same_bits(total.round(np.float64), cured.fsum(x, device="cpu"))
    assert same_bits(total.round(np.float32), exact_sum(x, np.float32))
    assert same_bits(sum(reversed(states)).round(), total.round())
    again = pickle.loads(pickle.dumps(total))
    assert again == total and cured.ExactSum.from_bytes(total.to_bytes()) == total
    assert float(total) == float(cured.fsum(x, device="cpu"))


def test_states_keep_specials_and_signed_zeros():
    neg = cured.fsum_state(np.array([-0.0]), device="cpu")
    assert np.signbit(neg.round()) and np.signbit((neg + neg).round())
    assert not np.signbit((neg + cured.fsum_state(np.array([0.0]), device="cpu")).round())
    assert np.signbit((neg + cured.ExactSum(0)).round())  # the empty sum has no elements: -0.0 stays
    inf = cured.fsum_state(np.array([np.inf]), device="cpu")
    assert np.isinf(inf.round()) and np.isnan((inf + cured.fsum_state(np.array([-np.inf]), device="cpu")).round())


@pytest.mark.parametrize("threads", [1, 2, 3, 7])
def test_cpu_threads_change_nothing(seed, threads):
    """The CPU's exact sum on the pool's threads (exact_cpu.c: a state a piece, the states added),
    forced to 1 to 7 threads: every piece's state adds to the exact sum, NaN, infinities and signed
    zeros included, for whole arrays, pieces shorter than a thread's share, and rows along axes
    (rows on threads, or a few long rows each on all of them)."""
    try:
        cured._cured._set_cpu_tiles(threads, False)
        for name in ("negative_zeros", "mixed_zeros", "inf_minus_inf", "nan_among_many", "tie_up", "to_zero"):
            check(TRICKY[name], cured.fsum(TRICKY[name], device="cpu"))
        for n in (0, 1, 2, 5, 1000, 100003):
            for dtype in FLOATS:
                x = GENERATORS["wide_range"](np.random.default_rng([seed, n, threads]), dtype, n)
                check(x, cured.fsum(x, device="cpu"))
        x = GENERATORS["cancelling"](np.random.default_rng([seed, threads]), "float32", 2 * 50000).reshape(2, 50000)
        check_along(x, 1, cured.fsum(x, axis=1, device="cpu"), np.float32)  # fewer rows than threads
        y = GENERATORS["wide_range"](np.random.default_rng([seed, threads]), "float64", 40 * 301).reshape(40, 301)
        check_along(y, 0, cured.fsum(y, axis=0, device="cpu"), np.float64)  # rows on the threads
    finally:
        cured._cured._set_cpu_tiles(0, False)


AXIS_CASES = [((7, 9), 0), ((7, 9), -1), ((4, 5, 6), (0, 2)), ((4, 5, 6), 1), ((3, 4, 5, 2), (1, 3)),
              ((3, 4, 5, 2), ()), ((0, 5), 1), ((5, 0), 1), ((6, 1000), 1),
              ((3, 3000), 1), ((2500, 2), 0),  # rows of 1024 or more: the GPU's float32 and float16 bins
              ((4, 70, 45), 1)]  # columns into rows by tiles (kernels/gather.cu): 4 batches of 70 x 45


def exact_along(x, axis, dtype):
    """The reference along axes: exact_sum of each output's elements, in NumPy's output order."""
    shape = np.sum(np.zeros(x.shape, np.int8), axis=axis).shape
    axes = tuple(a % x.ndim for a in (axis if isinstance(axis, tuple) else (axis,)))
    kept = [k for k in range(x.ndim) if k not in axes]
    rows = np.transpose(x, kept + list(axes)).reshape(int(np.prod(shape, dtype=np.int64)), -1) if x.size else \
        np.zeros((int(np.prod(shape, dtype=np.int64)), 0), x.dtype)
    return [exact_sum(row, dtype) for row in rows], shape


def check_along(x, axis, got, dtype):
    expected, shape = exact_along(x, axis, dtype)
    assert got.shape == shape and got.dtype == np.dtype(dtype)
    for i, (g, e) in enumerate(zip(got.ravel(), expected)):
        assert same_bits(g, e), f"output {i}: {g!r} != exact {e!r}"


@pytest.mark.parametrize("shape, axis", AXIS_CASES)
@pytest.mark.parametrize("kind", ["wide_range", "cancelling"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_fsum_along_axes_on_the_cpu(seed, shape, axis, kind, dtype):
    """V10 along axes (host arrays, device="cpu"): each output the exact sum of its elements,
    rounded once, as the whole-array V10 rounds."""
    n = int(np.prod(shape))
    x = GENERATORS[kind](np.random.default_rng([seed, n, FLOATS.index(dtype)]), dtype, n).reshape(shape)
    check_along(x, axis, cured.fsum(x, axis=axis, device="cpu"), result_dtype(dtype))


def test_fsum_along_axes_takes_numpys_arguments(seed):
    rng = np.random.default_rng(seed)
    x = wide_range(rng, "float32", 4 * 6 * 5).reshape(4, 6, 5)
    view = x[::-1, ::2, 1:]  # negative and non-unit strides
    check_along(view, (0, 2), cured.fsum(view, axis=(0, 2), device="cpu"), np.float32)
    kept = cured.fsum(x, axis=1, keepdims=True, device="cpu")
    assert kept.shape == (4, 1, 5)
    check_along(x, 1, kept.reshape(4, 5), np.float32)
    out = np.empty((4, 5), np.float64)
    assert cured.fsum(x, axis=1, device="cpu", out=out) is out  # NumPy's dtype: float32 into float64 sums in float64
    assert out.tobytes() == cured.fsum(x, axis=1, dtype=np.float64, device="cpu").tobytes()
    check_along(x, 1, cured.fsum(x, axis=1, dtype=np.float64, device="cpu"), np.float64)  # rounded once into float64
    ints = rng.integers(-2**62, 2**62, size=(3, 7), dtype=np.int64)
    check_along(ints, 0, cured.fsum(ints, axis=0, dtype=np.float32, device="cpu"), np.float32)
    assert (cured.fsum(ints, axis=0, device="cpu") == ints.sum(axis=0)).all()  # integer results: exact, wrapping
    halves = TRICKY["half_double_rounding"].reshape(1, 3)
    assert same_bits(cured.fsum(halves, axis=1, device="cpu")[0], exact_sum(TRICKY["half_double_rounding"], f16))


def test_exact_rows_hold_float16_and_float32_results_in_float32():
    # the C rule (cured_exact_rows_acc) that numpy_sum.py reads: float32 holds those results exactly
    f64 = np.dtype(np.float64)
    assert cured._cured.EXACT_ROWS_ACC == {np.dtype(f16): np.dtype(f32), np.dtype(f32): np.dtype(f32), f64: f64}


def two_sum(a: float, b: float):
    s = a + b
    b_part = s - a
    return s, (a - (s - b_part)) + (b - b_part)


def thread_row_model(row: np.ndarray, result, lanes: int = 1) -> tuple:
    """kernels/v10_axis.cu's thread_row (and csrc/exact_cpu.c's row_in_double) in Python floats
    (IEEE float64, round to nearest): whether the row's float64 sum stayed exact, and its one
    rounding into `result` if it did. With `lanes` (a power of two), lane j sums elements j,
    j + lanes, ... and the lanes' sums are merged as the row's first lane sees the warp's butterfly
    (thread_row::merge): neighbours, then pairs of them, and so on."""
    wide = row.dtype == np.float64

    def lane_sum(elements):
        total, low, exact = -0.0, -0.0, True
        for element in elements:
            total, error = two_sum(total, element)
            if wide:
                low, lost = two_sum(low, error)
                exact = exact and lost == 0.0
            else:
                exact = exact and error == 0.0
        return total, low, exact

    sums = [lane_sum(row[j::lanes].tolist()) for j in range(lanes)]
    while len(sums) > 1:
        merged = []
        for (total, low, exact), (other, other_low, other_exact) in zip(sums[::2], sums[1::2]):
            total, error = two_sum(total, other)
            if wide:
                low, lost_low = two_sum(low, other_low)
                low, lost_error = two_sum(low, error)
                exact = exact and other_exact and lost_low == 0.0 and lost_error == 0.0
            else:
                exact = exact and other_exact and error == 0.0
            merged.append((total, low, exact))
        sums = merged
    total, low, exact = sums[0]
    if wide:
        return exact, np.float64(total if low == 0.0 else total + low)
    with np.errstate(over="ignore"):  # an exact sum beyond float16's range rounds to an infinity
        return exact, np.dtype(result).type(total)  # one conversion of the exact float64 sum


@pytest.mark.parametrize("dtype", FLOATS)
def test_a_threads_row_kept_exact_rounds_once(seed, dtype):
    """The claim behind V10's short rows in float64 (the GPU's threads and the CPU's rows), in a
    model of them: a row whose TwoSum errors were all zero (float64: whose errors' sum lost nothing
    either) rounds to the exact sum's bits by one conversion; standard-normal rows almost all stay
    exact (or the float64 pass would rarely help); the hand-made rows a float64 sum gets wrong do
    not."""
    rng = np.random.default_rng([seed, FLOATS.index(dtype)])
    kept = {kind: 0 for kind in GENERATORS}
    sizes = [(1, 1, 40), (2, 1, 40), (3, 1, 40), (16, 1, 40), (100, 1, 40), (256, 1, 40), (257, 2, 10),
             (1000, 4, 10), (4096, 16, 3)]  # (length, lanes, rows): the lanes the kernel gives a row
    for kind, generate in GENERATORS.items():
        for length, lanes, rows in sizes:
            for _ in range(rows):
                row = generate(rng, dtype, length)
                for to in FLOATS[FLOATS.index(dtype):]:
                    exact, value = thread_row_model(row, to, lanes)
                    if exact:
                        assert same_bits(value, exact_sum(row, to)), (kind, row, to, lanes)
                kept[kind] += exact
    assert kept["normal"] >= 0.95 * sum(rows for _, _, rows in sizes), kept
    for name, row in TRICKY.items():
        if row.dtype == np.dtype(dtype):
            for lanes in (1, 2, 4):
                exact, value = thread_row_model(row, dtype, lanes)
                assert not exact or same_bits(value, exact_sum(row, dtype)), (name, lanes)
    for name in ("above_half", "float64_above_half", "nan", "inf_minus_inf", "float64_no_overflow"):
        if TRICKY[name].dtype == np.dtype(dtype):
            assert not thread_row_model(TRICKY[name], dtype)[0], name  # left to the warp's exact state
    for name in ("above_half", "float64_above_half", "nan", "inf_minus_inf"):  # no order keeps these
        if TRICKY[name].dtype == np.dtype(dtype):
            for lanes in (2, 4):  # bits lost in the merge of two lanes' sums
                assert not thread_row_model(TRICKY[name], dtype, lanes)[0], (name, lanes)


EXPANSION_TERMS = 12  # kernels/v10_axis.cu, lane_expansion::kTerms


def grow_expansion(terms: list, x: float) -> tuple:
    """kernels/v10_axis.cu's lane_expansion::add: Grow-Expansion, then the lowest zero of its
    EXPANSION_TERMS + 1 results dropped; (terms, whether one was and no TwoSum overflowed)."""
    results = []
    for term in terms:
        x, error = two_sum(x, term)
        results.append(error)
    results.append(x)
    zeros = [k for k, r in enumerate(results) if r == 0.0]
    if not zeros:
        return results[:-1], x == 0.0
    terms = results[:zeros[0]] + results[zeros[0] + 1:]
    return terms, math.isfinite(terms[-1])


def up(exact: Fraction) -> float:
    """The float64 nearest `exact` rounded up (CUDA's __dadd_ru and __dmul_ru), for finite results."""
    nearest = float(exact)
    return math.nextafter(nearest, math.inf) if Fraction(nearest) < exact else nearest


def down(exact: Fraction) -> float:
    """The float64 nearest `exact` rounded down (CUDA's __dsub_rd), for finite results."""
    nearest = float(exact)
    return math.nextafter(nearest, -math.inf) if Fraction(nearest) > exact else nearest


def lane_row_sum_model(row: np.ndarray) -> tuple:
    """kernels/v10_axis.cu's lane_row_sum in Python floats (IEEE float64, round to nearest), for a
    float32 or float64 row that lost bits in thread_row: (whether it fit, the expansion's terms,
    `rest`): a short row whole in the expansion; in longer ones the elements within 2^-128 of the
    largest, the others' magnitudes summed rounding up."""
    elements = [float(x) for x in row.tolist()]
    if not all(math.isfinite(x) for x in elements):
        return False, None, None
    whole = len(elements) <= (16 if row.dtype == f32 else EXPANSION_TERMS)  # kWholeRowLength: every element
    near = 0.0 if whole else max(abs(x) for x in elements) * 2.0**-128
    terms, rest = [0.0] * EXPANSION_TERMS, 0.0
    for x in elements:
        if abs(x) >= near:
            terms, fits = grow_expansion(terms, x)
            if not fits:
                return False, None, None
        else:
            rest = up(Fraction(rest) + Fraction(abs(x)))
    return True, terms, rest


# The hand-made finite rows a lane leaves to the warps: TwoSum's overflow; a sum on a midpoint whose
# side an element in `rest` decides (rows longer than kWholeRowLength).
LEFT_TO_THE_WARPS = {"float32": set(), "float64": {"float64_no_overflow", "float64_carry_through_the_state"}}


def lane_expansion_model(row: np.ndarray) -> tuple:
    """lane_row_sum, then lane_expansion::round_to_float32, for a float32 row into a float32 result:
    whether the lane rounded it (else the warps take it), and the float32 if it did."""
    fits, terms, rest = lane_row_sum_model(row)
    if not fits:
        return False, None

    def compare(m):  # the sign of (exact sum - m): that of the top non-zero result
        results = []
        carry = -m
        for term in terms:
            carry, error = two_sum(carry, term)
            results.append(error)
        nonzero = [r for r in results + [carry] if r != 0.0]
        return 0 if not nonzero else (1 if nonzero[-1] > 0 else -1)

    overflow = float(np.finfo(f32).max) + 2.0**103  # IEEE's threshold: FLT_MAX and half its last place

    def step(f, direction):
        with np.errstate(over="ignore"):  # FLT_MAX's neighbour is an infinity
            return float(np.nextafter(f32(f), f32(direction * np.inf)))

    def midpoint(a, b):
        return np.copysign(overflow, a + b) if np.isinf(a) or np.isinf(b) else (a + b) * 0.5

    def even(a, b):
        return a if int(f32(a).view(np.uint32)) % 2 == 0 else b

    guess = 0.0
    for term in reversed(terms):
        guess += term
    with np.errstate(over="ignore"):
        f = float(f32(guess))
    for _ in range(4):
        above_f, below_f = step(f, 1), step(f, -1)
        above = -1 if f == np.inf else compare(midpoint(f, above_f))
        below = 1 if f == -np.inf else compare(midpoint(f, below_f))
        if above > 0:
            f = above_f
        elif below < 0:
            f = below_f
        elif rest > 0.0:
            if (f != np.inf and compare(down(Fraction(midpoint(f, above_f)) - Fraction(rest))) >= 0) or \
                    (f != -np.inf and compare(up(Fraction(midpoint(f, below_f)) + Fraction(rest))) <= 0):
                return False, None
            return True, f32(f + 0.0)
        else:
            f = even(f, above_f) if above == 0 else even(f, below_f) if below == 0 else f + 0.0
            return True, f32(f)
    return False, None


def test_a_lanes_expansion_rounds_the_exact_sum_once(seed):
    """The claim behind V10's float32 short rows that lost bits (kernels/v10_axis.cu,
    lane_expansion), in a model of it: where the lane rounded a row, the one rounding is the exact
    sum's, ties, overflow and cancellation included; a row of up to EXPANSION_TERMS finite elements,
    all within 2^-128 of the largest, always fits, and full-range rows of 16 to 256 almost always
    (else the warps would take them again)."""
    rng = np.random.default_rng([seed, 12])
    fitted = 0
    for kind, generate in GENERATORS.items():
        for length in [1, 3, 12, 16, 40, 64, 256]:
            for _ in range(30):
                row = generate(rng, "float32", length)
                fits, value = lane_expansion_model(row)
                if fits:
                    assert same_bits(value, exact_sum(row, f32)), (kind, row.tolist())
                if length <= EXPANSION_TERMS and lane_row_sum_model(row)[2] == 0.0:
                    assert fits, (kind, row.tolist())
                fitted += fits and kind == "wide_range" and length in (16, 64, 256)
    assert fitted >= 86, fitted  # of 90 full-range rows of 16, 64 and 256
    for name, row in TRICKY.items():
        if row.dtype == f32 and name != "negative_zeros":  # an all -0.0 row never loses bits
            fits, value = lane_expansion_model(row)
            assert fits == (bool(np.isfinite(row).all()) and name not in LEFT_TO_THE_WARPS["float32"]), name
            if fits:
                assert same_bits(value, exact_sum(row, f32)), name
    for row in near_midpoints(rng, 300, 20):  # on or beside midpoints, rows longer than 16: through the bound
        fits, value = lane_expansion_model(row)
        if fits:
            assert same_bits(value, exact_sum(row, f32)), row.tolist()
        else:  # only a bound (a far smaller element) may leave the sum on a midpoint undecided
            assert lane_row_sum_model(row)[2] > 0.0, row.tolist()


def lane_float64_model(row: np.ndarray) -> tuple:
    """lane_row_sum, then lane_expansion::round_to_float64, for a float32 or float64 row into a
    float64 result: whether the lane rounded it (else the warps take it), and the float64 if it
    did; the rounding is kept only where `rest` cannot change it."""
    fits, terms, rest = lane_row_sum_model(row)
    if not fits:
        return False, None
    hi, lo, below, inexact = 0.0, 0.0, 0, False
    for term in reversed(terms):
        if not inexact:
            hi, lo = two_sum(hi, term)
            inexact = lo != 0.0
        elif below == 0 and term != 0.0:
            below = 1 if term > 0 else -1
    distance = abs(lo)
    if inexact and below != 0 and (lo > 0) == (below > 0):
        twice = lo * 2.0
        away = hi + twice
        if away - hi == twice:
            hi = away
    if not math.isfinite(hi) or abs(hi) == np.finfo(np.float64).max:
        return False, None
    if rest > 0.0:
        half_up = (math.nextafter(hi, math.inf) - hi) * 0.5
        half_down = (hi - math.nextafter(hi, -math.inf)) * 0.5
        distance = up(Fraction(up(Fraction(distance) * Fraction(1 + 2.0**-50))) + Fraction(rest))
        if not distance < min(half_up, half_down):
            return False, None
    return True, np.float64(hi + 0.0)


def past_midpoint(rng, dtype, result) -> list:
    """A row whose elements near the largest sum to 1.5 x 2^-128 of it short of a midpoint of
    `result` (f, half f's last place, the step back), while two elements just below the lanes'
    window (kernels/v10_axis.cu, lane_row_sum: 2^-128 of the largest), left to its bound, carry the
    sum past it: the lane must leave the row to the warps, or it rounds wrongly."""
    f = float(np.asarray(rng.uniform(1, 2) * 2.0 ** int(rng.integers(2, 100)), dtype)) * float(rng.choice([-1, 1]))
    direction = float(rng.choice([-1, 1]))
    half = math.ldexp(1.0, math.frexp(f)[1] - (25 if np.dtype(result) == f32 else 54))
    below = abs(f) * 2.0**-128 * (1 - float(np.finfo(dtype).eps))
    row = [f, direction * half, -direction * 1.5 * abs(f) * 2.0**-128, direction * below, direction * below]
    return [float(np.asarray(x, dtype)) for x in row]


def cancelled_past_midpoint(rng, dtype) -> list:
    """A row whose largest elements cancel, leaving a sum just short of a float64 midpoint (by 2^-40
    of half a place, beyond round_to_float64's margin), and two elements below the lanes' window,
    far larger than that place, left to its bound, that carry the sum past it."""
    big = 2.0 ** int(rng.integers(40, 100)) * float(rng.choice([-1, 1]))
    f = float(np.asarray(rng.uniform(1, 2) * 2.0 ** int(rng.integers(-10, 10)), dtype))
    direction = float(rng.choice([-1, 1]))
    half = math.ldexp(1.0, math.frexp(f)[1] - 54)
    below = abs(big) * 2.0**-128 * (1 - float(np.finfo(dtype).eps))
    row = [big, -big, f, direction * half, -direction * half * 2.0**-40, direction * below, direction * below]
    return [float(np.asarray(x, dtype)) for x in row]


def near_float64_midpoints(rng, rows: int, length: int, dtype) -> np.ndarray:
    """Rows of `dtype` whose exact sums lie on or just beside a float64 midpoint: f, half of f's last
    place as a float64 (either sign; float32 rows split it where it has too many bits), and elements
    near or far below it (in every other row a pair of them cancels), padded with -0.0; rows at
    DBL_MAX among the float64 ones, and rows that far smaller elements carry past one (past_midpoint,
    cancelled_past_midpoint)."""
    dtype = np.dtype(dtype)
    x = np.full((rows, length), -0.0, dtype)
    tiny = np.finfo(dtype).smallest_subnormal
    for r in range(rows):
        sign = float(rng.choice([-1, 1]))
        if dtype == np.float64 and r % 10 == 0:
            row = [sign * np.finfo(np.float64).max, sign * 2.0**970, float(rng.choice([0.0, -(2.0**900), 2.0**-600]))]
        elif r % 10 == 5:
            row = past_midpoint(rng, dtype, np.float64)
        elif r % 10 == 7:
            row = cancelled_past_midpoint(rng, dtype)
        else:
            low, top = (-90, 124) if dtype == f32 else (-1000, 1000)  # float32: f's half place a float32
            f = float(np.asarray(rng.standard_normal() * 2.0 ** int(rng.integers(low, top)), dtype))
            half = float(np.spacing(abs(f))) / 2 if dtype == np.float64 else 2.0 ** (math.frexp(f)[1] - 54)
            row = [f, sign * half]
            for _ in range(int(rng.integers(0, length - 1))):
                gap = int(rng.integers(1, 200 if rng.random() < 0.5 else 60))
                row.append(float(np.asarray(rng.choice([-1, 1]) * max(abs(f) * 2.0 ** -(53 + gap), tiny), dtype)))
            if r % 2 and len(row) >= 4:  # a pair that cancels: the sum on the midpoint itself
                row[3] = -row[2]
        x[r, :min(len(row), length)] = np.asarray(row[:length], dtype)
    return x


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_lanes_float64_rounding_is_the_exact_sums(seed, dtype):
    """The claim behind the lanes' float64 results (kernels/v10_axis.cu, lane_row_sum and
    round_to_float64), in a model of it: where the lane keeps a rounding it is the exact sum's,
    ties, overflow near DBL_MAX and cancellation included; the rows it gives up on go to the warps,
    so the test asks only that full-range rows of 16 to 256 (the rows it is for) almost all stay
    with it."""
    rng = np.random.default_rng([seed, 13, FLOATS.index(dtype)])
    kept = 0
    for kind, generate in GENERATORS.items():
        for length in [1, 3, 12, 16, 40, 64, 256]:
            for _ in range(30):
                row = generate(rng, dtype, length)
                fits, value = lane_float64_model(row)
                if fits:
                    assert same_bits(value, exact_sum(row, np.float64)), (kind, row.tolist())
                kept += fits and kind == "wide_range" and length in (16, 64, 256)
    assert kept >= 86, kept  # of 90 full-range rows of 16, 64 and 256
    for name, row in TRICKY.items():
        if row.dtype == np.dtype(dtype) and not (np.signbit(row) & (row == 0)).all():  # all -0.0: never loses bits
            fits, value = lane_float64_model(row)
            assert fits == (bool(np.isfinite(row).all()) and name not in LEFT_TO_THE_WARPS["float64"]), name
            if fits:
                assert same_bits(value, exact_sum(row, np.float64)), name
    decided = 0
    for row in near_float64_midpoints(rng, 400, 14, dtype):  # rows longer than 12: through the bound
        fits, value = lane_float64_model(row)
        if fits:
            assert same_bits(value, exact_sum(row, np.float64)), row.tolist()
        decided += fits
    assert decided >= 200, decided


def test_fsum_along_axes_of_host_arrays_runs_on_the_cpu_only():
    x = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match="CPU"):
        cured.fsum(x, axis=0, device="gpu")
    with pytest.raises(ValueError, match="CPU"):
        cured.sum(x, axis=0, version=10, device="gpu")
    with pytest.raises(ValueError, match="'cpu' or 'auto'"):
        cured._cured.exact_rows(x, np.float32, "gpu")
    with pytest.raises(ValueError, match="device must be"):
        cured._cured.exact_rows(x, np.float32, "tpu")
    with pytest.raises(ValueError, match="axis"):
        cured.fsum(x, axis=0, device="cpu", timing=True)
    with pytest.raises(ValueError, match="initial"):
        cured.sum(x, axis=0, version=10, device="cpu", initial=1.0)
    with pytest.raises(np.exceptions.AxisError):
        cured.fsum(x, axis=2, device="cpu")


def test_state_errors():
    with pytest.raises(ValueError, match="exact version"):
        cured._cured.sum(np.ones(3), 9, None, "cpu", False, None, True)
    with pytest.raises(ValueError, match="state=True"):
        cured._cured.sum(np.ones(3), 10, np.float64, "cpu", False, None, True)
    with pytest.raises(ValueError, match="bytes"):
        cured.ExactSum.from_bytes(b"\0" * 10)
    with pytest.raises(TypeError, match="float16, float32 or float64"):
        cured.ExactSum(1).round(np.int64)
    with pytest.raises(OverflowError):
        cured.ExactSum(1 << 3000).round()


# ---- the GPU: the same answer on every path --------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("name", TRICKY)
def test_tricky_cases_on_the_gpu(name):
    x = TRICKY[name]
    check(x, cured.fsum(x, device="gpu"))


@pytest.mark.gpu
@pytest.mark.parametrize("kind", GENERATORS)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", LENGTHS)
def test_gpu_is_exact(seed, kind, dtype, n):
    x = GENERATORS[kind](np.random.default_rng([seed, n, FLOATS.index(dtype)]), dtype, n)
    check(x, cured.fsum(x, device="gpu"))


@pytest.mark.gpu
@pytest.mark.parametrize("kind", ["wide_range", "outliers"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_gpu_any_grid_and_chunking_gives_the_one_answer(seed, dtype, kind):
    """Few blocks give each thread many steps: outliers mix steps the window holds with steps it
    refuses or undoes."""
    x = GENERATORS[kind](np.random.default_rng(seed), dtype, 3 * 2**20 + 11)
    expected = cured.fsum(x, device="cpu")
    lanes, chunk = cured._cured.staging()["lanes"], cured._cured.staging()["chunk_bytes"]
    try:
        for blocks, misalign in [(1, 0), (3, 0), (1000, 0), (7, np.dtype(dtype).itemsize)]:
            cured._cured._set_test_launch(blocks, misalign)
            assert same_bits(cured.fsum(x, device="gpu"), expected), (blocks, misalign)
        cured._cured._set_test_launch(0, 0)
        for lanes_now, chunk_bytes in [(1, 1 << 16), (3, 1 << 18), (6, 1 << 22)]:
            cured._cured._set_staging(lanes_now, chunk_bytes)
            assert same_bits(cured.fsum(x, device="gpu"), expected), (lanes_now, chunk_bytes)
    finally:
        cured._cured._set_test_launch(0, 0)
        cured._cured._set_staging(lanes, chunk)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", FLOATS)
def test_a_cluster_of_blocks_gives_the_one_answer(seed, dtype):
    """2 to 8 tiles run as one cluster of blocks, a tile each, that add their states in the first
    block's shared memory (compute capability 9.0 up; csrc/kernels/v10_exact.cu): exact, the CPU's
    bits and state, the flags of a block other than the first (a NaN, infinities, a +0.0 among
    -0.0s), and the answer of the ticket's path, which a forced grid takes."""
    rng = np.random.default_rng(seed)
    launches = cured._cured._cluster_launches()
    runs = 0
    for tiles in range(2, 9):
        tile = cured._cured.shape(cured.EXACT_VERSION, np.dtype(dtype), 1)["tile"]
        n = (tiles - 1) * tile + int(rng.integers(1, tile + 1))
        assert cured._cured.shape(cured.EXACT_VERSION, np.dtype(dtype), n)["tiles"] == tiles
        cases = {kind: make(rng, dtype, n) for kind, make in GENERATORS.items()}
        for name, value in [("nan", np.nan), ("inf", np.inf), ("-inf", -np.inf)]:
            cases[name] = normal(rng, dtype, n)
            cases[name][-1] = value
        cases["inf_and_-inf"] = normal(rng, dtype, n)
        cases["inf_and_-inf"][[0, -1]] = [np.inf, -np.inf]
        cases["negative_zeros"] = np.full(n, -0.0, dtype=dtype)
        cases["a_positive_zero_last"] = np.full(n, -0.0, dtype=dtype)
        cases["a_positive_zero_last"][-1] = 0.0
        for name, x in cases.items():
            got = cured.fsum(x, device="gpu")
            runs += 1
            check(x, got)
            assert same_bits(got, cured.fsum(x, device="cpu")), (tiles, name)
            assert cured.fsum_state(x, device="gpu") == cured.fsum_state(x, device="cpu"), (tiles, name)
            runs += 1
            try:
                cured._cured._set_test_launch(tiles, 0)
                assert same_bits(cured.fsum(x, device="gpu"), got), (tiles, name)
            finally:
                cured._cured._set_test_launch(0, 0)
    if cured.device_info()["compute_capability"] >= (9, 0):
        assert cured._cured._cluster_launches() - launches == runs


def check_under_grid(cases, blocks):
    """Each named input's GPU sum under a grid of `blocks`: exact, and the CPU's bits."""
    try:
        cured._cured._set_test_launch(blocks, 0)
        for name, x in cases.items():
            check(x, cured.fsum(x, device="gpu"))
            assert same_bits(cured.fsum(x, device="cpu"), cured.fsum(x, device="gpu")), name
    finally:
        cured._cured._set_test_launch(0, 0)


def float64_extremes(rng, n):
    """float64 values over the whole exponent range, the largest included, with all-ones and random
    significands; each also negated, so that the sum is what a few small elements leave."""
    half = wide_range(rng, "float64", n // 2, top_gap=0)
    ones = rng.random(half.size) < 0.25
    half[ones] = (half[ones].view(np.uint64) | np.uint64((1 << 52) - 1)).view(np.float64)
    x = np.concatenate([half, -half, normal(rng, "float64", n - 2 * half.size)])
    rng.shuffle(x)
    return x


@pytest.mark.gpu
@pytest.mark.parametrize("blocks", [1, 5])
@pytest.mark.parametrize("n, chunk", [(2**20 + 5, 0), (2**21 + 5, 64 << 20)], ids=["warp_words", "thread_digits"])
def test_float64_level_2(seed, blocks, n, chunk):
    """float64's level 2 (csrc/kernels/v10_exact.cu): in a launch of at most a wave of tiles (396 on
    an H100 or H200; the host path's chunks of 4 MiB are 128), each warp's words of 16-bit digits
    (warp_words); beyond, each thread's digits (thread_digits: 513 tiles in one chunk), under a
    forced grid in the kernel that clears them first. With few blocks the words are flushed, and
    the digits carried, many times; the largest values stress the words' headroom and the top
    digit, and sums of many of them overflow to infinity or cancel exactly."""
    rng = np.random.default_rng(seed)
    biggest = np.finfo(np.float64).max
    cases = {
        "extremes": float64_extremes(rng, n),
        "overflow": np.full(n, biggest),
        "cancel_to_zero": np.concatenate([np.full(n // 2, biggest), np.full(n // 2, -biggest)]),
        "cancel_to_max": np.concatenate([np.full(n // 2, -biggest), np.full(n // 2 + 1, biggest)]),
        "subnormals": wide_range(rng, "float64", n, top_gap=2040),
    }
    try:
        cured._cured._set_staging(1 if chunk else 0, chunk)
        check_under_grid(cases, blocks)
    finally:
        cured._cured._set_staging(0, 0)


def binade_tops(rng, dtype, n, top_gap=0):
    """The largest significand of every exponent up to 2^top_gap below the largest, each exponent
    with one random sign, drawn n times: the most that each of V10's float32 exponent bins can be
    given between two flushes."""
    m = MANTISSA[dtype]
    exponents = np.arange(0, MAX_EXPONENT_FIELD[dtype] - top_gap + 1, dtype=np.uint64)
    signs = rng.integers(0, 2, size=exponents.size).astype(np.uint64)
    width = np.dtype(dtype).itemsize * 8
    tops = ((signs << np.uint64(width - 1)) | (exponents << np.uint64(m)) | np.uint64((1 << m) - 1))
    return tops.astype(BITS[dtype]).view(dtype)[rng.integers(0, exponents.size, size=n)]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("blocks", [1, 5])
def test_exponent_bins_of_each_thread(seed, dtype, blocks):
    """float32's and float16's level 2 (csrc/kernels/v10_exact.cu, thread_bins): each thread's
    float64 bin b adds the elements of exponents 16b to 16b + 15 exactly until a flush turns it into
    integers. Few blocks make each thread flush many times; every exponent's largest significand,
    of one sign an exponent, fills the bins as much as a flush allows; then those cancelled by their
    negations down to a small remainder, and sums that overflow."""
    rng = np.random.default_rng(seed)
    n = 2**20 + 5
    tops = binade_tops(rng, dtype, n // 2)
    biggest = np.finfo(dtype).max
    cases = {
        "tops": binade_tops(rng, dtype, n, top_gap=24 if dtype == "float32" else 16),
        "tops_cancelling": rng.permutation(np.concatenate([tops, -tops, normal(rng, dtype, 5)])),
        "overflow": np.full(n, biggest, dtype=dtype),
        "cancel_to_max": np.concatenate([np.full(n // 2, -biggest, dtype=dtype), np.full(n // 2 + 1, biggest, dtype=dtype)]),
    }
    check_under_grid(cases, blocks)


def sprinkled_tiny(rng, dtype, n, count=64):
    """Standard-normal data with `count` elements scaled below V10's fast window (float32 under
    2^-29, float64 under 2^-62) among elements it holds: each such element's step is undone and
    taken by level 2, after steps of the same thread that the window held."""
    x = normal(rng, dtype, n)
    at = rng.choice(n, size=count, replace=False)
    x[at] = (x[at].astype(np.float64) * (2.0**-40 if dtype == "float32" else 2.0**-80)).astype(dtype)
    return x


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_step_undone_keeps_the_steps_before_it(seed, dtype):
    """A step whose elements lie below the window's top but leave a remainder in its bins starts
    again from the bins' start (csrc/kernels/v10_exact.cu, level 1); the int64s that the thread's
    earlier steps emptied into must stay. Until 2026-11-27 that restart cleared them: a CuPy float32
    array of 2^24 + 5 standard-normal values with one of -1.2e-10 summed to 4331.403, not 4327.9746
    (one launch, several steps a thread). Few blocks give each thread many steps; so does one
    launch over a device array of several waves of tiles."""
    n = 2**22 + 3
    x = sprinkled_tiny(np.random.default_rng(seed), dtype, n)
    expected = exact_sum(x, np.dtype(dtype))
    assert same_bits(cured.fsum(x, device="cpu"), expected)
    try:
        for blocks in (1, 5, 0):
            cured._cured._set_test_launch(blocks, 0)
            assert same_bits(cured.fsum(x, device="gpu"), expected), blocks
    finally:
        cured._cured._set_test_launch(0, 0)
    cupy = pytest.importorskip("cupy")
    assert same_bits(cured.fsum(cupy.asarray(x)), expected)


@pytest.mark.gpu
@pytest.mark.parametrize("kind", GENERATORS)
def test_float64_where_the_threads_state_does_not_fit(seed, kind):
    """A GPU without the shared memory for each thread's float64 state (sm_75) takes the warp's,
    with atomics: the same answer."""
    xs = [GENERATORS[kind](np.random.default_rng([seed, n]), "float64", n) for n in (33, 8193, 2**20 + 7)]
    xs.append(float64_extremes(np.random.default_rng(seed), 2**20 + 1))
    try:
        cured._cured._set_test_dynamic_shared(1)
        for x in xs:
            check(x, cured.fsum(x, device="gpu"))
    finally:
        cured._cured._set_test_dynamic_shared(0)


@pytest.mark.gpu
def test_gpu_states_add_to_the_whole(seed):
    x = cancelling(np.random.default_rng(seed), "float32", 2**20 + 3)
    pieces = np.array_split(x, 5)
    gpu_states = [cured.fsum_state(p, device="gpu") for p in pieces]
    assert gpu_states == [cured.fsum_state(p, device="cpu") for p in pieces]
    assert same_bits(sum(gpu_states).round(np.float32), cured.fsum(x, device="gpu"))


@pytest.mark.gpu
def test_device_arrays_and_out(seed):
    cupy = pytest.importorskip("cupy")
    x = wide_range(np.random.default_rng(seed), "float32", 2**21 + 5)
    expected = exact_sum(x, np.float32)
    d = cupy.asarray(x)
    assert same_bits(cured.fsum(d), expected)
    assert same_bits(cured.fsum(d[1:]), exact_sum(x[1:], np.float32))  # misaligned: scalar loads
    assert same_bits(cured.fsum(d[::3]), exact_sum(x[::3], np.float32))  # strided: copied first
    out = cupy.empty((), dtype=cupy.float32)
    cured.fsum(d, out=out)
    assert same_bits(np.float32(out.get()), expected)
    assert cured.fsum_state(d) == cured.fsum_state(x, device="cpu")
    h = cupy.asarray(TRICKY["half_double_rounding"])
    out16 = cupy.empty((1,), dtype=cupy.float16)
    cured.fsum(h, out=out16)
    assert same_bits(np.float16(out16.get()[0]), exact_sum(TRICKY["half_double_rounding"], f16))


@pytest.mark.gpu
@pytest.mark.parametrize("shape, axis", AXIS_CASES)
@pytest.mark.parametrize("kind", ["wide_range", "cancelling"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_fsum_along_axes_on_the_gpu(seed, shape, axis, kind, dtype):
    """V10 along axes of a device array (kernels/v10_axis.cu): each output the exact sum of its
    elements, rounded once; the CPU's bits."""
    cupy = pytest.importorskip("cupy")
    n = int(np.prod(shape))
    x = GENERATORS[kind](np.random.default_rng([seed, n, FLOATS.index(dtype), 1]), dtype, n).reshape(shape)
    got = cured.fsum(cupy.asarray(x), axis=axis)
    check_along(x, axis, got, result_dtype(dtype))
    assert got.tobytes() == cured.fsum(x, axis=axis, device="cpu").tobytes()


@pytest.mark.gpu
@pytest.mark.parametrize("shape, axis", [((3, 3 * 2**20 + 7), 1), ((2**20 + 3, 3), 0), ((5, 40000, 3), (0, 1)),
                                         ((2**16, 5), 1)])
def test_fsum_along_axes_on_the_gpu_in_segments(seed, shape, axis):
    """Few long rows are cut into segments whose exact states a second launch adds; many short
    rows take a warp each. Specials and signed zeros as IEEE: a NaN, +inf with -inf, -0.0 alone."""
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(seed)
    x = wide_range(rng, "float64", int(np.prod(shape))).reshape(shape)
    got = cured.fsum(cupy.asarray(x), axis=axis)
    assert got.tobytes() == cured.fsum(x, axis=axis, device="cpu").tobytes()  # the CPU's are checked exact above
    special = np.full((4, 3 * 2**20), -0.0)
    special[1, 17], special[2, 5], special[2, -1], special[3, 2**20] = np.inf, np.inf, -np.inf, np.nan
    got = cured.fsum(cupy.asarray(special), axis=1)
    assert np.signbit(got[0]) and got[0] == 0 and got[1] == np.inf and np.isnan(got[2]) and np.isnan(got[3])


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_fsum_along_long_rows_of_narrow_floats_as_ieee(dtype):
    """Rows of 1024 float32 or float16 elements or more add in each thread's float64 bins
    (kernels/v10_axis.cu): a NaN, +inf with -inf, -0.0 alone as IEEE there too."""
    cupy = pytest.importorskip("cupy")
    special = np.full((4, 3000), -0.0, dtype)
    special[1, 17], special[2, 5], special[2, -1], special[3, 2000] = np.inf, np.inf, -np.inf, np.nan
    got = cured.fsum(cupy.asarray(special), axis=1)
    assert np.signbit(got[0]) and got[0] == 0 and got[1] == np.inf and np.isnan(got[2]) and np.isnan(got[3])
    special[0, 7] = 0.0  # one +0.0 among the -0.0: +0.0
    assert not np.signbit(cured.fsum(cupy.asarray(special), axis=1)[0])


# V10 along axes holds an element in each thread's registers (kernels/exact_window.cuh) where
# 2^low <= |x| < 2^top: its bits lie whole in the window's bins there.
WINDOW_EDGES = {"float32": (-29, 12), "float64": (-62, 24)}


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(5, 3000), (3, 2**13 + 5), (40, 700)])
def test_fsum_along_axes_at_the_windows_edges(seed, dtype, shape):
    """Each thread's fast window (kernels/v10_axis.cu): elements just inside and just outside its
    edges, of random signs, among ordinary ones; and rows of the largest element it holds, of one
    sign, which fill its bins as much as an empty allows (float16: the largest and the smallest
    float16, all of which it holds). Rows of 700 take the words beside it; longer float32 and float16
    rows, the threads' float64 bins; 3000 float64 elements flush the words mid-row."""
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng([seed, FLOATS.index(dtype), shape[1]])
    if dtype == "float16":
        edges = np.array([np.finfo(dtype).max, np.finfo(dtype).smallest_subnormal, 2.0**-14, 1.0], dtype)
    else:
        low, top = WINDOW_EDGES[dtype]
        below = lambda e: np.nextafter(np.ldexp(np.array(1, dtype), e), np.array(0, dtype))
        edges = np.array([below(top), np.ldexp(1, top), np.ldexp(1, low), below(low)], dtype)
    n = int(np.prod(shape))
    mixed = np.where(rng.random(n) < 0.5, rng.choice(edges, n), normal(rng, dtype, n))
    mixed = (mixed * rng.choice(np.array([-1, 1], dtype), n)).astype(dtype).reshape(shape)
    fullest = np.full(shape, edges[0], dtype)
    fullest[1::2] *= -1
    to = np.float32 if dtype == "float16" else result_dtype(dtype)  # float16's fullest rows overflow float16
    for x in (mixed, fullest):
        got = cured.fsum(cupy.asarray(x), axis=1, dtype=to)
        check_along(x, 1, got, to)
        assert got.tobytes() == cured.fsum(x, axis=1, dtype=to, device="cpu").tobytes()


def short_rows(seed, dtype, length, rows=300):
    """Standard-normal rows, among them rows over the whole exponent range and this dtype's
    hand-made cases padded with -0.0: rows a float64 sum keeps exact beside rows it does not (bits
    lost, NaN, infinities, float64 overflow), mixed in every group of 32."""
    rng = np.random.default_rng([seed, FLOATS.index(dtype), length])
    x = normal(rng, dtype, rows * length).reshape(rows, length)
    wide = rng.random(rows) < 0.2
    x[wide] = wide_range(rng, dtype, int(wide.sum()) * length).reshape(-1, length)
    cases = [case for case in TRICKY.values() if case.dtype == np.dtype(dtype) and case.size <= length]
    for row, case in zip(rng.choice(rows, len(cases), replace=False), cases):
        x[row] = -0.0
        x[row, :case.size] = case
    return x


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("length", [1, 3, 16, 100, 512, 513])
def test_fsum_along_short_rows_on_the_cpu(seed, dtype, length):
    """Rows of up to 512 elements are summed on the CPU in float64 where every addition is exact
    (csrc/exact_cpu.c, row_in_double), and where one is not straight into a state's limbs
    (row_in_limbs: float32 rows of up to 256, float64 rows) or by the exponent bins; rows of 513 by
    the bins alone. Into each wider result dtype, against the exact reference."""
    x = short_rows(seed, dtype, length)
    for to in FLOATS[FLOATS.index(dtype):]:  # a narrower dtype= casts each element first
        check_along(x, 1, cured.fsum(x, axis=1, dtype=to, device="cpu"), to)


def near_midpoints(rng, rows: int, length: int) -> np.ndarray:
    """float32 rows whose exact sums lie on or just beside a float32 midpoint: f, half of f's last
    place (either sign), and tiny elements far below it (in every other row a pair of them cancels),
    padded with -0.0; rows at FLT_MAX's overflow threshold among them, and rows that far smaller
    elements carry past a midpoint (past_midpoint)."""
    x = np.full((rows, length), -0.0, f32)
    for r in range(rows):
        if r % 10 == 0:
            row = np.array([np.finfo(f32).max, 2.0**103, rng.choice([0.0, 2.0**-100, -(2.0**50)])], f32)
            row *= f32(rng.choice([-1, 1]))
        elif r % 10 == 5:
            row = np.array(past_midpoint(rng, f32, f32), f32)
        else:
            f = f32(rng.standard_normal() * 2.0 ** int(rng.integers(-100, 100)))
            tail = [f32(rng.choice([-1, 1]) * abs(f) * 2.0 ** int(rng.integers(-60, -25)))
                    for _ in range(int(rng.integers(0, length - 1)))]
            if r % 2 and len(tail) >= 2:  # a tiny pair that cancels: the sum on the midpoint itself
                tail[1] = -tail[0]
            row = np.array([f, f32(np.spacing(abs(f)) / 2) * f32(rng.choice([-1, 1]))] + tail, f32)
        x[r, :min(row.size, length)] = row[:length]
    return x


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("length", [2, 3, 7, 64, 256, 257])
def test_cpu_short_rows_that_lose_bits(seed, dtype, length):
    """Float32 rows of up to 256 elements and float64 rows of up to 512 that lose bits in float64 go
    on the CPU straight into a state's limbs (csrc/exact_cpu.c, row_in_limbs; float32 limbs 28 to
    41 alone), longer ones into the exponent bins: rows over the whole exponent range and of
    cancelling pairs, float32 sums on and beside float32 midpoints and at the overflow threshold,
    the hand-made cases padded with -0.0; into each wider result dtype, against the exact
    reference."""
    rng = np.random.default_rng([seed, length, FLOATS.index(dtype)])
    parts = [wide_range(rng, dtype, 150 * length).reshape(150, length),
             cancelling(rng, dtype, 50 * length).reshape(50, length)]
    if dtype == "float32":
        parts.append(near_midpoints(rng, 100, length))
    x = np.concatenate(parts)
    cases = [case for case in TRICKY.values() if case.dtype == np.dtype(dtype) and case.size <= length]
    for row, case in zip(rng.choice(len(x), len(cases), replace=False), cases):
        x[row] = -0.0
        x[row, :case.size] = case
    for to in FLOATS[FLOATS.index(dtype):]:
        check_along(x, 1, cured.fsum(x, axis=1, dtype=to, device="cpu"), to)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("length", [1, 3, 16, 100, 256, 257, 1000, 1001, 8192, 8193])
def test_fsum_along_short_rows_a_thread_a_row(seed, dtype, length):
    """Rows of up to 8192 elements are summed in float64 where every addition is exact, and by the
    warp's exact state where one is not (kernels/v10_axis.cu, thread_row), in warps whose rows mix
    the two (short_rows); into each wider result dtype. A lane a row up to 256 elements, then 2, 4,
    ... 32 lanes a row (257 and 1001 elements: 2 and 4 lanes, an element at a time; 1000: 4 lanes,
    16 bytes at a time; 8192: 32); rows of 8193 take the warp alone. Rows of 16 and 256 float32
    elements load 16 bytes at a time, 3 and 100 one element."""
    cupy = pytest.importorskip("cupy")
    x = short_rows(seed, dtype, length)
    d = cupy.asarray(x)
    for to in FLOATS[FLOATS.index(dtype):]:  # a narrower dtype= casts each element first (on the host)
        got = cured.fsum(d, axis=1, dtype=to)
        check_along(x, 1, got, to)
        assert got.tobytes() == cured.fsum(x, axis=1, dtype=to, device="cpu").tobytes()


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, to", [("float32", "float32"), ("float32", "float64"), ("float64", "float64")])
@pytest.mark.parametrize("length", [3, 13, 16, 40, 72, 128, 129])
@pytest.mark.parametrize("rows", [2**20, 2**16])
def test_fsum_along_full_range_rows_by_lanes(seed, rows, length, dtype, to):
    """2^20 rows, a lane a row, or 2^16 rows, 16 lanes a row (kernels/v10_axis.cu): most over the
    whole exponent range, which lose bits in float64 and go, a lane a row, to the lane's expansion
    (lane_row_sum, then round_to_float32 or round_to_float64), and those it cannot round (more terms
    than it has, a midpoint that a far smaller element decides) or rows of several lanes to the
    warp's state; standard-normal rows between them, rows on, beside and carried past midpoints,
    and the hand-made cases padded with -0.0. Rows of 3, 13 and 129 load an element at a time, 16,
    40, 72 and 128 a vector; rows of 129 are longer than the lanes take (kExpansionRowLength), the
    warps'. Every output's bits against the CPU's, a sample, the midpoints and the hand-made rows
    against the exact reference."""
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng([seed, rows, length, FLOATS.index(dtype), FLOATS.index(to)])
    x = wide_range(rng, dtype, rows * length).reshape(rows, length)
    x[::5] = normal(rng, dtype, x[::5].size).reshape(-1, length)
    midpoints = near_midpoints(rng, 300, length) if to == "float32" else near_float64_midpoints(rng, 300, length, dtype)
    cases = [case for case in TRICKY.values() if case.dtype == np.dtype(dtype) and case.size <= length]
    planted = rng.choice(rows, len(cases) + len(midpoints), replace=False)
    for row, case in zip(planted, cases + list(midpoints)):
        x[row] = -0.0
        x[row, :case.size] = case
    got = cured.fsum(cupy.asarray(x), axis=1, dtype=to)
    assert got.dtype == np.dtype(to) and got.tobytes() == cured.fsum(x, axis=1, dtype=to, device="cpu").tobytes()
    for row in np.concatenate([planted, rng.choice(rows, 300, replace=False)]):
        assert same_bits(got[row], exact_sum(x[row], np.dtype(to))), (row, x[row].tolist())


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("length", [16384, 20011])
def test_fsum_along_long_rows_in_segments(seed, dtype, length):
    """A few rows longer than 4096 elements are cut into segments (4 of 4096 elements, or 5 of 4003),
    a warp a segment, whose exact states a block a row adds, its warps taking segments 8 apart
    (kernels/v10_axis.cu, exact_row_combine). The rows: standard normal; one element far below the
    rest; data over the whole exponent range; and zero totals' signs: all -0.0; -0.0 and one +0.0;
    halves that cancel exactly (+0.0); negative elements only. Into each wider result dtype,
    against the exact reference and the CPU's bits."""
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng([seed, FLOATS.index(dtype), length])
    x = normal(rng, dtype, 8 * length).reshape(8, length)
    x[1, length // 2] = np.finfo(dtype).smallest_subnormal
    x[2] = -0.0
    x[3] = -0.0
    x[3, rng.integers(length)] = 0.0
    half = x[4, : length // 2].copy()
    x[4, : length // 2], x[4, length // 2: 2 * (length // 2)] = half, -half
    x[4, 2 * (length // 2):] = 0.0
    x[5] = -np.abs(x[5])
    x[6] = wide_range(rng, dtype, length)
    d = cupy.asarray(x)
    for to in FLOATS[FLOATS.index(dtype):]:
        got = cured.fsum(d, axis=1, dtype=to)
        check_along(x, 1, got, to)
        assert got.tobytes() == cured.fsum(x, axis=1, dtype=to, device="cpu").tobytes()
    sums = cured.fsum(d, axis=1)
    assert np.signbit(sums[2]) and not np.signbit(sums[[3, 4]]).any()


@pytest.mark.gpu
def test_fsum_along_axes_of_device_arrays_takes_numpys_arguments(seed):
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(seed)
    x = wide_range(rng, "float32", 4 * 6 * 5).reshape(4, 6, 5)
    d = cupy.asarray(x)
    view = d[::-1, ::2, 1:]  # negative and non-unit strides: copied into C order first
    check_along(x[::-1, ::2, 1:], (0, 2), cured.fsum(view, axis=(0, 2)), np.float32)
    assert cured.fsum(d, axis=1, keepdims=True).shape == (4, 1, 5)
    check_along(x, 1, cured.fsum(d, axis=1, dtype=np.float64), np.float64)  # rounded once into float64
    out = cupy.full((4, 5), 7, dtype=cupy.float32)
    assert cured.fsum(d, axis=1, out=out) is out  # on the device, cast exactly from the rounded value
    assert out.get().tobytes() == cured.fsum(x, axis=1, device="cpu").tobytes()
    numpy_out = np.empty((4, 5), np.float64)
    assert cured.fsum(d, axis=1, out=numpy_out) is numpy_out  # rounded once into float64, NumPy's dtype here
    assert numpy_out.tobytes() == cured.fsum(x, axis=1, dtype=np.float64, device="cpu").tobytes()
    halves = cupy.asarray(TRICKY["half_double_rounding"].reshape(1, 3))
    out16 = cupy.empty((1,), dtype=cupy.float16)
    cured.fsum(halves, axis=1, out=out16)
    assert same_bits(out16.get()[0], exact_sum(TRICKY["half_double_rounding"], f16))
    ints = rng.integers(-2**62, 2**62, size=(3, 7), dtype=np.int64)
    check_along(ints, 0, cured.fsum(cupy.asarray(ints), axis=0, dtype=np.float32), np.float32)
    assert (cured.fsum(cupy.asarray(ints), axis=0) == ints.sum(axis=0)).all()  # integer results: V9's, exact
    with pytest.raises(ValueError, match="CPU"):
        cured.fsum(d, axis=0, device="cpu")  # the CPU path takes host arrays
    with pytest.raises(TypeError, match="dtype"):
        cured.fsum(d, axis=1, out=cupy.empty((4, 5), dtype=cupy.float64))  # out= of another dtype than the result
    for acc, result in [(np.float64, np.float32), (np.float32, np.float64), (np.float64, np.float16)]:
        with pytest.raises(ValueError, match="acc=float64 for a float64 result and float32 for the others"):
            cured._cured.sum_axes(d, (4, 6, 5), (False, True, False), np.dtype(acc), "auto", None, np.dtype(result),
                                  None, False, True)  # each output is held in the accumulator its result needs
    torch = pytest.importorskip("torch")
    check_along(x, 2, cured.fsum(torch.from_dlpack(d), axis=2), np.float32)


@pytest.mark.gpu
def test_more_than_2_to_the_31_elements():
    cupy = pytest.importorskip("cupy")
    n = 2**31 + 3
    cupy.get_default_memory_pool().free_all_blocks()  # what earlier tests left cached
    if "torch" in sys.modules:
        sys.modules["torch"].cuda.empty_cache()
    free, _ = cupy.cuda.runtime.memGetInfo()
    if free < 2 * n * 2 + (1 << 30):
        pytest.skip(f"needs {2 * n * 2 / 2**30:.0f} GiB of free GPU memory, has {free / 2**30:.1f}")
    d = cupy.full(n, 1.0, dtype=cupy.float16)
    d[-1] = 2.0**-21  # a float16 subnormal, 52 places below the sum's top bit: kept
    d[5] = -0.5
    got = cured.fsum(d, dtype="float64")  # (n - 2) - 0.5 + 2^-21 = 2^31 + 0.5 + 2^-21, which float64 holds
    assert got == np.float64(2**31 + 0.5 + 2.0**-21)
    got32 = cured.fsum(d, dtype="float32")
    assert got32 == np.float32(2.0**31)  # the last place is 256 there
    del d
