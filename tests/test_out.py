"""out=: a NumPy out works as numpy.sum's; a device out receives the sum on the device in stream
order, without a host wait, and is returned. Bad outs are refused before anything runs."""
import numpy as np
import pytest

import cured
from reference import DTYPES, random_array, same_bits


class CAI:
    """Only a __cuda_array_interface__ (no device needed to read it)."""

    def __init__(self, **fields):
        self.__cuda_array_interface__ = dict(dict(version=3, typestr="<f4", shape=(), data=(1 << 40, False),
                                                  strides=None, stream=None), **fields)


def test_numpy_out_is_filled_and_returned(seed):
    x = random_array(seed, np.dtype("float32"), 10007)
    out = np.zeros((), np.float32)
    assert cured.sum(x, device="cpu", out=out) is out and same_bits(out[()], cured.sum(x, device="cpu"))


@pytest.mark.parametrize("in_dtype, out_dtype", [
    ("float32", "float64"), ("float32", "int64"), ("float64", "float32"), ("int16", "int32"), ("int8", "int8"),
    ("uint8", "int16"), ("int64", "float64"), ("bool", "int64"), ("float16", "float16"), ("uint32", "uint64"),
])
def test_numpy_out_matches_numpy(seed, in_dtype, out_dtype):
    """An integer sum equals numpy.sum's exactly; a float one NumPy's within the rounding of order."""
    x = random_array(seed, np.dtype(in_dtype), 10007)
    # Small integer values: every order of addition gives the same float sum.
    x = (x * 8).round() if x.dtype.kind == "f" else (x % 100).astype(x.dtype) if x.dtype.kind in "iu" else x
    got, want = np.zeros((), out_dtype), np.zeros((), out_dtype)
    cured.sum(x, device="cpu", out=got)
    np.sum(x, out=want)
    assert got.dtype == want.dtype and got[()] == want[()], (got, want)


@pytest.mark.parametrize("in_dtype", DTYPES, ids=str)
def test_a_numpy_out_sums_in_numpys_dtype(seed, in_dtype):
    """Without dtype=, NumPy sums into a NumPy out= in the promotion of the input's dtype and out's
    (numpy.result_type), then casts; cured likewise, along axes and for every element."""
    x = random_array(seed, in_dtype, 120).reshape(3, 40)
    for out_dtype in DTYPES:
        loop = np.result_type(in_dtype, out_dtype)
        if loop == np.float16 and in_dtype != np.float16:
            continue  # NumPy casts each element into float16 first, then sums: covered by test_dtypes
        for axis, shape in ((1, (3,)), (None, ())):
            out = np.full(shape, 7, out_dtype)
            with np.errstate(all="ignore"):
                assert cured.sum(x, axis=axis, out=out, device="cpu") is out
                want = np.asarray(cured.sum(x, axis=axis, dtype=loop, device="cpu")).astype(out_dtype)
            assert np.array_equal(out, want, equal_nan=out_dtype.kind == "f"), (out_dtype, axis, out, want)


def test_a_numpy_out_gives_numpys_value():
    """Sums whose value depends on the accumulator: each equals numpy.sum's exactly."""
    cancelling = np.array([[1e8, 1, -1e8]] * 2, np.float32)  # 0 in float32, 1 in float64
    wide = np.array([2**63 + 5, 2**63 + 7], np.uint64)  # wraps to 12 in uint64; NumPy sums in float64
    for x, axis, out in ((cancelling, 1, np.zeros(2)), (cancelling, None, np.zeros(())),
                         (cancelling, None, np.zeros((), np.complex128)), (wide, None, np.zeros(())),
                         (np.array([100, 100, 56], np.int8), None, np.zeros((), bool))):
        want = np.sum(x, axis=axis, out=out.copy())
        got = cured.sum(x, axis=axis, out=out, device="cpu")
        assert got is out and np.array_equal(got, want), (x, out.dtype, got, want)


def test_numpy_out_with_dtype_casts_as_numpy(seed):
    x = random_array(seed, np.dtype("int16"), 999)
    wide = np.zeros((), np.float64)
    cured.sum(x, dtype=np.int64, device="cpu", out=wide)  # int64 into float64
    assert wide[()] == np.sum(x, dtype=np.int64)
    y = x.astype(np.float32) / 7
    narrow = np.zeros((), np.int64)  # NumPy 2 casts a reduction's result into out unsafely
    cured.sum(y, dtype=np.float64, device="cpu", out=narrow)
    assert narrow[()] == np.sum(y, dtype=np.float64, out=np.zeros((), np.int64))


