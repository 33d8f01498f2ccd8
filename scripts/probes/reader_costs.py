"""What each attribute that csrc/interop_libraries.c reads costs, from Python (issue 12: a PyTorch
tensor and a Numba array cost more a call than an object holding a ready-made interface). Each
expression is timed in turns with the others, batches of 2000, medians in nanoseconds; the C reader
pays about the same less Python's own 20 to 40 ns an expression (the `pass` row). Then cured.sum on
each input in turns, as call_breakdown.py does. A probe for docs/ and the readers' comments; nothing
reads it.

    python scripts/probes/reader_costs.py
"""
import time

import cupy
import torch

import cured
from turns import timeit_in_turns  # this directory

try:
    from numba import cuda as numba_cuda
except ImportError:
    numba_cuda = None


class FixedInterface:
    def __init__(self, array):
        self.__cuda_array_interface__ = array.__cuda_array_interface__


def in_turns(subjects: dict, rounds: int = 15, number: int = 2000) -> dict:
    """Median ns a call of each subject (a statement and its globals), in turns."""
    return timeit_in_turns(subjects, rounds, number)


def show(title: str, medians: dict) -> None:
    print(title)
    for name, ns in medians.items():
        print(f"  {name:<58} {ns:8.0f} ns")


print(cured.device_info()["name"], time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
n = 1 << 14
c = cupy.random.standard_normal(n, dtype="float32")
t = torch.from_dlpack(c)
g = {"t": t, "torch": torch, "raw": torch._C._cuda_getCurrentRawStream, "dev": 0}
show("PyTorch tensor, float32 2^14 (what both readers read, then what the exchange API replaces)", in_turns({
    "pass": ("pass", g),
    "t.is_neg()": ("t.is_neg()", g),
    "t.is_nested": ("t.is_nested", g),
    "t.is_cuda": ("t.is_cuda", g),
    "t.requires_grad": ("t.requires_grad", g),
    "t.layout": ("t.layout", g),
    "t.data_ptr()": ("t.data_ptr()", g),
    "(attributes) t.dtype": ("t.dtype", g),
    "(attributes) t.get_device()": ("t.get_device()", g),
    "(attributes) t.shape": ("t.shape", g),
    "(attributes) t.stride()": ("t.stride()", g),
    "(attributes) _cuda_getCurrentRawStream(0)": ("raw(dev)", g),
    "(others) t.device": ("t.device", g),
    "(others) t.is_contiguous()": ("t.is_contiguous()", g),
    "(others) t.numel()": ("t.numel()", g),
    "(others) t.dim()": ("t.dim()", g),
    "(others) t.storage_offset()": ("t.storage_offset()", g),
    "(others) t.__cuda_array_interface__": ("t.__cuda_array_interface__", g),
}))
subjects = {
    "cured.sum(fixed interface)": ("s(f)", {"s": cured.sum, "f": FixedInterface(c)}),
    "cured.sum(cupy)": ("s(c)", {"s": cured.sum, "c": c}),
    "cured.sum(torch)": ("s(t)", {"s": cured.sum, "t": t}),
}
if numba_cuda is not None:
    import numba

    d = numba_cuda.as_cuda_array(c)
    gd = {"d": d, "p": d.gpu_data}
    pointer = d.gpu_data.device_pointer
    print(f"numba {numba.__version__}: gpu_data is {type(d.gpu_data).__name__}, its device_pointer a "
          f"{type(pointer).__module__}.{type(pointer).__name__} ({pointer!r}), int() of it "
          f"{int(pointer) if hasattr(pointer, '__int__') else 'refused'}, the array at {c.data.ptr}")
    if hasattr(pointer, "__int__"):
        gd["int"] = int
        extra = {"(others) int(d.gpu_data.device_pointer)": ("int(p.device_pointer)", gd)}
    else:
        extra = {}
    show("Numba array, float32 2^14", in_turns({
        "pass": ("pass", gd),
        "d.dtype": ("d.dtype", gd),
        "d.shape": ("d.shape", gd),
        "d.strides": ("d.strides", gd),
        "d.stream": ("d.stream", gd),
        "d.gpu_data": ("d.gpu_data", gd),
        "d.gpu_data.device_ctypes_pointer": ("p.device_ctypes_pointer", gd),
        "d.gpu_data.device_ctypes_pointer.value": ("p.device_ctypes_pointer.value", gd),
        "(others) d.gpu_data.handle": ("p.handle", gd),
        "(others) d.gpu_data.device_pointer": ("p.device_pointer", gd),
        "(others) d.gpu_data.device_pointer_value": ("p.device_pointer_value", gd),
        "(others) d.device_ctypes_pointer": ("d.device_ctypes_pointer", gd),
        "(others) d.__cuda_array_interface__": ("d.__cuda_array_interface__", gd),
        **extra,
    }))
    subjects["cured.sum(numba)"] = ("s(d)", {"s": cured.sum, "d": d})
for _ in range(200):  # warm: the readers' first calls look their libraries up
    for stmt, gl in subjects.values():
        eval(stmt, gl)
show("cured.sum, each input in turns (batches of 2000 calls, each waits for its sum)",
     in_turns(subjects, rounds=9))
