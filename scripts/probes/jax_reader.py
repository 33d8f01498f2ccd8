"""Where a JAX array's extra wall time goes in cured.sum (issue 12: JAX input read 1.71 to 2.22x the
faster of PyTorch and CuPy in the 2026-11-24 records, against 2.12 to 3.07 for a CuPy array).

Prints: JAX's version; for each attribute a reader could use, whether jax.Array implements it in
Python or in jaxlib (C++), and its cost a call (mean of batches); then cured.sum on a CAI-only
object, on a CuPy array and on the JAX array, timed one call each in turns with torch's and CuPy's
calls between them (as `python -m cured --latency` does) and in batches of 50 (as
call_breakdown.py does). A probe for docs/development.md; nothing reads it.

    python scripts/probes/jax_reader.py
"""
import inspect
import statistics
import time

import cupy
import torch

import jax
import jax.dlpack

import cured

jax.config.update("jax_enable_x64", True)
print(cured.device_info()["name"], time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
      "jax", jax.__version__, "jaxlib", getattr(jax, "lib", None) and jax.lib.__version__, flush=True)


class CAI:
    def __init__(self, array):
        self.__cuda_array_interface__ = array.__cuda_array_interface__


def batch_cost(fn, calls=2000, batches=9):
    for _ in range(100):
        fn()
    costs = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        costs.append((time.perf_counter() - start) / calls)
    return statistics.median(costs)


c = cupy.random.standard_normal(1 << 12, dtype="float32")
j = jax.dlpack.from_dlpack(c).block_until_ready()
T = type(j)
print("type", T, "mro", [k.__module__ + "." + k.__qualname__ for k in T.__mro__])
names = ["__cuda_array_interface__", "is_ready", "unsafe_buffer_pointer", "shape", "dtype", "ndim", "size",
         "sharding", "committed", "_committed", "is_fully_addressable", "is_deleted", "_arrays", "devices",
         "format", "layout", "aval", "__dlpack_device__", "addressable_shards", "_single_device_array_to_np_array"]
accessors = {}
for name in names:
    static = inspect.getattr_static(T, name, None)
    where = type(static).__name__
    code = getattr(static, "fget", static)
    module = getattr(code, "__module__", None)
    kind = "python" if inspect.isfunction(code) else "native"
    print(f"  {name:34s} {where:28s} {kind:7s} {module}")
    if static is None:
        continue
    if callable(getattr(j, name, None)) and name not in ("shape", "dtype"):
        try:
            getattr(j, name)()
        except Exception as error:  # noqa: BLE001
            print(f"    {name}() raises {type(error).__name__}: {error}")
            continue
        accessors[name + "()"] = lambda name=name: getattr(j, name)()
    else:
        try:
            getattr(j, name)
        except Exception as error:  # noqa: BLE001
            print(f"    .{name} raises {type(error).__name__}: {error}")
            continue
        accessors["." + name] = lambda name=name: getattr(j, name)
accessors["type(j) check"] = lambda: isinstance(j, jax.Array)
accessors["c.__cai__"] = lambda: c.__cuda_array_interface__
for label, fn in accessors.items():
    print(f"  cost {label:34s} {batch_cost(fn) * 1e6:7.3f} us", flush=True)

for dtype in ("float32", "float64"):
    for log2 in (10, 14, 16):
        c = cupy.random.standard_normal(1 << log2, dtype=dtype)
        t = torch.from_dlpack(c)
        j = jax.dlpack.from_dlpack(c).block_until_ready()
        cai = CAI(c)
        subjects = {"floor": None, "cured(cai)": lambda: cured.sum(cai), "cured(c)": lambda: cured.sum(c),
                    "cured(j)": lambda: cured.sum(j), "torch": lambda: t.sum().item(), "cupy": lambda: float(c.sum())}
        for fn in subjects.values():
            for _ in range(5):
                fn and fn()
        turns = {k: [] for k in subjects}
        for _ in range(3000):
            for name, fn in subjects.items():
                if fn is None:
                    turns[name] += cured._cured.floor(1)
                    continue
                start = time.perf_counter()
                fn()
                turns[name].append(time.perf_counter() - start)
        batches = {k: [] for k in subjects if subjects[k] is not None}
        for _ in range(40):
            for name in batches:
                for _ in range(50):
                    start = time.perf_counter()
                    subjects[name]()
                    batches[name].append(time.perf_counter() - start)
        med = lambda v: statistics.median(v) * 1e6
        print(f"{dtype} 2^{log2} in turns: " + "  ".join(f"{k} {med(v):.2f}" for k, v in turns.items()) +
              " | batches: " + "  ".join(f"{k} {med(v):.2f}" for k, v in batches.items()), flush=True)