def test_read_only_numpy_out():
    out = np.zeros((), np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        cured.sum(np.ones(3, np.float32), device="cpu", out=out)


@pytest.mark.parametrize("out, error, words", [
    ([0.0], TypeError, "out= must be a NumPy array or a device array"),
    (3.0, TypeError, "out= must be a NumPy array or a device array"),
    (CAI(), ValueError, "needs a device array to sum"),
])
def test_device_out_needs_device_input(out, error, words):
    with pytest.raises(error, match=words):
        cured.sum(np.ones(4, np.float32), out=out)


def test_device_out_refuses_cpu_and_timing():
    with pytest.raises(ValueError, match="device='gpu'"):
        cured.sum(np.ones(4, np.float32), device="cpu", out=CAI())
    with pytest.raises(ValueError, match="timing=True"):
        cured.sum(np.ones(4, np.float32), timing=True, out=CAI())


@pytest.mark.parametrize("fields, error, words", [
    (dict(shape=(2,)), ValueError, "exactly one element"),
    (dict(data=(1 << 40, True)), ValueError, "read-only"),
    (dict(typestr="<f8"), TypeError, "out= has dtype float64 but the sum's result is float32"),
    (dict(typestr="<c8"), TypeError, "complex"),
])
def test_bad_device_out_is_refused_before_any_cuda_call(fields, error, words):
    """A CUDA Array Interface input and out= give their dtypes and shapes without the GPU: these
    errors come before any CUDA call (so also here, without a GPU)."""
    with pytest.raises(error, match=words):
        cured.sum(CAI(shape=(100,)), dtype=np.float32, out=CAI(**fields))


def test_a_device_out_of_another_integer_or_bool_is_refused_before_any_cuda_call():
    """A device out= of a sum of every element takes any result dtype (int8 to uint32: the 64-bit
    sum wrapped there; bool of bool input: the count not zero), but must be that dtype, also where
    NumPy casts each element first (a bool result of other input: the sum is made on the host, then
    copied into out=): a wrong out= is refused before anything runs."""
    ints = CAI(shape=(100,), typestr="<i4")
    with pytest.raises(TypeError, match="out= has dtype int16 but the sum's result is int8"):
        cured.sum(ints, dtype=np.int8, out=CAI(typestr="<i2"))
    with pytest.raises(TypeError, match="out= has dtype uint8 but the sum's result is int64"):
        cured.sum(ints, dtype=np.int64, out=CAI(typestr="|u1"))
    with pytest.raises(TypeError, match="out= has dtype int32 but the sum's result is bool"):
        cured.sum(ints, dtype=np.bool_, out=CAI(typestr="<i4"))
    with pytest.raises(ValueError, match="out= is read-only"):
        cured.sum(ints, dtype=np.bool_, out=CAI(typestr="|b1", data=(0x2000, True)))
    with pytest.raises(ValueError, match="out= has 2 elements but the result has 1"):
        cured.sum(ints, dtype=np.float16, out=CAI(shape=(2,), typestr="<f2"))
    with pytest.raises(ValueError, match="needs a device array to sum"):  # a host array into a device out=
        cured.sum(np.ones(4, np.float32), dtype=np.int32, out=CAI(typestr="<i4"))
    with pytest.raises(TypeError, match="out= has dtype int64 but the sum's result is bool"):
        cured.sum(CAI(shape=(100,), typestr="|b1"), dtype=np.bool_, out=CAI(typestr="<i8"))


def bool_inputs(seed):
    """Bool arrays whose sum NumPy takes as "any": none true, 256 true (a count whose low byte is
    0: a wrap into 8 bits would say False), and random ones."""
    rng = np.random.default_rng(seed)
    n = 300_007
    count_256 = np.zeros(n, bool)
    count_256[rng.choice(n, 256, replace=False)] = True
    return {"none": np.zeros(n, bool), "256": count_256, "random": rng.random(n) < 0.5}


@pytest.mark.parametrize("version", [9, 3])
def test_the_c_extension_sums_bool_into_bool_as_any(seed, version):
    """_cured.sum with dtype=bool for bool input (the call cured.sum makes for a device out=): the
    count of true elements, not zero, as numpy.sum's "or", on the CPU (V9's sum and V3's model)."""
    for name, x in bool_inputs(seed).items():
        got = cured._cured.sum(x, version, np.bool_, "cpu")
        assert type(got) is np.bool_ and got == np.sum(x, dtype=bool), name


# ---- on the GPU -----------------------------------------------------------------------------------

def need(module):
    try:
        return __import__(module)
    except ImportError as error:
        pytest.skip(f"{module} is not installed ({error})")


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "uint8", "bool"])
@pytest.mark.parametrize("version", [0, 3, 8, 9, "cub"])
def test_device_out_gets_the_bits_of_the_scalar(seed, dtype, version):
    cupy = need("cupy")
    x = random_array(seed, np.dtype(dtype), 300007)
    expected = cured.sum(x, version=version)
    d = cupy.asarray(x)
    out = cupy.full((), 7, dtype=expected.dtype)
    assert cured.sum(d, version=version, out=out) is out
    assert same_bits(out.get()[()], expected)
    empty = cupy.full((1,), 7, dtype=expected.dtype)  # a one-element out of any shape
    cured.sum(d[:0], version=version, out=empty)
    assert empty.get()[0] == 0


