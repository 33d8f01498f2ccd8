"""Without a usable GPU: import works, device_count() is 0, GPU calls raise cured.CudaError with a
clear message, and `python -m cured` says so and exits non-zero. CUDA_VISIBLE_DEVICES="" hides every
GPU, so this runs the same on a GPU machine and on CI."""
import os
import subprocess
import sys
import tempfile

HIDDEN = dict(os.environ, CUDA_VISIBLE_DEVICES="")


def run(*args):
    # From an empty directory, so that `import cured` finds the installed package, not a source tree.
    with tempfile.TemporaryDirectory() as cwd:
        return subprocess.run([sys.executable, *args], env=HIDDEN, cwd=cwd, capture_output=True, text=True, timeout=120)


def test_gpu_calls_raise_cuda_error():
    script = """
import cured
assert cured.device_count() == 0
import numpy as np
grid = np.arange(12.0).reshape(3, 4)
# device="auto" needs a GPU wherever it would sum, host arrays along axes (summed on the CPU) too.
for call in (lambda: cured.sum([1, 2, 3]), lambda: cured.sum(grid, axis=0), lambda: cured.sum(grid[0], axis=0),
             lambda: cured.fsum([0.5, 0.25]), lambda: cured.fsum(grid, axis=0), lambda: cured.fsum_state(grid),
             cured.device_info, cured._cured.memory_in_use):
    try:
        call()
    except cured.CudaError as error:
        assert isinstance(error, RuntimeError) and isinstance(error.code, int) and error.code != 0
        assert "no usable CUDA GPU" in str(error), str(error)
    else:
        raise AssertionError("no CudaError")
assert cured.sum([1, 2, 3], device="cpu") == 6   # the CPU model still works
assert np.array_equal(cured.sum(grid, axis=0, device="cpu"), [12.0, 15.0, 18.0, 21.0])
assert cured.fsum([0.5, 0.25], device="cpu") == 0.75
assert np.array_equal(cured.fsum(grid, axis=1, device="cpu"), [6.0, 22.0, 38.0])
print("ok")
"""
    result = run("-c", script)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_main_says_there_is_no_gpu():
    result = run("-m", "cured")
    assert result.returncode != 0
    assert "no usable CUDA GPU" in result.stderr
    assert "Traceback" not in result.stderr


