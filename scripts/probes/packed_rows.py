"""Why does CuPy sum (2^27, 2) float64 along 1 faster than cured's packed rows on an H100?

Issue 13's one row left behind on the H100 (2026-11-24 08:27 UTC record, device time): cured 1056.0 us,
CuPy 1037.2, V9 on the flat 2 GiB 693.9. CuPy moved the 3 GiB (2 read, 1 written) at V9's own read
rate; cured's `sum_packed_rows` (V9's walk: 16-byte loads, 8 in flight, a row a vector, 8-byte
stores) at 0.98 of it. On the H200 cured leads (736.8 against 794.2).

Subjects, in turns behind a pad (turns.py), device time, median of ROUNDS: V9 on the
flat array, CuPy's and cured's sums along 1, and copies of `sum_packed_rows` that change one thing:
stores that stream past L2's normal policy (st.global.cs), loads that do (ld.global.cs), both; 4 or
16 loads in flight instead of 8; a grid of two waves striding (instead of one pass a thread); pairs
of lanes trading one sum so that each writes 16 bytes (one store instruction a pair of rows). Every
copy's output is compared with CuPy's. Prints a table; nothing reads it.

    python scripts/probes/packed_rows.py
"""
import time

import cupy as cp
import numpy as np

try:  # without a build of cured here, the probe's own kernels and CuPy's alone
    import cured
except ImportError:
    cured = None
from turns import print_medians, times_in_turns  # this directory

ROUNDS = 25
SOURCE = r"""
template <class T> struct vec;
template <> struct vec<float> { using type = float4; using pair = float2; };
template <> struct vec<double> { using type = double2; using pair = double2; };

template <class T, bool Streaming> __device__ __forceinline__ typename vec<T>::type load(const typename vec<T>::type *p) {
    if constexpr (Streaming) return __ldcs(p); else return *p;
}
template <class T, bool Streaming> __device__ __forceinline__ void store(T *p, T x) {
    if constexpr (Streaming) __stcs(p, x); else *p = x;
}

// sum_packed_rows's walk: thread `first` loads vectors first + u * 256, u < InFlight; a vector of
// V / R rows. Pairs: lanes l and l ^ 1 trade one row's sum so that each stores two adjacent rows.
template <class T, int R, int InFlight, bool StreamLoads, bool StreamStores, bool Pairs>
__global__ void __launch_bounds__(256) packed(const typename vec<T>::type *in, T *out, long long rows) {
    extern __shared__ char occupancy_limit[];  // dynamic shared memory a block, only to cap blocks an SM
    using V = typename vec<T>::type;
    constexpr int kV = sizeof(V) / sizeof(T);
    constexpr int kRowsAVector = kV / R;
    const long long vectors = rows * R / kV;
    const long long a_pass = (long long)gridDim.x * 256 * InFlight;
    for (long long first = (long long)blockIdx.x * 256 * InFlight + threadIdx.x; first < vectors; first += a_pass) {
        V v[InFlight];
#pragma unroll
        for (int u = 0; u < InFlight; ++u) {
            const long long vector = first + (long long)u * 256;
            if (vector < vectors) v[u] = load<T, StreamLoads>(in + vector);
        }
        T sums[InFlight][kRowsAVector];
#pragma unroll
        for (int u = 0; u < InFlight; ++u) {
            const T *e = reinterpret_cast<const T *>(&v[u]);
#pragma unroll
            for (int r = 0; r < kRowsAVector; ++r) {
                T s = T(0);
#pragma unroll
                for (int j = 0; j < R; ++j) s += e[r * R + j];
                sums[u][r] = s;
            }
        }
        if constexpr (Pairs && kRowsAVector == 1) {
            // Whole passes only (the probe's shapes): even lane stores (its row u, odd's row u),
            // odd lane (even's row u + 1, its row u + 1).
            using P = typename vec<T>::pair;
            const bool odd = threadIdx.x & 1;
#pragma unroll
            for (int u = 0; u < InFlight; u += 2) {
                const T got = __shfl_xor_sync(0xffffffffu, odd ? sums[u][0] : sums[u + 1][0], 1);
                const long long row = first - (odd ? 1 : 0) + (long long)(u + (odd ? 1 : 0)) * 256;
                P p;
                p.x = odd ? got : sums[u][0];
                p.y = odd ? sums[u + 1][0] : got;
                if (row < rows) {
                    if constexpr (StreamStores) __stcs(reinterpret_cast<P *>(out + row), p);
                    else *reinterpret_cast<P *>(out + row) = p;
                }
            }
        } else {
#pragma unroll
            for (int u = 0; u < InFlight; ++u)
#pragma unroll
                for (int r = 0; r < kRowsAVector; ++r) {
                    const long long row = (first + (long long)u * 256) * kRowsAVector + r;
                    if (row < rows) store<T, StreamStores>(out + row, sums[u][r]);
                }
        }
    }
}

// CuPy's kernel for these shapes, as its reduction plans them (block_stride 256 outputs a block of
// 512 threads): thread t reads element t / 256 of row t % 256 of its block's 256 rows (8 or 4
// bytes, a warp's load covering half of 512 bytes), the pair added through shared memory, the
// first 256 threads each storing one row.
template <class T>
__global__ void __launch_bounds__(512) element_a_thread(const T *in, T *out, long long rows) {
    __shared__ T second[256];
    const long long row = (long long)blockIdx.x * 256 + threadIdx.x % 256;
    const int j = threadIdx.x / 256;
    const T e = row < rows ? in[row * 2 + j] : T(0);
    if (j == 1) second[threadIdx.x - 256] = e;
    __syncthreads();
    if (j == 0 && row < rows) out[row] = e + second[threadIdx.x];
}
"""