@pytest.mark.gpu
@pytest.mark.parametrize("version", [9, 3, "cub"])
def test_device_out_of_bool_is_any_as_numpy(seed, version):
    """A bool array's sum into a bool device element (dtype=bool, or no dtype= and out's dtype,
    NumPy's rule): "any", written by the store kernel from the count; initial=True makes it true.
    The host path's GPU sum into bool too."""
    cupy = need("cupy")
    for name, x in bool_inputs(seed).items():
        d = cupy.asarray(x)
        want = np.sum(x, dtype=bool)
        for dtype in (np.bool_, None):
            out = cupy.full((), not want, dtype=bool)
            assert cured.sum(d, version=version, dtype=dtype, out=out) is out
            assert out.get()[()] == want, (name, dtype)
        cured.sum(d, version=version, dtype=bool, initial=True, out=out)
        assert out.get()[()]
        if version != "cub":
            assert cured._cured.sum(x, version, np.bool_, "gpu") == want, name


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32"])
@pytest.mark.parametrize("version", [9, 3, "cub"])
def test_device_out_of_a_narrower_integer_wraps_as_numpy(seed, dtype, version):
    """dtype= int8 to uint32 (or such an out= and no dtype=, NumPy's rule) into a device element:
    the 64-bit sum's low bits, NumPy's, written by the store kernel; initial= added before the wrap."""
    cupy = need("cupy")
    x = random_array(seed, np.dtype("int32"), 300007)
    d = cupy.asarray(x)
    expected = np.sum(x, dtype=dtype)
    out = cupy.full((1,), 7, dtype=dtype)
    if version == "cub" and dtype.startswith("u"):  # into uint64, not int32's int64
        with pytest.raises(TypeError, match="default accumulator only"):
            cured.sum(d, version=version, dtype=dtype, out=out)
        return
    assert cured.sum(d, version=version, dtype=dtype, out=out) is out
    assert same_bits(out.get()[0], expected)
    out[...] = 7
    cured.sum(d, version=version, out=out)  # out's dtype is the sum's
    assert same_bits(out.get()[0], expected)
    cured.sum(d, version=version, dtype=dtype, initial=5, out=out)
    assert same_bits(out.get()[0], np.sum(x, dtype=dtype, initial=5))


@pytest.mark.gpu
@pytest.mark.parametrize("offset", [1, 2, 4])
def test_misaligned_device_out(seed, offset):
    cupy = need("cupy")
    x = random_array(seed, np.dtype("float64"), 100003)
    raw = cupy.zeros(16, dtype=cupy.uint8)
    out = raw[offset:offset + 8].view(cupy.float64)
    cured.sum(cupy.asarray(x), out=out)
    assert same_bits(out.get()[0], cured.sum(x)) and int(raw[:offset].sum()) == 0


@pytest.mark.gpu
def test_torch_out_and_dtype_from_out(seed):
    torch = need("torch")
    x = random_array(seed, np.dtype("float32"), 2**20 + 3)
    t = torch.from_numpy(x).cuda()
    out = torch.zeros((), dtype=torch.float64, device="cuda")
    cured.sum(t, out=out)  # NumPy's rule: without dtype=, out's dtype is the accumulator
    assert same_bits(np.float64(out.item()), cured.sum(x, dtype=np.float64))
    with pytest.raises(TypeError, match="out= has dtype float64"):
        cured.sum(t, dtype=np.float32, out=out)
    with pytest.raises(ValueError, match="exactly one element"):
        cured.sum(t, out=torch.zeros(2, device="cuda"))


