"""Device arrays of CuPy, PyTorch, Numba and JAX, read in place: the same bits as the same data from the
host, through both protocols (CUDA Array Interface 2 and 3, DLPack versioned and unversioned), for
contiguous, strided and misaligned arrays, after work pending on the producer's stream, and on a
second GPU. Each library's tests are skipped, with the reason, where it is not installed."""
import importlib
import itertools
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

import numpy as np
import pytest

import cured
from cured.benchmark import random_input
from reference import DTYPES, random_array, same_bits

pytestmark = pytest.mark.gpu


def need(module):
    """The module, or the test is skipped with the reason."""
    try:
        return importlib.import_module(module)
    except ImportError as error:  # numba-cuda also raises ImportError subclasses
        pytest.skip(f"{module} is not installed ({error}): its device arrays cannot be tested here")


VERSIONS = [v.id for v in cured.versions()] + ["cub"]
LENGTHS = [0, 1, 33, 4099, 2**20 + 3, 2**24 + 5]


@lru_cache(maxsize=4)
def host_case(seed, dtype, n):
    """A host array and cured's sums of it from the host, by version."""
    x = random_array(seed, np.dtype(dtype), n)
    return x, {v: cured.sum(x, version=v) for v in VERSIONS}


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_cupy_arrays_give_the_host_bits(seed, dtype, n):
    cupy = need("cupy")
    x, expected = host_case(seed, dtype, n)
    d = cupy.asarray(x)
    for v in VERSIONS:
        got = cured.sum(d, version=v)
        assert type(got) is type(expected[v]) and same_bits(got, expected[v]), (v, got, expected[v])


TORCH_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64"]


@pytest.fixture(params=["exchange", "attributes"])
def torch_reader(request):
    """PyTorch's CUDA tensors read through PyTorch's DLPack exchange API (2.10 and later) or from
    their attributes (earlier PyTorch), each in turn; the test must have read through the one asked
    for."""
    torch = need("torch")
    exchange = request.param == "exchange"
    if exchange and not hasattr(torch.Tensor, "__dlpack_c_exchange_api__"):
        pytest.skip(f"PyTorch {torch.__version__} has no DLPack exchange API (2.10 and later have)")
    before = cured._cured._torch_exchange_reads()
    cured._cured._set_test_torch_exchange(exchange)
    try:
        yield request.param
    finally:
        cured._cured._set_test_torch_exchange(True)
    assert (cured._cured._torch_exchange_reads() > before) == exchange


@pytest.mark.parametrize("n", [1, 4099, 2**20 + 3])
@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_torch_tensors_give_the_host_bits(seed, dtype, n, torch_reader):
    torch = need("torch")
    x, expected = host_case(seed, dtype, n)
    t = torch.from_numpy(x).cuda()
    for v in VERSIONS:
        assert same_bits(cured.sum(t, version=v), expected[v]), v


@pytest.mark.parametrize("n", [1, 4099, 2**20 + 3])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8"])
def test_numba_arrays_give_the_host_bits(seed, dtype, n):
    numba_cuda = need("numba.cuda")
    x, expected = host_case(seed, dtype, n)
    d = numba_cuda.to_device(x)
    for v in VERSIONS:
        assert same_bits(cured.sum(d, version=v), expected[v]), v


def test_numba_arrays_strided_and_on_their_stream(seed):
    """Numba arrays are read from their attributes (interop.c): views of every kind of stride (not
    a transpose: Numba makes one with a kernel it compiles, which failed in the lent GPUs' image), and
    an array bound to a stream of its own, whose copy to the device is still queued there when the
    sum, on that stream, starts."""
    numba_cuda = need("numba.cuda")
    x = random_array(seed, np.dtype("float32"), 1000 * 1001)
    stream = numba_cuda.stream()
    d = numba_cuda.to_device(x, stream=stream)
    m, dm = x.reshape(1000, 1001), d.reshape(1000, 1001)
    for got, host in [(d, x), (d[::7], x[::7]), (d[::-1], x[::-1]), (dm[:, 3:900:2], m[:, 3:900:2]),
                      (dm[::-1, ::3], m[::-1, ::3]), (d[5:6], x[5:6]), (d[:0], x[:0])]:
        for v in (3, 9, "cub"):
            assert same_bits(cured.sum(got, version=v), cured.sum(host, version=v)), (got.shape, got.strides, v)


