"""Where the time of results copied into a fresh NumPy array goes (csrc/fetch.c's header and
docs/host_path.md have the figures): one cudaMemcpy (CuPy's .get(out=)) into a fresh np.empty, into
pages written before, into np.zeros and into pinned memory; madvise(MADV_POPULATE_WRITE) of a fresh
array on 1 to 16 threads; a pinned copy then 1 to 16 threads' copies into written pages. Wall time,
median of 11. Linux 5.14 or later (MADV_POPULATE_WRITE); it prints, nothing reads it.
"""
import concurrent.futures
import ctypes
import statistics
import time

import cupy
import numpy as np

MADV_POPULATE_WRITE = 23
libc = ctypes.CDLL(None, use_errno=True)
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
pool = concurrent.futures.ThreadPoolExecutor(16)


def wall(fn, reps=11):
    fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def populate(h, threads):
    """MADV_POPULATE_WRITE over h's whole pages, in `threads` parts of whole 2 MiB."""
    first = (h.ctypes.data + 4095) // 4096 * 4096
    end = (h.ctypes.data + h.nbytes) // 4096 * 4096
    step = -(-(end - first) // threads // (2 << 20)) * (2 << 20) or 4096
    parts = [(a, min(step, end - a)) for a in range(first, end, step)]
    assert all(f.result() == 0 for f in [pool.submit(libc.madvise, a, n, MADV_POPULATE_WRITE) for a, n in parts])


def copy_on_threads(dst, src, threads):
    bounds = [len(dst) * i // threads for i in range(threads + 1)]
    for f in [pool.submit(np.copyto, dst[a:b], src[a:b]) for a, b in zip(bounds, bounds[1:])]:
        f.result()


print(cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
for log2 in [20, 24, 26]:
    n = 2**log2
    d = cupy.random.standard_normal(n, dtype=cupy.float32)
    pinned = np.frombuffer(cupy.cuda.alloc_pinned_memory(n * 4), np.float32, n)
    written = np.ones(n, np.float32)
    cases = {"one copy into a fresh np.empty": lambda: d.get(out=np.empty(n, np.float32)),
             "one copy into a fresh np.zeros": lambda: d.get(out=np.zeros(n, np.float32)),
             "one copy into written pages": lambda: d.get(out=written),
             "one copy into pinned memory": lambda: d.get(out=pinned)}
    for threads in (1, 2, 4, 8, 16):
        cases[f"populate a fresh array, {threads} threads"] = lambda t=threads: populate(np.empty(n, np.float32), t)
    for threads in (1, 8, 16):
        cases[f"pinned copy + {threads} threads' copies"] = \
            lambda t=threads: (d.get(out=pinned), copy_on_threads(written, pinned, t))
    for name, fn in cases.items():
        print(f"2^{log2} float32 ({n * 4 >> 20} MiB) {name:<40} {wall(fn) * 1e3:8.3f} ms", flush=True)
    del d