@pytest.mark.gpu
def test_device_out_is_ordered_between_producer_and_consumer(seed):
    """On a busy non-default stream: the sum waits for the producer's write before it, and the
    consumer's read after it sees the sum; the call itself does not wait."""
    cupy = need("cupy")
    spin = cupy.RawKernel(r'''extern "C" __global__ void spin(long long cycles) {
        long long start = clock64(); while (clock64() - start < cycles) {} }''', "spin")
    new = random_array(seed, np.dtype("float32"), 2**22)
    d, d_new = cupy.zeros(2**22, cupy.float32), cupy.asarray(new)
    out, copy = cupy.zeros((), cupy.float32), cupy.zeros((), cupy.float32)
    cupy.cuda.Device().synchronize()
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        spin((1,), (1,), (np.int64(200_000_000),))  # about 100 ms
        d[...] = d_new
        cured.sum(d, out=out)
        pending = not stream.done  # the call returned while the spin still ran
        copy[...] = out
    stream.synchronize()
    assert pending and same_bits(copy.get()[()], cured.sum(new))


@pytest.mark.gpu
@pytest.mark.parametrize("version", [9, 10, 3])
def test_queued_sums_on_several_streams_keep_apart(seed, version):
    """A queued call's device memory is reused by the next, not freed (device_sum.c): a sum queued
    on one stream behind ~100 ms of work must not share it with sums queued meanwhile on another
    stream, nor with a sum on a new stream that took the handle of a destroyed one."""
    cupy = need("cupy")
    spin = cupy.RawKernel(r'''extern "C" __global__ void spin(long long cycles) {
        long long start = clock64(); while (clock64() - start < cycles) {} }''', "spin")
    xs = [random_array(seed + k, np.dtype("float64"), 2**22 + 17 * k) for k in range(4)]
    expected = [cured.sum(x, version=version) for x in xs]
    ds = [cupy.asarray(x) for x in xs]
    outs = [cupy.zeros((), cupy.float64) for _ in xs]
    cupy.cuda.Device().synchronize()
    busy, other = cupy.cuda.Stream(non_blocking=True), cupy.cuda.Stream(non_blocking=True)
    with busy:
        spin((1,), (1,), (np.int64(200_000_000),))
        cured.sum(ds[0], version=version, out=outs[0])
        cured.sum(ds[1], version=version, out=outs[1])  # after the first, on its stream
    with other:
        cured.sum(ds[2], version=version, out=outs[2])  # while the busy stream's sums wait
    pending = not busy.done
    other.synchronize()
    replaced = cupy.cuda.Stream(non_blocking=True)
    with replaced:
        spin((1,), (1,), (np.int64(200_000_000),))
        cured.sum(ds[3], version=version, out=outs[3])
    del replaced  # destroyed with its sum still queued; a new stream may get its handle
    with cupy.cuda.Stream(non_blocking=True):
        again = cupy.zeros((), cupy.float64)
        cured.sum(ds[0], version=version, out=again)
    cupy.cuda.Device().synchronize()
    assert pending
    for k, (out, value) in enumerate(zip(outs + [again], expected + expected[:1])):
        assert same_bits(out.get()[()], value), (k, out.get()[()], value)


@pytest.mark.gpu
def test_queued_sums_on_many_busy_streams_share_their_memory(seed):
    """Past 16 streams with queued sums in flight at once (QUEUED_SLOTS_SHARED, csrc/device_sum.c),
    a call orders itself after another stream's last sum instead of keeping more device memory:
    every sum is still right, and at most 16 workspaces were made."""
    cupy = need("cupy")
    spin = cupy.RawKernel(r'''extern "C" __global__ void spin(long long cycles) {
        long long start = clock64(); while (clock64() - start < cycles) {} }''', "spin")
    x = random_array(seed, np.dtype("float32"), 2**20 + 5)
    expected, d = cured.sum(x), cupy.asarray(x)
    streams = [cupy.cuda.Stream(non_blocking=True) for _ in range(24)]
    outs = [cupy.zeros((), cupy.float32) for _ in streams]
    cupy.cuda.Device().synchronize()
    before = cured._cured._fault_state()["device"]
    for stream, out in zip(streams, outs):
        with stream:
            spin((1,), (1,), (np.int64(100_000_000),))
            cured.sum(d, out=out)
    made = cured._cured._fault_state()["device"] - before
    cupy.cuda.Device().synchronize()
    assert made <= 16, made
    for out in outs:
        assert same_bits(out.get()[()], expected)