@pytest.fixture
def jax_x64():
    """JAX, with 64-bit types on (it makes float64 data float32 otherwise), as it was afterwards."""
    jax = need("jax")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip(f"JAX has no GPU here ({jax.devices()}): its device arrays cannot be tested")
    x64 = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", x64)


def refuse_dlpack(monkeypatch, array):
    """Makes DLPack's export of `array`'s type fail, so that a call that still asks for it shows."""
    def refused(*args, **kwargs):
        raise AssertionError("a computed JAX array was asked for DLPack")
    monkeypatch.setattr(type(array), "__dlpack__", refused)


@pytest.mark.parametrize("n", [1, 4099, 2**20 + 3])
@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "int64", "uint8", "float16", "float32", "float64"])
def test_jax_arrays_give_the_host_bits(seed, dtype, n, jax_x64, monkeypatch):
    """A computed JAX array is read through its CUDA Array Interface (interop.c), not DLPack."""
    x, expected = host_case(seed, dtype, n)
    j = jax_x64.device_put(x).block_until_ready()
    assert j.dtype == x.dtype
    refuse_dlpack(monkeypatch, j)
    for v in VERSIONS:
        assert same_bits(cured.sum(j, version=v), expected[v]), v


def test_jax_array_still_being_computed_is_ordered(seed, jax_x64):
    """A JAX array whose computation is still running goes through DLPack, which orders JAX's work
    before the sum: cured sums the finished values, not the new buffer's old contents."""
    n = 8192
    a = jax_x64.device_put(random_array(seed, np.dtype("float32"), n * n).reshape(n, n))
    b = jax_x64.device_put(random_array(seed + 1, np.dtype("float32"), n * n).reshape(n, n) / np.float32(n**0.5))
    products = jax_x64.jit(lambda a, b: a @ b @ b @ b @ b)  # 4.4 TFLOP: milliseconds on any GPU
    products(a, b).block_until_ready()  # compiled once, before the call that matters
    y = products(a, b)
    ready = y.is_ready()
    got = cured.sum(y)
    assert not ready, "the computation finished before the call: give it more work"
    assert same_bits(got, cured.sum(np.asarray(y)))


def test_deleted_jax_array_is_refused(seed, jax_x64):
    """A deleted (or donated) JAX array has no memory to read, and neither of JAX's exports says so
    (its interface refuses it as a sharded array; its DLPack export raised TypeError about None in
    jax 0.11): cured asks it and says why."""
    j = jax_x64.device_put(random_array(seed, np.dtype("float32"), 4099)).block_until_ready()
    j.delete()
    for kwargs in ({}, {"out": np.empty((), np.float32)}, {"axis": 0}):
        with pytest.raises(ValueError, match="JAX array has been deleted"):
            cured.sum(j, **kwargs)


def test_jax_arrays_along_axes_and_transposed(seed, jax_x64, monkeypatch):
    x = random_array(seed, np.dtype("float32"), 600 * 70).reshape(600, 70)
    j = jax_x64.device_put(x).block_until_ready()
    refuse_dlpack(monkeypatch, j)
    for axis in (0, 1, (0, 1), -1):
        assert np.array_equal(cured.sum(j, axis=axis), cured.sum(x, axis=axis, device="cpu")), axis
    t = j.T.block_until_ready()  # a new array in C order: JAX has no transposed views
    assert np.array_equal(cured.sum(t, axis=0), cured.sum(x.T, axis=0, device="cpu"))


class CAI:
    """Only a __cuda_array_interface__, possibly edited."""

    def __init__(self, array, **changes):
        fields = dict(array.__cuda_array_interface__)
        fields.update(changes)
        self.__cuda_array_interface__ = {k: v for k, v in fields.items() if v is not ...}


class DLPack:
    """Only DLPack. versioned=False drops max_version, as producers from before DLPack 1.0 never
    saw it, and such producers return an unversioned "dltensor" capsule. Keeps the capsules it gave."""

    def __init__(self, array, versioned=True):
        self.array, self.versioned, self.capsules = array, versioned, []

    def __dlpack__(self, stream=None, max_version=None):
        if self.versioned:
            capsule = self.array.__dlpack__(stream=stream, max_version=max_version)
        else:
            capsule = self.array.__dlpack__(stream=stream)
        self.capsules.append(capsule)
        return capsule

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


