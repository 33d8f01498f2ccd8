"""Do blocks that each read one contiguous stretch, many waves of them in launch order (CuPy's and
CUB's row sums), read faster than V9's grid of two waves of blocks striding over 256 KiB tiles?
Issue 13's row sums trail CuPy by 1 to 4% where CuPy's block-a-row kernel read faster than V9's flat
sum of the same bytes (H200, 2026-11-24: (2^14, 2^14) float32 along 1, CuPy 4519 GB/s, V9 4378).

One 1 GiB array (2^28 float32, 2^27 float64), device time (CUDA events, median of ROUNDS, subjects
in turns behind a pad): V9 on the flat array (its own grid, and one block a tile), CuPy's and cured's
sums along 1 of it as (2^14, 2^14) / (2^13, 2^14), CUB's segmented reduce (version="cub"), and a
probe kernel with V9's walk (256 threads, 8 independent 16-byte loads a thread a step of 32 KiB)
whose block sums stretches of S bytes: one block a stretch ("blocks"), or two waves of blocks
striding over the stretches as V9 does ("waves"); and one with cured's row walk, a warp a unit of
U bytes (lane l loads vectors l, l + 32, ..., 8 in flight), a block 8 consecutive units. The probe's additions are in any order: it
measures reading, nothing else. Prints a table; nothing reads it.

    python scripts/probes/row_walks.py
"""
import time

import cupy as cp
import numpy as np

import cured
from turns import forced, print_medians, times_in_turns  # this directory

ROUNDS = 25
SOURCE = r"""
__device__ float add_lanes(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ double add_lanes(double2 v) { return v.x + v.y; }
template <class V, class T>
__device__ void stretch_sum(const V *in, T *out, long long vectors_per_stretch, long long stretches) {
    __shared__ T warp_sums[8];
    for (long long s = blockIdx.x; s < stretches; s += gridDim.x) {
        const V *p = in + s * vectors_per_stretch;
        T acc = 0;
        for (long long step = 0; step < vectors_per_stretch; step += 2048) {
            V v[8];
#pragma unroll
            for (int u = 0; u < 8; ++u) v[u] = p[step + u * 256 + threadIdx.x];
#pragma unroll
            for (int u = 0; u < 8; ++u) acc += add_lanes(v[u]);
        }
        for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
        if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
        __syncthreads();
        if (threadIdx.x < 32) {
            acc = threadIdx.x < 8 ? warp_sums[threadIdx.x] : T(0);
            for (int o = 4; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
            if (threadIdx.x == 0) out[s] = acc;
        }
        __syncthreads();
    }
}
// A warp a unit of `vectors_per_unit` vectors, as cured's row segments: lane l loads vectors l,
// l + 32, ..., 8 in flight (4 KiB a warp a round); a block is 8 consecutive units.
template <class V, class T>
__device__ void warp_units(const V *in, T *out, long long vectors_per_unit, long long units) {
    const long long unit = (blockIdx.x * 256ll + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (unit >= units) return;
    const V *p = in + unit * vectors_per_unit;
    T acc = 0;
    for (long long c = lane; c < vectors_per_unit; c += 256) {
        V v[8];
#pragma unroll
        for (int u = 0; u < 8; ++u) v[u] = p[c + u * 32];
#pragma unroll
        for (int u = 0; u < 8; ++u) acc += add_lanes(v[u]);
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (lane == 0) out[unit] = acc;
}
extern "C" __global__ void __launch_bounds__(256) units_f32(const float4 *in, float *out, long long vpu, long long u) {
    warp_units(in, out, vpu, u);
}
extern "C" __global__ void __launch_bounds__(256) units_f64(const double2 *in, double *out, long long vpu, long long u) {
    warp_units(in, out, vpu, u);
}
extern "C" __global__ void __launch_bounds__(256) stretch_f32(const float4 *in, float *out, long long vps, long long s) {
    stretch_sum(in, out, vps, s);
}
extern "C" __global__ void __launch_bounds__(256) stretch_f64(const double2 *in, double *out, long long vps, long long s) {
    stretch_sum(in, out, vps, s);
}
"""


def main():
    module = cp.RawModule(code=SOURCE, options=("-std=c++17",))
    sms = cured.device_info()["multiprocessors"]
    print(f"{cured.device_info()['name']}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {sms} SMs", flush=True)
    rng = cp.random.default_rng(2026)
    for dtype, shape in (("float32", (1 << 14, 1 << 14)), ("float64", (1 << 13, 1 << 14))):
        kernel = module.get_function("stretch_f32" if dtype == "float32" else "stretch_f64")
        units = module.get_function("units_f32" if dtype == "float32" else "units_f64")
        regs = kernel.num_regs
        per_sm = min(2048 // 256, 65536 // (256 * ((regs + 7) // 8 * 8)))
        x = rng.standard_normal(shape, dtype=dtype)
        flat, one = x.reshape(-1), cp.empty((), dtype)
        rows_out = cp.empty(shape[0], dtype)
        nbytes = x.nbytes
        tiles = cured.versions()[9].shape(flat.size, dtype)
        subjects = {
            "V9 flat": lambda: cured.sum(flat, out=one),
            "cupy rows": lambda: x.sum(axis=1),
            "cured rows": lambda: cured.sum(x, axis=1, out=rows_out),
            "cub rows": lambda: cured.sum(x, axis=1, out=rows_out, version="cub"),
        }
        n_tiles = tiles.get("tiles") if isinstance(tiles, dict) else None
        if n_tiles:
            subjects[f"V9 one block a tile ({n_tiles})"] = forced(n_tiles, lambda: cured.sum(flat, out=one))
        for stretch_kib in (32, 64, 128, 256, 1024):
            stretches = nbytes // (stretch_kib << 10)
            vps = (stretch_kib << 10) // 16
            out = cp.empty(stretches, dtype)
            for label, grid in (("blocks", stretches), ("waves", 2 * per_sm * sms)):
                grid = min(grid, stretches)
                subjects[f"{stretch_kib} KiB {label} ({grid})"] = (
                    lambda grid=grid, out=out, vps=vps, stretches=stretches:
                    kernel((grid,), (256,), (x, out, np.int64(vps), np.int64(stretches))))
        for unit_kib in (4, 8, 16, 32):
            count = nbytes // (unit_kib << 10)
            out = cp.empty(count, dtype)
            subjects[f"warp units of {unit_kib} KiB"] = (
                lambda count=count, out=out, vpu=(unit_kib << 10) // 16:
                units((count * 32 // 256,), (256,), (x, out, np.int64(vpu), np.int64(count))))
        for fn in subjects.values():
            fn()
        row_bytes = shape[1] * x.itemsize
        check = cp.empty(shape[0], dtype)
        kernel((shape[0],), (256,), (x, check, np.int64(row_bytes // 16), np.int64(shape[0])))
        check_units = cp.empty(shape[0], dtype)
        units((shape[0] * 32 // 256,), (256,), (x, check_units, np.int64(row_bytes // 16), np.int64(shape[0])))
        reference = x.sum(axis=1)
        print(f"{dtype} {shape}: probe kernels {regs} / {units.num_regs} registers, {per_sm} blocks an SM; a row "
              f"a stretch, a row a unit against cupy's rows: max |diff| {float(cp.abs(check - reference).max()):.3g}, "
              f"{float(cp.abs(check_units - reference).max()):.3g}; V9 tiles {tiles}", flush=True)
        times = times_in_turns(subjects, subjects["V9 flat"], ROUNDS)
        print_medians(times, nbytes, "V9 flat")
        del x, flat, subjects
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
