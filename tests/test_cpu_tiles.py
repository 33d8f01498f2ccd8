"""V9's order on the CPU (csrc/cpu_tiles.c): SIMD chains on the pool's threads give the scalar order
model's bits (cured._cured.model_sum), for every input dtype and accumulator, at every length, on
any number of threads; and device="auto"/"cpu" say where the sum ran. No GPU needed."""
import os
import threading

import numpy as np
import pytest

import cured
from reference import DTYPES, random_array, same_bits

# Around V9's blocks (256 threads x one 16-byte vector) and tiles (8 such blocks a step, more steps
# once there are 4096 tiles), and odd lengths that cut a vector.
LENGTHS = [0, 1, 3, 255, 1024, 4095, 4096, 8191, 8192, 8193, 32768 + 5, 100003, 1 << 20, (1 << 22) + 7]
ACCS = [None, "float32", "float64", "int64", "uint64"]


@pytest.fixture
def cpu_tiles():
    """Sets V9's CPU threads and SIMD for one test (cured._cured._set_cpu_tiles), then the defaults."""
    yield cured._cured._set_cpu_tiles
    cured._cured._set_cpu_tiles(0, False)


def pairs():
    for dtype in DTYPES:
        for acc in ACCS:
            if acc is not None and np.dtype(dtype).kind == "f" and np.dtype(acc).kind != "f":
                continue  # NumPy casts each float first (cured.sum does that in Python), not this path
            yield dtype, acc


@pytest.mark.parametrize("dtype, acc", list(pairs()), ids=lambda p: str(p))
@pytest.mark.parametrize("threads, plain", [(0, False), (1, False), (3, False), (5, True)])
def test_cpu_v9_has_the_models_bits(seed, cpu_tiles, dtype, acc, threads, plain):
    cpu_tiles(threads, plain)
    for n in LENGTHS:
        x = random_array(seed + n, np.dtype(dtype), n)
        want = cured._cured.model_sum(x, 9, acc)
        got = cured.sum(x, dtype=acc, device="cpu")
        assert got.dtype == want.dtype and same_bits(got, want), (n, got, want)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_specials_and_misaligned_views(seed, dtype):
    """Subnormals, signed zeros, infinities and NaN in every position of a vector; views that start
    off a 16-byte boundary (unaligned loads)."""
    rng = np.random.default_rng(seed)
    info = np.finfo(dtype)
    x = rng.standard_normal(50001).astype(dtype)
    x[rng.choice(x.size, 500, replace=False)] = info.smallest_subnormal * rng.integers(1, 9, 500)
    x[rng.choice(x.size, 500, replace=False)] = -0.0
    for specials in ([], [np.inf], [np.inf, -np.inf], [np.nan]):
        y = x.copy()
        y[rng.choice(y.size, len(specials), replace=False)] = specials
        for start in range(4):
            view = y[start:]
            assert same_bits(cured.sum(view, device="cpu"), cured._cured.model_sum(view, 9)), (specials, start)
            assert same_bits(cured.sum(view, dtype="float64", device="cpu"), cured._cured.model_sum(view, 9, "float64"))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "uint16"])
def test_narrow_integers_at_their_extremes(cpu_tiles, dtype):
    """1- and 2-byte inputs add blocks of 2^16 elements in 32 bits (cpu_tiles.c): every element at
    the dtype's least or greatest value, the block sums at their limits (int16: -2^31 exactly), in
    arrays of one block, one block and one element, and several blocks and a part; a bool array
    whose bytes are not 0 and 1 counts each nonzero byte once, as NumPy does."""
    info = np.iinfo(dtype) if dtype != "bool" else None
    for threads in (1, 3):
        cpu_tiles(threads, False)
        for n in (1 << 16, (1 << 16) + 1, 3 * (1 << 16) + 5):
            for value in ((True,) if info is None else (info.min, info.max)):
                x = np.full(n, value, dtype)
                assert cured.sum(x, device="cpu") == np.sum(x) == n * int(value), (threads, n, value)
                rows = x[: n >> 8 << 8].reshape(-1, 1 << 8)[:, 1:]  # along axes: rows of 255, a view
                assert cured.sum(rows, axis=1, device="cpu").tolist() == np.sum(rows, axis=1).tolist()
    if dtype == "bool":
        x = np.arange(1 << 17, dtype=np.uint8).view(np.bool_)  # bytes 0 to 255
        assert cured.sum(x, device="cpu") == np.sum(x) == (1 << 17) - (1 << 17) // 256


INTEGERS = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


@pytest.mark.parametrize("dtype", INTEGERS)
def test_integer_sums_wrap_into_every_integer_dtype(seed, cpu_tiles, dtype):
    """dtype= an integer of 1 to 8 bytes: NumPy sums in it, wrapping; cured sums in lanes of its width
    where the input is no wider (cpu_tiles.c's wrapped_sum, 128 bytes of lanes a step), else modulo
    2^64, and keeps the low bits. Whole-range data, lengths around the lanes' step and the threads'
    shares, the result's dtype and value as numpy.sum's (a lane cast that zero-extends a signed
    input, or a tail left out, fails it)."""
    x = random_array(seed, np.dtype(dtype), (1 << 20) + 131)
    for threads in (1, 3):
        cpu_tiles(threads, False)
        for n in (0, 1, 127, 128, 129, 1000, (1 << 16) + 3, x.size):
            for into in INTEGERS[1:]:
                want = np.sum(x[:n], dtype=into)
                got = cured.sum(x[:n], dtype=into, device="cpu")
                assert type(got) is type(want) and got == want, (threads, n, into, got, want)
                assert cured._cured.model_sum(x[:n], 9, into) == want


def test_timing_says_where_the_sum_ran():
    x = np.arange(1000, dtype=np.float32)
    value, timing = cured.sum(x, device="cpu", timing=True)
    assert value == 499500 and timing.device == "cpu"
    assert timing.h2d_s == timing.d2h_s == 0 and 0 < timing.reduce_s <= timing.total_s
    for version in (3, cured.EXACT_VERSION):  # the scalar model and the exact CPU code time alike
        assert cured.sum(x, version=version, device="cpu", timing=True).timing.device == "cpu"


def test_threads_share_the_pool(seed):
    """Sums from many Python threads at once (the GIL is released): a caller that finds the pool
    busy sums on its own thread, so every call finishes, with the same bits."""
    inputs = [random_array(seed + k, np.dtype(dtype), n) for k, (dtype, n) in
              enumerate([("float32", 3 << 20), ("float64", 1 << 20), ("float16", 777777), ("int32", 1 << 21)])]
    expected = [cured._cured.model_sum(x, 9) for x in inputs]
    failures = []

    def work(k):
        for _ in range(5):
            got = cured.sum(inputs[k % 4], device="cpu")
            if not same_bits(got, expected[k % 4]):
                failures.append((k, got))

    workers = [threading.Thread(target=work, args=(k,)) for k in range(12)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not failures


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_forked_child_sums_on_threads_of_its_own(seed, cpu_tiles):
    """The pool's threads are not in a forked child: it starts its own, and sums the same bits."""
    cpu_tiles(4, False)
    x = random_array(seed, np.dtype("float32"), 1 << 21)
    expected = cured.sum(x, device="cpu")  # the parent's pool threads exist now
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        ok = False
        try:
            ok = all(same_bits(cured.sum(x, device="cpu"), expected) for _ in range(3))
        finally:
            os.write(write, b"1" if ok else b"0")
            os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    assert os.read(read, 1) == b"1" and status == 0
    os.close(read)