@pytest.mark.parametrize("library", ["cupy", "torch"])
def test_each_protocol_and_capsule_kind(seed, library):
    x, expected = host_case(seed, "float32", 2**20 + 3)
    d = need("cupy").asarray(x) if library == "cupy" else need("torch").from_numpy(x).cuda()
    wrappers = {"dlpack 1.x": DLPack(d), "dlpack 0.x": DLPack(d, versioned=False)}
    if library == "cupy":  # PyTorch's interface is version 2 already
        wrappers["cai 3, read-only"] = CAI(d, data=(d.data.ptr, True))
        wrappers["cai 2"] = CAI(d, version=2, stream=...)
    else:
        wrappers["cai 2"] = CAI(d)
    for name, wrapper in wrappers.items():
        for v in VERSIONS:
            assert same_bits(cured.sum(wrapper, version=v), expected[v]), (name, v)
        if isinstance(wrapper, DLPack):
            kind = "dltensor_versioned" if wrapper.versioned else "dltensor"
            # Each capsule was consumed: renamed used_..., its tensor deleted by cured.
            assert all(f'"used_{kind}"' in repr(c) for c in wrapper.capsules), wrapper.capsules


def test_dlpack_tensors_are_deleted_after_the_sum(seed):
    """cured calls the DLPack deleter: the producer's memory goes back once the caller drops it."""
    torch = need("torch")
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    for k in range(200):
        t = torch.full((1 << 18,), float(k), device="cuda")
        assert cured.sum(DLPack(t)) == np.float32(k * (1 << 18))
        del t
    assert torch.cuda.memory_allocated() == before


def test_device_arrays_leak_no_memory(seed):
    cupy = need("cupy")
    x, expected = host_case(seed, "float32", 100003)
    d = cupy.asarray(x)
    for _ in range(50):
        cured.sum(d)
    before = cured._cured.memory_in_use()
    for _ in range(2000):
        assert same_bits(cured.sum(d), expected[9])
        assert same_bits(cured.sum(d[::3]), cured.sum(x[::3]))
    after = cured._cured.memory_in_use()
    assert after["used"] == before["used"] == 0 and after["reserved"] == before["reserved"]


def strided_views(xp, x):
    """Non-contiguous views of one array in library xp (cupy or numpy): every way strides go."""
    m = x[: 1000 * 1001].reshape(1000, 1001)
    cube = x[: 60 * 70 * 80].reshape(60, 70, 80)
    return {
        "every 7th": x[::7],
        "reversed": x[::-1],
        "columns": m[:, 3:900:2],
        "transposed": m.T,
        "rows and columns": m[::3, 1::2],
        "3-d transposed and sliced": cube.transpose(2, 0, 1)[:, ::2, 5:],
        "broadcast": xp.broadcast_to(x[:513], (700, 513)),
        "one element": x[5:6],
        "empty": m[:0, ::2],
    }


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int64", "bool"])
def test_non_contiguous_cupy_arrays_are_summed_in_c_order(seed, dtype):
    cupy = need("cupy")
    x = random_array(seed, np.dtype(dtype), 2**20 + 3)
    d = cupy.asarray(x)
    host, device = strided_views(np, x), strided_views(cupy, d)
    for name in host:
        for v in (0, 3, 8, 9, "cub"):
            assert same_bits(cured.sum(device[name], version=v), cured.sum(host[name], version=v)), (name, v)


def test_non_contiguous_torch_tensors(seed, torch_reader):
    torch = need("torch")
    x = random_array(seed, np.dtype("float32"), 1200 * 1001)
    t = torch.from_numpy(x).cuda().reshape(1200, 1001)
    m = x.reshape(1200, 1001)
    for got, host in [(t.T, m.T), (t[::3, 1::2], m[::3, 1::2]), (t[:, 7], m[:, 7])]:
        for v in (3, 9):
            assert same_bits(cured.sum(got, version=v), cured.sum(host, version=v))


@pytest.mark.parametrize("offset", [1, 2, 3, 4, 8, 12])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int16"])
def test_misaligned_device_arrays(seed, dtype, offset):
    """Elements off their natural alignment (copied on the device), and element-aligned arrays off
    16 bytes (read in place, V9 with scalar loads): the bits of the same data from the host."""
    cupy = need("cupy")
    item = np.dtype(dtype).itemsize
    n = 300007
    raw = np.random.default_rng([seed, offset]).integers(0, 256, size=n * item + 16, dtype=np.uint8)
    host = raw[offset: offset + n * item].view(dtype)
    if host.dtype.kind == "f":
        host = np.nan_to_num(host, nan=1.0, posinf=2.0, neginf=-2.0)  # random bytes make NaNs
        raw[offset: offset + n * item] = host.view(np.uint8)
    device = cupy.asarray(raw)[offset: offset + n * item].view(dtype)
    for v in VERSIONS:
        assert same_bits(cured.sum(device, version=v), cured.sum(host, version=v)), v


SPIN = r'''
extern "C" __global__ void spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {}
}'''


@pytest.mark.parametrize("protocol", ["cupy", "cupy exporting interface 2", "cai 3", "dlpack"])
def test_cupy_producer_on_another_stream(seed, protocol, monkeypatch):
    """The producer writes the array on a non-default stream, behind a long kernel, just before the
    call: cured must wait for that work, so it sums the new values, not the old ones. A CuPy array
    is read from its attributes (its stream is CuPy's current one), or through DLPack where CuPy
    exports interface version 2, which names no stream."""
    cupy = need("cupy")
    if protocol == "cupy exporting interface 2":
        monkeypatch.setattr(cupy._util, "CUDA_ARRAY_INTERFACE_EXPORT_VERSION", 2)
    spin = cupy.RawKernel(SPIN, "spin")
    old, new = random_array(seed, np.dtype("float32"), 2**22), random_array(seed + 1, np.dtype("float32"), 2**22)
    d, d_new = cupy.asarray(old), cupy.asarray(new)
    cupy.cuda.Device().synchronize()
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        spin((1,), (1,), (np.int64(100_000_000),))  # about 50 ms
        d[...] = d_new
        got = cured.sum(CAI(d) if protocol == "cai 3" else DLPack(d) if protocol == "dlpack" else d)
    assert same_bits(got, cured.sum(new)) and not same_bits(got, cured.sum(old))


def test_torch_tensors_along_axes_into_out_and_on_the_host(seed, torch_reader):
    """PyTorch tensors are read by cured's own reader (the exchange API or the attributes) on every
    path: along axes, transposed, into a tensor out=, and a CPU tensor through the host path."""
    torch = need("torch")
    x = random_array(seed, np.dtype("float32"), 600 * 70).reshape(600, 70)
    t = torch.from_numpy(x).cuda()
    for axis in (0, 1, (0, 1), -1):
        assert np.array_equal(cured.sum(t, axis=axis), cured.sum(x, axis=axis, device="cpu")), axis
    assert np.array_equal(cured.sum(t.T, axis=0, keepdims=True), cured.sum(x.T, axis=0, keepdims=True, device="cpu"))
    out = torch.empty(70, device="cuda")
    assert cured.sum(t, axis=0, out=out) is out
    assert np.array_equal(out.cpu().numpy(), cured.sum(x, axis=0, device="cpu"))
    assert same_bits(cured.sum(torch.from_numpy(x)), cured.sum(x, device="cpu"))