def test_pytorch_tensors_are_recognised_by_type_alone():
    """The C reader of PyTorch tensors (interop_libraries.c), against a stand-in `torch` module (CI
    has no PyTorch, and the stand-in no DLPack exchange API): a CUDA tensor is read from its
    attributes (its dtype reaches the accumulator check, before any CUDA call), a CPU tensor or one
    that requires grad is left to the protocols, and every other object is read as before once
    PyTorch is known. Any tensor, a subclass's or a CPU one too, whose negative bit is set or that
    is nested is refused on every path, and a CUDA tensor at address 0 before any CUDA call."""
    script = """
import sys, types
import numpy as np
import cured

torch = types.ModuleType("torch")
torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 0)
torch.strided, torch.sparse_coo = object(), object()
for name in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
             "float32", "float64", "bfloat16"):
    setattr(torch, name, object())

class Tensor:
    def __init__(self, values, is_cuda, requires_grad=False, layout=torch.strided, dtype=torch.float32,
                 negative=False, is_nested=False, address=0x10000):
        self.values, self.is_cuda, self.requires_grad, self.layout, self.dtype = values, is_cuda, requires_grad, layout, dtype
        self.shape, self.negative, self.is_nested, self.address = values.shape, negative, is_nested, address
    def is_neg(self): return self.negative
    def get_device(self): return 0
    def stride(self): return tuple(s // self.values.itemsize for s in self.values.strides)
    def data_ptr(self): return self.address
    def __array__(self, dtype=None, copy=None): return self.values

class Subclass(Tensor):
    pass

torch.Tensor = Tensor
sys.modules["torch"] = torch
x = np.arange(1, 7, dtype=np.float32)
try:
    cured.sum(Tensor(x, is_cuda=True), dtype=np.dtype("float64"), version="cub")
except TypeError as error:
    assert "sums float32 with NumPy's default accumulator only" in str(error), error
else:
    raise AssertionError("not refused")
try:  # bfloat16: not read by the C reader; the stand-in has no protocol, so it is an array-like
    cured.sum(Tensor(x, is_cuda=True, dtype=torch.bfloat16), device="cpu")
except Exception as error:
    raise AssertionError(error)
for other in (Tensor(x, is_cuda=False), Tensor(x, is_cuda=True, requires_grad=True),
              Tensor(x, is_cuda=True, layout=torch.sparse_coo), [1, 2, 3, 4, 5, 6.0], x.tolist()):
    assert cured.sum(other, device="cpu") == 21, other
refused = [(Tensor(x, is_cuda=True, negative=True), ValueError, "negative bit"),
           (Tensor(x, is_cuda=False, negative=True), ValueError, "negative bit"),
           (Subclass(x, is_cuda=True, negative=True), ValueError, "negative bit"),
           (Tensor(x, is_cuda=True, is_nested=True), TypeError, "nested"),
           (Tensor(x, is_cuda=True, address=0), ValueError, "null pointer for 6 elements")]
for tensor, error_type, words in refused:
    # axis= and keepdims= take the stand-in, which has no protocol, for a host array-like, whose
    # address no one reads
    for kwargs in ({}, {"device": "cpu"}) + (() if tensor.address == 0 else ({"axis": 0}, {"keepdims": True})):
        try:
            cured.sum(tensor, **kwargs)
        except error_type as error:
            assert words in str(error), (kwargs, error)
        else:
            raise AssertionError(("not refused", words, kwargs))
assert cured.sum(Tensor(x, is_cuda=False), axis=0, device="cpu") == 21
try:  # an out= whose memory would hold the negative of what torch then reads from it
    cured.sum(x, out=Tensor(x[:1].reshape(()), is_cuda=True, negative=True))
except ValueError as error:
    assert "negative bit" in str(error), error
else:
    raise AssertionError("a negated out= was not refused")
print("ok")
"""
    result = run("-c", script)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_cupy_arrays_are_read_from_their_attributes():
    """The C reader of CuPy arrays (interop.c), against a stand-in `cupy` module (CI has no CuPy): a
    C-contiguous cupy.ndarray is read from its attributes (refused for device='cpu' as a device
    array, its dtype checked before any CUDA call, its stream asked for on its own device), while a
    non-contiguous one, a subclass, or any array once CuPy exports interface version 2 is left to
    the protocols, which the stand-in lacks: NumPy reads it as an array-like instead."""
    script = """
import sys, types
import numpy as np
import cured

asked = []
class Stream:
    def __init__(self, ptr): self.ptr = ptr
def get_current_stream(device_id=-1):
    asked.append(device_id)
    return Stream(0)

cupy = types.ModuleType("cupy")
cupy.cuda = types.SimpleNamespace(get_current_stream=get_current_stream)
cupy._util = types.SimpleNamespace(CUDA_ARRAY_INTERFACE_EXPORT_VERSION=3)

class ndarray:
    _c_contiguous = size = dtype = data = None  # on the type, as CuPy's readonly members are
    def __init__(self, values, c_contiguous=True):
        self.values, self._c_contiguous = values, c_contiguous
        self.size, self.dtype = values.size, values.dtype
        self.data = types.SimpleNamespace(ptr=0x10000, device_id=3)
    def __array__(self, dtype=None, copy=None): return self.values

class Subclass(ndarray):
    pass

cupy.ndarray = ndarray
sys.modules["cupy"] = cupy
x = np.arange(1, 7, dtype=np.float32)
try:
    cured.sum(ndarray(x), device="cpu")
except ValueError as error:
    assert "copy the device array to the host first" in str(error), error
else:
    raise AssertionError("a CuPy array was not taken for a device array")
assert asked == [3], asked
try:
    cured.sum(ndarray(x), dtype=np.dtype("float64"), version="cub")
except TypeError as error:
    assert "sums float32 with NumPy's default accumulator only" in str(error), error
else:
    raise AssertionError("not refused")
for other in (ndarray(x, c_contiguous=False), Subclass(x), [1, 2, 3, 4, 5, 6.0]):
    assert cured.sum(other, device="cpu") == 21, other
cupy._util.CUDA_ARRAY_INTERFACE_EXPORT_VERSION = 2
assert cured.sum(ndarray(x), device="cpu") == 21
print("ok")
"""
    result = run("-c", script)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_jax_arrays_once_computed_are_read_through_their_interface():
    """JAX arrays (interop.c), against a stand-in `jax` module (CI has no JAX): an array whose
    computation has finished (`is_ready()`) is read through its CUDA Array Interface of version 2,
    without asking for DLPack; one still being computed, or an object that is no jax.Array but has
    an is_ready method, goes through DLPack, which orders the producer's work; an error from
    is_ready() passes through."""
    script = """
import sys, types
import numpy as np
import cured

asked = []
jax = types.ModuleType("jax")
class Array:
    pass
jax.Array = Array
sys.modules["jax"] = jax

class Lookalike:
    def __init__(self, values, ready):
        self.values, self.ready = values, ready
        self.__cuda_array_interface__ = {"version": 2, "shape": values.shape, "typestr": values.dtype.str,
                                         "data": (0x10000, True)}
    def is_ready(self):
        if isinstance(self.ready, Exception):
            raise self.ready
        return self.ready
    def __dlpack_device__(self):
        asked.append(self.ready)
        return (2, 0)
    def __dlpack__(self, stream=None, max_version=None):
        raise AssertionError("device='cpu' refuses a device array before importing it")

class ArrayImpl(Lookalike, Array):
    pass

x = np.arange(1, 7, dtype=np.float32)
for array, dlpack_asked in ((ArrayImpl(x, True), []), (ArrayImpl(x, False), [False]), (Lookalike(x, True), [True])):
    asked.clear()
    try:
        cured.sum(array, device="cpu")
    except ValueError as error:
        assert "copy the device array to the host first" in str(error), error
    else:
        raise AssertionError("a device array was not refused for device='cpu'")
    assert asked == dlpack_asked, (type(array).__name__, array.ready, asked)
try:
    cured.sum(ArrayImpl(x, RuntimeError("deleted")))
except RuntimeError as error:
    assert str(error) == "deleted", error
else:
    raise AssertionError("is_ready's error was lost")
print("ok")
"""
    result = run("-c", script)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_numba_arrays_are_read_from_their_attributes():
    """Numba's device arrays (interop.c), against a stand-in numba module (CI has no Numba): a
    DeviceNDArray is read from shape, strides, dtype, stream and gpu_data, never asking for its
    interface (refused for device='cpu' as a device array, its dtype checked before any CUDA call);
    a subclass, or one whose dtype is not NumPy's, goes through its interface; a stream that is
    neither 0 nor convertible to int is an error from the stream's own int(). The address is
    int(gpu_data.device_pointer) (NVIDIA's bindings' CUdeviceptr), else, where that has no int()
    (Numba's ctypes driver) or is missing, gpu_data.device_ctypes_pointer.value."""
    script = """
import sys, types
import numpy as np
import cured

interface_asked = []
class Pointer:
    def __init__(self, value): self.value = value
class MemoryPointer:
    device_ctypes_pointer = Pointer(0x10000)

class DeviceNDArray:
    def __init__(self, values, stream=0, dtype=None):
        self.values, self.stream = values, stream
        self.shape, self.strides, self.dtype = values.shape, values.strides, dtype or values.dtype
        self.gpu_data = MemoryPointer()
    @property
    def __cuda_array_interface__(self):
        interface_asked.append(type(self).__name__)
        return {"version": 3, "shape": self.shape, "typestr": self.values.dtype.str, "data": (0x10000, False),
                "stream": None}

class MappedNDArray(DeviceNDArray):
    pass

class Stream:
    def __int__(self): raise RuntimeError("no handle")

module = types.ModuleType("numba.cuda.cudadrv.devicearray")
module.DeviceNDArray = DeviceNDArray
sys.modules["numba.cuda.cudadrv.devicearray"] = module
x = np.arange(1, 7, dtype=np.float32)
for array, asked in ((DeviceNDArray(x), []), (DeviceNDArray(x.reshape(2, 3)[:, ::2]), []),
                     (MappedNDArray(x), ["MappedNDArray"]), (DeviceNDArray(x, dtype="float32"), ["DeviceNDArray"])):
    interface_asked.clear()
    try:
        cured.sum(array, device="cpu")
    except ValueError as error:
        assert "copy the device array to the host first" in str(error), error
    else:
        raise AssertionError("a device array was not refused for device='cpu'")
    assert interface_asked == asked, (type(array).__name__, interface_asked)
try:
    cured.sum(DeviceNDArray(x), dtype=np.dtype("float64"), version="cub")
except TypeError as error:
    assert "sums float32 with NumPy's default accumulator only" in str(error), error
else:
    raise AssertionError("not refused")
try:
    cured.sum(DeviceNDArray(x, stream=Stream()), device="cpu")
except RuntimeError as error:
    assert str(error) == "no handle", error
else:
    raise AssertionError("the stream's error was lost")

class Address:  # as a CUdeviceptr: int() is the address
    def __init__(self, value): self.value = value
    def __int__(self):
        if isinstance(self.value, Exception): raise self.value
        return self.value
class CtypesAddress:  # as a ctypes c_void_p: no int()
    pass
def with_pointers(device_pointer, ctypes_value):
    array = DeviceNDArray(x)
    array.gpu_data = types.SimpleNamespace(device_ctypes_pointer=Pointer(ctypes_value))
    if device_pointer is not None:
        array.gpu_data.device_pointer = device_pointer
    return array
# Which address was read shows where it is 0 / None: an array of 6 elements with no memory is an error.
for device_pointer, ctypes_value, empty in ((Address(0), 0x10000, True), (Address(0x10000), None, False),
                                            (CtypesAddress(), None, True), (CtypesAddress(), 0x10000, False),
                                            (None, None, True), (None, 0x10000, False)):
    try:
        cured.sum(with_pointers(device_pointer, ctypes_value), device="cpu")
    except ValueError as error:
        wanted = "has no device memory but is not empty" if empty else "copy the device array to the host first"
        assert wanted in str(error), (type(device_pointer).__name__, ctypes_value, error)
    else:
        raise AssertionError("not refused")
try:
    cured.sum(with_pointers(Address(RuntimeError("freed")), 0x10000), device="cpu")
except RuntimeError as error:
    assert str(error) == "freed", error
else:
    raise AssertionError("the pointer's error was lost")
print("ok")
"""
    result = run("-c", script)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr
