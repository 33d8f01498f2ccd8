"""PyTorch's DLPack C exchange API (`torch.Tensor.__dlpack_c_exchange_api__`, PyTorch 2.10 and
later) against reading a tensor's attributes, for csrc/interop_libraries.c (issue 12: a PyTorch
tensor cost cured.sum 0.7 to 0.9 us more a call than a CuPy array). A probe for the reader's
comments and docs/call_time.md; nothing reads its output.

1. The API's version, and what its dltensor_from_py_object_no_sync says of ordinary and unusual
   tensors, through ctypes; each unusual kind in a child process of its own, since the function may
   crash the process (the child's return code says so: -11 is a segfault).
2. A tensor whose negative bit is set (x.conj().imag): torch.sum against CuPy's sum of the same
   tensor through the protocols, which give its memory, and cured.sum, which refuses it.
3. What each attribute the reader reads costs from Python (timeit, in turns, medians in ns).
4. cured.sum on a tensor read through the exchange API and from its attributes
   (`_set_test_torch_exchange`), a CuPy array and a CAI-only object, in turns, batches of 2000
   calls that each wait for their sum, medians in ns.

    python scripts/probes/torch_exchange.py
"""
import ctypes
import subprocess
import sys
import time

import numpy as np
import torch

from turns import timeit_in_turns  # this directory


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


FROM_PY_OBJECT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(DLTensor))


class ExchangeAPI(ctypes.Structure):
    _fields_ = [("version", Version), ("prev_api", ctypes.c_void_p), ("managed_tensor_allocator", ctypes.c_void_p),
                ("managed_tensor_from_py_object_no_sync", ctypes.c_void_p),
                ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
                ("dltensor_from_py_object_no_sync", FROM_PY_OBJECT), ("current_work_stream", ctypes.c_void_p)]


UNUSUAL = {  # built in a child process each: the exchange function may crash on them
    "meta": 'torch.ones(5, device="meta")',
    "sparse": 'torch.ones(5, device="cuda").to_sparse()',
    "nested": 'torch.nested.nested_tensor([torch.ones(2, device="cuda"), torch.ones(3, device="cuda")])',
    "zerotensor": 'torch._efficientzerotensor(1000, device="cuda")',
    "functional": 'torch._to_functional_tensor(torch.ones(4, device="cuda"))',
    "vmap": None,  # the tensor a function sees inside torch.func.vmap
}


def exchange_api():
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.argtypes, get.restype = [ctypes.py_object, ctypes.c_char_p], ctypes.c_void_p
    return ExchangeAPI.from_address(get(torch.Tensor.__dlpack_c_exchange_api__, b"dlpack_exchange_api"))


def describe(api, name, tensor):
    out = DLTensor()
    if api.dltensor_from_py_object_no_sync(tensor, ctypes.byref(out)) != 0:
        print(f"  {name}: refused")
        return
    shape = [out.shape[d] for d in range(out.ndim)]
    strides = [out.strides[d] for d in range(out.ndim)] if out.strides else None
    print(f"  {name}: data {out.data or 0:#x} (data_ptr() {tensor.data_ptr():#x}), device ({out.device.device_type}, "
          f"{out.device.device_id}), dtype ({out.dtype.code}, {out.dtype.bits}, {out.dtype.lanes}), shape {shape}, "
          f"strides {strides}", flush=True)


def child(kind):
    """One unusual tensor's attributes and what the exchange function says of it (or the crash)."""
    api = exchange_api()
    if kind == "vmap":
        def inside(t):
            print(f"  vmap: is_cuda {t.is_cuda}, layout {t.layout}, nested {t.is_nested}", flush=True)
            try:
                t.data_ptr()
            except RuntimeError as error:
                print(f"  vmap: data_ptr() raised: {error}", flush=True)
            describe(api, kind, t)
            return t.sum()
        torch.func.vmap(inside)(torch.ones(4, 3, device="cuda"))
        return
    tensor = eval(UNUSUAL[kind])
    print(f"  {kind}: is_cuda {tensor.is_cuda}, layout {tensor.layout}, nested {tensor.is_nested}", flush=True)
    describe(api, kind, tensor)


def main():
    import cupy

    import cured

    print(cured.device_info()["name"], time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
          f"torch {torch.__version__}, cupy {cupy.__version__}")
    if not hasattr(torch.Tensor, "__dlpack_c_exchange_api__"):
        print("this PyTorch has no DLPack exchange API")
        return
    api = exchange_api()
    print(f"1. exchange API version {api.version.major}.{api.version.minor}")
    base = torch.ones(5, 6, device="cuda")
    for name, tensor in [("float32", base), ("strided view", base[1:, ::2]), ("0-d", base[0, 0]),
                         ("empty", base[:0]), ("requires grad", base.clone().requires_grad_()),
                         ("bfloat16", base.bfloat16()), ("CPU", torch.ones(3))]:
        describe(api, name, tensor)
    for kind in UNUSUAL:
        run = subprocess.run([sys.executable, __file__, kind], capture_output=True, text=True)
        print(run.stdout, end="")
        print(f"  {kind}: child's return code {run.returncode}")

    rng = np.random.default_rng(int(time.time()))
    x = (rng.standard_normal(1000) + 1j * rng.standard_normal(1000)).astype(np.complex64)
    negated = torch.from_numpy(x).cuda().conj().imag
    try:
        refused = f"refused: {cured.sum(negated)}"
    except ValueError as error:
        refused = f"ValueError: {error}"
    print(f"2. x.conj().imag, is_neg() {negated.is_neg()}: torch.sum {negated.sum().item():.6f}, CuPy through the "
          f"protocols {float(cupy.asarray(negated).sum()):.6f}; cured.sum {refused}")

    t = torch.ones(1 << 14, device="cuda")
    g = {"t": t, "raw": torch._C._cuda_getCurrentRawStream, "dev": 0}
    costs = timeit_in_turns({stmt: (stmt, g) for stmt in [
        "pass", "t.is_neg()", "t.is_nested", "t.is_cuda", "t.requires_grad", "t.layout", "t.data_ptr()",
        "t.dtype", "t.get_device()", "t.shape", "t.stride()", "raw(dev)"]}, rounds=15, number=20000)
    print("3. attribute costs from Python (ns):", ", ".join(f"{k} {v:.0f}" for k, v in costs.items()))

    class CAI:
        def __init__(self, array):
            self.__cuda_array_interface__ = array.__cuda_array_interface__

    def exchange(on):
        cured._cured._set_test_torch_exchange(on)

    print("4. cured.sum in turns, batches of 2000 calls (median ns)")
    for dtype in ("float32", "float64"):
        for log2 in (10, 14, 16):
            c = cupy.asarray(rng.standard_normal(1 << log2).astype(dtype))
            t = torch.from_dlpack(c)
            subjects = {
                "exchange": ("on(True); s(t)", {"s": cured.sum, "t": t, "on": exchange}),
                "attributes": ("on(False); s(t)", {"s": cured.sum, "t": t, "on": exchange}),
                "cupy": ("on(True); s(c)", {"s": cured.sum, "c": c, "on": exchange}),
                "cai only": ("on(True); s(f)", {"s": cured.sum, "f": CAI(c), "on": exchange}),
                "set_test_torch_exchange alone": ("on(True)", {"on": exchange}),
            }
            medians = timeit_in_turns(subjects, rounds=9, number=2000)
            exchange(True)
            print(f"  {dtype} 2^{log2}:", ", ".join(f"{k} {v:.0f}" for k, v in medians.items()))


if __name__ == "__main__":
    if len(sys.argv) > 1:
        child(sys.argv[1])
    else:
        main()