@pytest.mark.parametrize("library", ["cupy", "torch"])
def test_calls_along_axes_are_made_in_c_with_the_python_paths_bits(seed, library, monkeypatch):
    """A CuPy array, a PyTorch tensor or an object with only a CUDA Array Interface along axes, with
    keepdims= a bool, a dtype= that casts no element, initial= or a NumPy out=, is summed without
    cured/numpy_sum.py's Python path (module_numpy_sum.c's device_axes_route; the path is watched here): the
    bits, type, shape and dtype the Python path gives (taken with keepdims= a NumPy bool), NumPy's
    values for integers; device="cpu" and version="cub" still go to Python, which raises or runs
    them."""
    xp = need(library)
    taken = []
    python_sum = cured.numpy_sum._python_sum

    def watched(*args):
        taken.append(args[1:6])
        return python_sum(*args)

    cured._cured._set_python_sum(watched, cured.numpy_sum._NO_VALUE, cured.DEFAULT_VERSION)
    try:
        for dtype, into in [("float32", None), ("float32", "float64"), ("int32", None), ("int32", "int16")]:
            x = random_array(seed, np.dtype(dtype), 6 * 5 * 4).reshape(6, 5, 4)
            d = xp.asarray(x) if library == "cupy" else xp.from_numpy(x).cuda()
            if library == "cupy" and dtype == "int32":
                d = CAI(d)  # a bare interface: its extents from the interface's shape
            for axis, keepdims, initial in itertools.product([None, 0, -1, (0, 2), (0, 1, 2)], (False, True),
                                                             ({}, {"initial": 3})):
                if axis is None and not keepdims and not initial:
                    continue  # a sum of every element: sum_call, as ever
                kwargs = {"axis": axis, "dtype": into, "keepdims": keepdims, **initial}
                before = len(taken)
                got = cured.sum(d, **kwargs)
                assert len(taken) == before, kwargs  # not through Python
                general = cured.sum(d, **{**kwargs, "keepdims": np.bool_(keepdims)})
                assert len(taken) == before + 1
                want = np.sum(x, **kwargs)
                assert type(got) is type(general) is type(want), kwargs
                assert np.shape(got) == np.shape(want) and got.dtype == want.dtype, kwargs
                assert np.asarray(got).tobytes() == np.asarray(general).tobytes(), kwargs
                if want.dtype.kind != "f":
                    assert np.array_equal(got, want), kwargs
                if np.ndim(want):
                    out = np.full_like(want, 3)
                    assert cured.sum(d, out=out, **kwargs) is out and out.tobytes() == np.asarray(general).tobytes()
                    assert len(taken) == before + 1, kwargs
        before = len(taken)
        with pytest.raises(ValueError, match="device='cpu'"):
            cured.sum(d, axis=0, device="cpu")
        assert np.array_equal(cured.sum(d, axis=-1, version="cub"), np.sum(x, axis=-1))
        assert len(taken) == before + 2
    finally:
        cured._cured._set_python_sum(python_sum, cured.numpy_sum._NO_VALUE, cured.DEFAULT_VERSION)


def test_torch_producer_on_another_stream(seed, torch_reader):
    torch = need("torch")
    old, new = random_array(seed, np.dtype("float32"), 2**22), random_array(seed + 1, np.dtype("float32"), 2**22)
    t, t_new = torch.from_numpy(old).cuda(), torch.from_numpy(new).cuda()
    torch.cuda.synchronize()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        torch.cuda._sleep(100_000_000)
        t.copy_(t_new)
        got = cured.sum(t)
    assert same_bits(got, cured.sum(new)) and not same_bits(got, cured.sum(old))


