"""Why a JAX array costs cured.sum more in `python -m cured --latency` than jax_reader.py found
(issue 12: 2.3 to 5.6 us over a CuPy array at 2^10 to 2^20 in the H200's record of 2026-11-28
15:35 UTC, 10 us at 2^24, where jaxlib's interface and is_ready() cost about 1 us apart).

The arrays are made as cured/walltime.py makes them (a CuPy array, PyTorch and JAX reading it
through DLPack, no block_until_ready), and the subjects are timed as it times them
(walltime._wall_in_turns, one call of each a round), with more beside them: the JAX array after
block_until_ready(), an array JAX computed itself (jax.random.normal under jit) waited for and
not, a CAI-only object holding the JAX array's interface dict, and jaxlib's is_ready() and
interface alone on both kinds; then, after block_until_ready() on the imported array, cured.sum on
it again beside the waited one. Prints whether the JAX array is ready and shares CuPy's memory.
A probe for docs/call_time.md; nothing reads it.

    python scripts/probes/jax_walltime.py 10,14,24
"""
import os
import statistics
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import cupy
import jax
import jax.dlpack
import torch

import cured
from cured import _cured
from cured.walltime import _CAI, _wall_in_turns

jax.config.update("jax_enable_x64", True)
lengths = [1 << int(k) for k in sys.argv[1].split(",")] if len(sys.argv) > 1 else [1 << 10, 1 << 14, 1 << 24]
print(cured.device_info()["name"], time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "jax", jax.__version__,
      flush=True)
for dtype in ("float32", "float64"):
    for n in lengths:
        c = cupy.random.standard_normal(n, dtype=dtype)
        t = torch.from_dlpack(c)
        j = jax.dlpack.from_dlpack(c)  # as walltime.py makes it
        ready_at_once = j.is_ready()
        shares = j.unsafe_buffer_pointer() == c.data.ptr
        j_waited = jax.dlpack.from_dlpack(c).block_until_ready()
        normal = jax.jit(lambda key: jax.random.normal(key, (n,), dtype))
        y = normal(jax.random.key(n))
        y_waited = normal(jax.random.key(n + 1)).block_until_ready()
        cai, cai_of_j = _CAI(c), _CAI(j)
        subjects = {
            "floor": lambda: _cured.floor(1),
            "cured(c)": lambda: cured.sum(c),
            "cured(t)": lambda: cured.sum(t),
            "cured(cai)": lambda: cured.sum(cai),
            "cured(j)": lambda: cured.sum(j),
            "cured(j waited)": lambda: cured.sum(j_waited),
            "cured(CAI of j)": lambda: cured.sum(cai_of_j),
            "cured(y)": lambda: cured.sum(y),
            "cured(y waited)": lambda: cured.sum(y_waited),
            "j.is_ready()": lambda: j.is_ready(),
            "j waited.is_ready()": lambda: j_waited.is_ready(),
            "y.is_ready()": lambda: y.is_ready(),
            "j.__cai__": lambda: j.__cuda_array_interface__,
            "j waited.__cai__": lambda: j_waited.__cuda_array_interface__,
            "y.__cai__": lambda: y.__cuda_array_interface__,
            "t.sum().item()": lambda: t.sum().item(),
            "float(c.sum())": lambda: float(c.sum()),
        }
        times = _wall_in_turns(subjects, 2000, 0.5, self_timed={"floor"})
        print(f"{dtype} 2^{n.bit_length() - 1}: j ready at once {ready_at_once}, ready after {j.is_ready()}, "
              f"shares CuPy's memory {shares}; median us in turns:", flush=True)
        print("   " + "  ".join(f"{k} {statistics.median(v) * 1e6:.2f}" for k, v in times.items()), flush=True)
        j.block_until_ready()
        times = _wall_in_turns({"floor": subjects["floor"], "cured(c)": subjects["cured(c)"],
                                "cured(j) after its block_until_ready()": subjects["cured(j)"],
                                "cured(j waited)": subjects["cured(j waited)"]}, 2000, 0.5, self_timed={"floor"})
        print("   " + "  ".join(f"{k} {statistics.median(v) * 1e6:.2f}" for k, v in times.items()), flush=True)
        del c, t, j, j_waited, y, y_waited, cai, cai_of_j
        cupy.get_default_memory_pool().free_all_blocks()