VARIANTS = {  # name: (in flight, stream loads, stream stores, pairs, waves, blocks an SM (0: as many as fit))
    "copy of cured's": (8, False, False, False, 0, 0),
    "1 in flight": (1, False, False, False, 0, 0),
    "2 in flight": (2, False, False, False, 0, 0),
    "2 blocks an SM": (8, False, False, False, 0, 2),
    "3 blocks an SM": (8, False, False, False, 0, 3),
    "4 blocks an SM": (8, False, False, False, 0, 4),
    "2 in flight, 4 blocks an SM": (2, False, False, False, 0, 4),
    "pairs + st.global.cs": (8, False, True, True, 0, 0),
}


def main():
    names = ["element_a_thread<double>", "element_a_thread<float>"]
    cases = (("float64", 1 << 27, 2), ("float32", 1 << 26, 4), ("float32", 1 << 27, 2))
    for dtype, _, r in cases:
        t = "double" if dtype == "float64" else "float"
        for flight, sl, ss, pairs, *_ in VARIANTS.values():
            names.append(f"packed<{t}, {r}, {flight}, {str(sl).lower()}, {str(ss).lower()}, {str(pairs).lower()}>")
    module = cp.RawModule(code=SOURCE, options=("-std=c++17",), name_expressions=sorted(set(names)))
    device = cp.cuda.Device()
    sms = device.attributes["MultiProcessorCount"]
    shared_an_sm = device.attributes["MaxSharedMemoryPerMultiprocessor"]
    name = cp.cuda.runtime.getDeviceProperties(device.id)["name"].decode()
    print(f"{name}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {sms} SMs", flush=True)
    rng = cp.random.default_rng(2026)
    for dtype, rows, r in cases:
        t = "double" if dtype == "float64" else "float"
        x = rng.standard_normal((rows, r), dtype=dtype)
        flat = x.reshape(-1)
        out = cp.empty(rows, dtype)
        nbytes = x.nbytes + out.nbytes
        v = 16 // x.itemsize
        subjects = {"cupy rows": lambda: x.sum(axis=1)}
        if cured is not None:
            one = cp.empty((), dtype)
            subjects["V9 flat (reads 2/3 of the bytes)"] = lambda: cured.sum(flat, out=one)
            subjects["cured rows"] = lambda: cured.sum(x, axis=1, out=out)
        reference = x.sum(axis=1)
        lines = []
        if r == 2:
            kernel = module.get_function(f"element_a_thread<{t}>")
            grid = -(-rows // 256)
            result = cp.empty(rows, dtype)
            kernel((grid,), (512,), (x, result, np.int64(rows)))
            lines.append(f"  cupy's plan, an element a thread: grid {grid} x 512, output equal to cupy's: "
                         f"{bool(cp.array_equal(result, reference))}")
            subjects["cupy's plan, an element a thread"] = lambda kernel=kernel, grid=grid, result=result: kernel(
                (grid,), (512,), (x, result, np.int64(rows)))
        for label, (flight, sl, ss, pairs, waves, per_sm_cap) in VARIANTS.items():
            if pairs and r != v:
                continue
            name = f"packed<{t}, {r}, {flight}, {str(sl).lower()}, {str(ss).lower()}, {str(pairs).lower()}>"
            kernel = module.get_function(name)
            per_sm = min(2048 // 256, 65536 // (256 * ((kernel.num_regs + 7) // 8 * 8)))
            shared = 0
            if per_sm_cap:
                shared = shared_an_sm // per_sm_cap - 2048  # room for the per-block reserve
                # One kernel serves several caps: allow the largest (a bound, not a reservation).
                kernel.max_dynamic_shared_size_bytes = max(shared, kernel.max_dynamic_shared_size_bytes)
                per_sm = per_sm_cap
            passes = -(-(rows * r // v) // (256 * flight))
            grid = waves * per_sm * sms if waves else passes
            result = cp.empty(rows, dtype)
            kernel((grid,), (256,), (x, result, np.int64(rows)), shared_mem=shared)
            same = bool(cp.array_equal(result, reference))
            lines.append(f"  {label}: {kernel.num_regs} registers, {per_sm} blocks an SM, grid {grid}, "
                         f"output equal to cupy's: {same}")
            subjects[label] = lambda kernel=kernel, grid=grid, result=result, shared=shared: kernel(
                (grid,), (256,), (x, result, np.int64(rows)), shared_mem=shared)
        print(f"{dtype} ({rows}, {r}) along 1:", flush=True)
        print("\n".join(lines), flush=True)
        for fn in subjects.values():
            fn()
        times = times_in_turns(subjects, subjects["cupy rows"], ROUNDS)
        print_medians(times, nbytes, "cupy rows")
        del x, flat, out, subjects, reference
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