def test_array_on_a_second_gpu(seed):
    """The sum runs on the array's own device, and the caller's current device is left as it was."""
    cupy = need("cupy")
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("only one GPU: a device array on a second GPU cannot be made here")
    x, expected = host_case(seed, "float32", 2**20 + 3)
    with cupy.cuda.Device(1):
        d = cupy.asarray(x)
    torch = need("torch")
    t = torch.from_numpy(x).to("cuda:1")
    assert cupy.cuda.runtime.getDevice() == 0
    for v in VERSIONS:
        assert same_bits(cured.sum(d, version=v), expected[v]), v
        assert same_bits(cured.sum(t, version=v), expected[v]), v
        assert cupy.cuda.runtime.getDevice() == 0
    # V10's float64 kernel raises its shared-memory limit once a device: on each GPU, the one answer,
    # launched through the driver (csrc/kernels/launch.cuh) on each, with that limit.
    y = random_input(2**20 + 3, "float64", data="full_range", seed=seed)
    exact = cured.fsum(y, device="cpu")
    with cupy.cuda.Device(1):
        d1 = cupy.asarray(y)
    for array in (cupy.asarray(y), d1):
        before = cured._cured._driver_launches()
        assert same_bits(cured.fsum(array), exact)
        assert cured._cured._driver_launches() > before
        assert cupy.cuda.runtime.getDevice() == 0
    # A sum whose dtype= casts each element, made on the host and copied into a device out= on the
    # second GPU (the copy on that device, the caller's device left as it was).
    with cupy.cuda.Device(1):
        half = cupy.full((), 7, cupy.float16)
    assert cured.sum(d, dtype=np.float16, out=half) is half
    assert cupy.cuda.runtime.getDevice() == 0
    with cupy.cuda.Device(1):
        assert same_bits(half.get()[()], cured.sum(x, dtype=np.float16, device="cpu"))
    # Sums along axes on each GPU, their 1 MiB of results back through the host path's lanes
    # (fetch.c), whose events the first GPU's call made: the second's remakes them on its device.
    rows = x[:2**20].reshape(2**18, 4)
    want = cured.sum(rows, axis=1, device="cpu")
    with cupy.cuda.Device(1):
        rows1 = cupy.asarray(rows)
    for array in (cupy.asarray(rows), rows1):
        got = cured.sum(array, axis=1)
        assert got.dtype == want.dtype and np.array_equal(got.view(np.uint32), want.view(np.uint32))
        out = np.empty_like(want)  # a NumPy out= that the lanes fill directly
        assert cured.sum(array, axis=1, out=out) is out and np.array_equal(out.view(np.uint32), want.view(np.uint32))
        assert cupy.cuda.runtime.getDevice() == 0
    # V10 along axes on each GPU: 2^20 full-range float64 rows, which their lanes round themselves
    # (kernels/v10_axis.cu, lane_row_sum and round_to_float64) or leave to the warps.
    wide = random_input(2**22, "float64", data="full_range", seed=seed).reshape(2**20, 4)
    exact_rows = cured.fsum(wide, axis=1, device="cpu")
    with cupy.cuda.Device(1):
        wide1 = cupy.asarray(wide)
    for array in (cupy.asarray(wide), wide1):
        assert cured.fsum(array, axis=1).tobytes() == exact_rows.tobytes()
        assert cupy.cuda.runtime.getDevice() == 0


def test_tensors_whose_memory_is_not_their_values_are_refused(seed):
    """A tensor whose negative bit is set holds the negatives of its values (CuPy summed one to the
    wrong sign through the protocols), a nested tensor has no one shape, a ZeroTensor and a functional
    tensor's wrapper have no memory (data_ptr() 0), and one inside torch.func.vmap no storage:
    each is refused on every path, and the GPU is still usable after (a read at address 0 would have
    left the context broken); PyTorch's DLPack exchange API, which crashed on nested and vmap
    tensors, is never asked about them."""
    torch = need("torch")
    imaginary = random_array(seed, np.dtype("float32"), 4099)
    x = (random_array(seed + 1, np.dtype("float32"), 4099) + 1j * imaginary).astype(np.complex64)
    negated, negated_on_host = torch.from_numpy(x).cuda().conj().imag, torch.from_numpy(x).conj().imag
    assert negated.is_neg() and negated_on_host.is_neg()
    expected = cured.sum(-imaginary, device="cpu")
    assert same_bits(cured.sum(negated.resolve_neg()), expected)
    cases = [(negated, ValueError, "negative bit"), (negated_on_host, ValueError, "negative bit"),
             (torch.nested.nested_tensor([negated.resolve_neg()[:3], negated.resolve_neg()[:5]]), TypeError, "nested"),
             (torch._efficientzerotensor(4099, device="cuda"), ValueError, "null pointer for 4099 elements"),
             (torch._to_functional_tensor(negated.resolve_neg()), ValueError, "null pointer for 4099 elements")]
    for tensor, error_type, words in cases:
        for kwargs in ({}, {"axis": 0}, {"dtype": np.float64}, {"out": torch.empty((), device="cuda")}):
            with pytest.raises(error_type, match=words):
                cured.sum(tensor, **kwargs)
    with pytest.raises(RuntimeError, match="storage"):
        torch.func.vmap(cured.sum)(negated.resolve_neg().reshape(4099, 1))
    assert same_bits(cured.sum(negated.resolve_neg()), expected)


