"""Device-array protocols, the parts that need no GPU: every malformed or unsupported
__cuda_array_interface__ and DLPack object is refused with a clear error before anything reaches the
device, and a DLPack array in host memory takes the host path. (tests/test_device_arrays.py sums
real CuPy, PyTorch and Numba arrays on the GPU.)"""
import subprocess
import sys

import numpy as np
import pytest

import cured
from conftest import NO_GPU_REASON
from reference import random_array, same_bits


class CAI:
    """An object with only a __cuda_array_interface__."""

    def __init__(self, **fields):
        self.__cuda_array_interface__ = fields


def interface(**changes):
    fields = {"shape": (10,), "typestr": "<f4", "data": (0x10000, False), "version": 3, "strides": None,
              "stream": None}
    fields.update(changes)
    return {k: v for k, v in fields.items() if v is not ...}


@pytest.mark.parametrize("fields, error, message", [
    (interface(mask=np.ones(10, bool)), TypeError, "masked"),
    (interface(version=4), ValueError, "version 4"),
    (interface(version="3"), TypeError, r"\['version'\] must be an int"),
    (interface(typestr=">f4"), TypeError, "native byte order"),
    (interface(typestr="<c8"), TypeError, "complex"),
    (interface(typestr="|O"), TypeError, "cannot sum"),
    (interface(typestr=4), TypeError, r"\['typestr'\] must be a str"),
    (interface(shape=[10]), TypeError, r"\['shape'\] must be a tuple"),
    (interface(shape=(10, -2)), ValueError, "negative extent"),
    (interface(shape=...), TypeError, "no 'shape'"),
    (interface(data=...), TypeError, r"\['data'\] must be \(pointer"),
    (interface(data=(0, False)), ValueError, "null pointer"),
    (interface(strides=(4, 4)), ValueError, "as many strides"),
    (interface(stream=0), ValueError, "disallows"),
    (interface(stream="1"), TypeError, r"\['stream'\] must be an int"),
], ids=lambda x: x if isinstance(x, str) else None)
def test_bad_cuda_array_interface_is_refused(fields, error, message):
    with pytest.raises(error, match=message):
        cured.sum(CAI(**fields))


def test_interface_must_be_a_dict():
    class NotADict:
        __cuda_array_interface__ = [("shape", (1,))]

    with pytest.raises(TypeError, match="must be a dict"):
        cured.sum(NotADict())


def test_device_array_with_device_cpu_is_refused():
    with pytest.raises(ValueError, match="device='cpu'.*host"):
        cured.sum(CAI(**interface()), version=3, device="cpu")


def test_pointer_no_device_can_read():
    """Without a GPU the pointer query fails as CudaError; with one, a host address that CUDA does
    not know is a ValueError. Never a crash."""
    host = np.arange(10, dtype=np.float32)
    fake = CAI(**interface(data=(host.ctypes.data, False)))
    if NO_GPU_REASON is not None:
        with pytest.raises(cured.CudaError, match="no usable CUDA GPU"):
            cured.sum(fake)
    else:
        with pytest.raises(ValueError, match="not memory a CUDA device can read"):
            cured.sum(fake)


class DLPackOnly:
    """An object that offers only DLPack: __dlpack__ and __dlpack_device__."""

    def __init__(self, array, device=None):
        self.array, self.device = array, device

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.device if self.device is not None else self.array.__dlpack_device__()


@pytest.mark.parametrize("version", [3, 9])
def test_dlpack_in_host_memory_takes_the_host_path(seed, version):
    x = random_array(seed, np.dtype("float32"), 40001)
    got = cured.sum(DLPackOnly(x), version=version, device="cpu")
    assert same_bits(got, cured.sum(x, version=version, device="cpu"))


@pytest.mark.parametrize("device, name", [((10, 0), "device type 10"), ((8, 0), "device type 8")])
def test_dlpack_on_another_kind_of_device_is_refused(device, name):
    with pytest.raises(TypeError, match=name):
        cured.sum(DLPackOnly(np.zeros(3), device=device))


def test_dlpack_device_failure_propagates():
    class Broken(DLPackOnly):
        def __dlpack_device__(self):
            raise BufferError("producer says no")

    with pytest.raises(BufferError, match="producer says no"):
        cured.sum(Broken(np.zeros(3)))