def test_unsupported_device_arrays_are_refused():
    cupy, torch = need("cupy"), need("torch")
    with pytest.raises(TypeError, match="complex"):
        cured.sum(cupy.ones(4, dtype=cupy.complex64))
    with pytest.raises(TypeError, match="bfloat16"):
        cured.sum(torch.ones(4, dtype=torch.bfloat16, device="cuda"))
    with pytest.raises(BufferError, match="require gradient"):
        cured.sum(torch.ones(4, device="cuda", requires_grad=True))
    with pytest.raises(ValueError, match="device='cpu'"):
        cured.sum(cupy.ones(4), version=3, device="cpu")


def test_timing_of_device_input(seed):
    cupy = need("cupy")
    x, expected = host_case(seed, "float32", 2**20 + 3)
    value, timing = cured.sum(cupy.asarray(x), timing=True)
    assert same_bits(value, expected[9])
    # The last kernel writes the result into host memory itself: no copy to time.
    assert timing.h2d_s == 0.0 and timing.reduce_s > 0 and timing.d2h_s == 0.0 and timing.total_s > timing.reduce_s


def test_out_of_device_memory_is_memory_error_and_leaks_nothing(seed):
    """V0's scratch array holds 8 bytes for every input byte of int8: more than the whole GPU."""
    cupy = need("cupy")
    total = cured.device_info()["memory_bytes"]
    d = cupy.full(total // 8 + 4096, 3, dtype=cupy.int8)
    before = cured._cured.memory_in_use()["used"]
    with pytest.raises(MemoryError, match="out of GPU memory"):
        cured.sum(d, version=0)
    assert cured._cured.memory_in_use()["used"] == before
    del d
    y = random_array(seed, np.dtype("int32"), 4099)
    assert cured.sum(cupy.asarray(y), version=0) == np.sum(y)  # and the device still works


#: csrc/device_sum.c's RESULT_SENTINEL: the bits a waited call writes into its result before the launch
WAIT_SENTINEL = 0x7FF0DEAD7FA0DEAD


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
@pytest.mark.parametrize("version", VERSIONS)
def test_a_sum_equal_to_the_wait_sentinel_comes_back(version, dtype):
    """A waited call polls its result until the bits are no longer the sentinel; a sum whose bits are
    the sentinel is waited for by synchronizing instead, and returned."""
    cupy = need("cupy")
    parts = np.array([WAIT_SENTINEL - 12345, 12345], dtype=dtype)
    got = cured.sum(cupy.asarray(parts), version=version)
    assert got.dtype == np.dtype(dtype) and int(got) == WAIT_SENTINEL


def test_waited_sums_on_alternating_streams(seed):
    """A waited call returns once its result is in host memory, where its kernel may still be
    finishing; a call on another stream that takes the same memory (V9's ticket, V10's state) is
    ordered after it. Also from threads on their per-thread default streams, which share one handle."""
    cupy = need("cupy")
    cases = [(random_array(seed + k, np.dtype(dtype), n), version)
             for k, (dtype, n, version) in enumerate([("float32", 1 << 16, 9), ("float64", 5 << 14, 9),
                                                      ("float32", 1 << 20, 10), ("int32", 3, 9),
                                                      ("float64", 1 << 18, 10), ("int64", 99999, "cub")])]
    expected = [cured.sum(x, version=9 if v == "cub" else v, device="cpu") for x, v in cases]  # integers: exact
    arrays = [cupy.asarray(x) for x, _ in cases]
    cupy.cuda.Device().synchronize()
    streams = [cupy.cuda.Stream(non_blocking=True), cupy.cuda.Stream(non_blocking=True), cupy.cuda.Stream.ptds]
    for k in range(600):
        i = k % len(cases)
        with streams[k % len(streams)]:
            assert same_bits(cured.sum(arrays[i], version=cases[i][1]), expected[i]), (k, i)

    def work(t):
        with cupy.cuda.Stream.ptds:
            return [same_bits(cured.sum(arrays[(t + k) % len(cases)], version=cases[(t + k) % len(cases)][1]),
                              expected[(t + k) % len(cases)]) for k in range(200)]

    with ThreadPoolExecutor(4) as pool:
        assert all(all(ok) for ok in pool.map(work, range(8)))