class RefusingInterface(DLPackOnly):
    """DLPack, and a __cuda_array_interface__ that raises, as PyTorch's does for a tensor that
    requires grad."""

    @property
    def __cuda_array_interface__(self):
        raise RuntimeError("interface refused")


def test_refused_interface_falls_back_to_dlpack(seed):
    x = random_array(seed, np.dtype("float64"), 5003)
    assert same_bits(cured.sum(RefusingInterface(x), device="cpu"), cured.sum(x, device="cpu"))


def test_refused_interface_without_dlpack_raises_its_error():
    class Refusing:
        @property
        def __cuda_array_interface__(self):
            raise RuntimeError("interface refused")

    with pytest.raises(RuntimeError, match="interface refused"):
        cured.sum(Refusing())


DELETED_JAX_CHILD = """
import sys, types
import numpy as np
jax = types.ModuleType("jax")  # a stand-in: cured finds JAX's array type in sys.modules


class Array:
    \"\"\"As a jax.Array without a GPU: DLPack in host memory; deleted, it has no interface (jaxlib
    refuses it) and its DLPack export raises what jax 0.11's does.\"\"\"

    def __init__(self, x):
        self.x, self.deleted, self.shape, self.dtype = x, False, x.shape, x.dtype

    def is_deleted(self):
        return self.deleted

    def __dlpack_device__(self):
        if self.deleted:
            raise TypeError("object of type 'NoneType' has no len()")
        return self.x.__dlpack_device__()

    def __dlpack__(self, **kwargs):
        if self.deleted:
            raise TypeError("object of type 'NoneType' has no len()")
        return self.x.__dlpack__(**kwargs)


jax.Array = Array
sys.modules["jax"] = jax
import cured

x = np.random.default_rng(int(sys.argv[1])).standard_normal((10, 100)).astype(np.float32)
a = Array(x)
assert cured.sum(a, device="cpu") == cured.sum(x, device="cpu")
assert np.array_equal(cured.sum(a, axis=0, device="cpu"), cured.sum(x, axis=0, device="cpu"))
a.deleted = True
for kwargs in ({}, {"device": "cpu"}, {"axis": 0}, {"out": np.empty((), np.float32)}):
    try:
        cured.sum(a, **kwargs)
    except ValueError as error:
        assert "JAX array has been deleted" in str(error), error
    else:
        raise SystemExit(f"a deleted JAX array was summed with {kwargs}")
print("refused")
"""


def test_deleted_jax_array_is_refused_before_any_cuda_call(seed, tmp_path):
    """A deleted (or donated) JAX array: neither of JAX's exports says so (tests/test_device_arrays.py
    has the real one), so cured asks it, in C and in numpy_sum.py's own reading, and says why; a
    live one is read as before. With a stand-in for JAX, in a child (cured keeps the array type it
    finds for the process's life; run away from the checkout, as test_api.py's children are)."""
    run = subprocess.run([sys.executable, "-c", DELETED_JAX_CHILD, str(seed)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "refused", run.stdout + run.stderr


def test_older_interface_with_dlpack_is_read_through_dlpack(seed):
    """A version 2 interface names no stream, so DLPack (here: host memory, the host path) is asked."""
    x = random_array(seed, np.dtype("float32"), 777)

    class Both(DLPackOnly):
        __cuda_array_interface__ = interface(version=2)

    assert same_bits(cured.sum(Both(x), device="cpu"), cured.sum(x, device="cpu"))


@pytest.mark.parametrize("typestr, name", [
    ("|b1", "bool"), ("|i1", "int8"), ("|u1", "uint8"), ("<i2", "int16"), ("=u2", "uint16"), ("<i4", "int32"),
    ("<u4", "uint32"), ("<i8", "int64"), ("<u8", "uint64"), ("<f2", "float16"), ("<f4", "float32"),
    ("|f8", "float64"), ("<f8", "float64"),
])
def test_typestrs_name_their_dtype(typestr, name):
    """Each typestr becomes its dtype (read without NumPy's parser where it is a common one): the
    refusal of an accumulator CUB does not take names it, before any CUDA call."""
    other = np.dtype("float32" if name == "float64" else "float64")
    with pytest.raises(TypeError, match=f"sums {name} with NumPy's default accumulator only, not dtype={other}"):
        cured.sum(CAI(**interface(typestr=typestr)), dtype=other, version="cub")
