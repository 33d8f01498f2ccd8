"""Writes notebooks/speedup.ipynb from these cells: edit here, run `python scripts/make_notebook.py`,
then execute the notebook (README's figures: CURED_NOTEBOOK_FIGURES=docs)."""
import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

cells = []
md = lambda s: cells.append(new_markdown_cell(s.strip()))
code = lambda s: cells.append(new_code_cell(s.strip()))

md(r"""
# cured: the speedup table, the counters behind it, and the call as users time it

A parallel sum, from naive to fast. Each version changes one idea (`csrc/kernels/`, one file a version):

| V | idea | what it fixes |
| --- | --- | --- |
| 0 | interleaved tree in global memory | the starting point: every step reads and writes device memory |
| 1 | the same tree in shared memory | device memory read once per element |
| 2 | `index = 2*s*tid` | working threads packed into whole warps (no divergence) |
| 3 | sequential addressing | no shared-memory bank conflicts |
| 4 | add during load | no thread idle in the first step, half the blocks |
| 5 | unroll the last warp | no block barrier for the last six steps (`__syncwarp`) |
| 6 | completely unroll | the block size known at compile time, no loop overhead |
| 7 | 128 elements a thread | the tree paid once per 32768 elements |
| 8 | warp shuffle | the last warp reduces in registers |
| 9 | one launch, fixed tiles (cured's own) | 16-byte loads, 8 in flight, a grid sized to the GPU, one launch, an order fixed by the length |
| 10 | exact (cured's own, `cured.fsum`) | no rounding order at all: every bit kept, the sum rounded once |

CUB's `DeviceReduce::Sum`, NVIDIA's library, is measured in the same run as the reference.
Every figure comes from rows of one schema (`cured.results`): with a GPU, the device-time
sections measure now; without one, and always for the hardware counters and the wall times (which
need Nsight Compute in a fresh process, and PyTorch, CuPy and JAX), they read the files in `results/`
that `python -m cured --record results/` wrote, and say so.
""")

code(r"""
%matplotlib inline
import datetime
import os
from pathlib import Path

import matplotlib.pyplot as plt
from IPython.display import Markdown, display

import cured
from cured import results
from cured.profiling import METRICS

ROOT = next(p for p in [Path.cwd(), *Path.cwd().parents] if (p / "results").is_dir())
COMMITTED = {}  # device name -> (header, rows), one file per device
for path in sorted((ROOT / "results").glob("*.json")):
    header, rows = results.load(path)
    COMMITTED[header["device"]["name"]] = (header, rows, path.relative_to(ROOT))
SWEEP = ["V0", "V3", "V6", "V8", "V9", "CUB"]
LENGTHS = [1 << k for k in range(10, 31)]

if cured.device_count() > 0:
    device = cured.device_info()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    rows = cured.bench(lengths=[1 << 25]).to_rows(date)
    rows += cured.bench(versions=[0, 3, 6, 8, 9, "cub"], lengths=LENGTHS[:19], end_to_end=False).to_rows(date)
    rows += cured.bench(versions=[9, "cub"], lengths=LENGTHS[:19], dtype="float64", end_to_end=False).to_rows(date)
    print(f"Measured now on this machine's {device['name']}, {date}.")
else:
    header, rows, path = COMMITTED.get("NVIDIA H200") or next(iter(COMMITTED.values()))
    device, date = header["device"], header["date"]
    print(f"No GPU here: showing the committed results measured on {device['name']} on {date} ({path}).")
peak_gbs = device["peak_bandwidth_bytes_per_s"] / 1e9
timed = results.select(rows, measure="device", input="device")  # standard-normal data
""")

md(r"""
## The speedup table

One whole reduction of 2^25 = 32M float32 elements: the device time of every pass (CUDA events,
median of 20 runs after 3 warm-ups), the bandwidth (input bytes over that time), the fraction of
the theoretical peak, and the speedups.
""")

code(r"""
N = 1 << 25
table = results.select(timed, n=N, dtype="float32")
v0 = results.lookup(table, subject="V0").median
lines, previous = [], None
for r in table:
    gbs = 4 * N / r.median / 1e9
    lines.append([r.subject, f"{r.median * 1e6:.2f}", f"{gbs:.0f}", f"{100 * gbs / peak_gbs:.1f}%", f"{v0 / r.median:.2f}x",
                  f"{previous / r.median:.2f}x" if previous and r.subject != "CUB" else ""])
    previous = r.median if r.subject != "CUB" else previous
display(Markdown(f"**{device['name']}**, theoretical {peak_gbs:.0f} GB/s, {date}, {N:,} float32 elements\n\n"
                 + results.markdown(["version", "median us", "GB/s", "% of peak", "vs V0", "vs previous"], lines)))
""")

md(r"""
## Time and bandwidth per version

Each bar carries its speedup over V0; the dashed line is the theoretical peak; CUB is hatched.
""")

code(r"""
colors = ["#c44e52" if r.subject == "CUB" else "#4c72b0" for r in table]
hatches = ["//" if r.subject == "CUB" else "" for r in table]
fig, (ax_time, ax_bw) = plt.subplots(1, 2, figsize=(15, 5.2))
for ax, values, unit in [(ax_time, [r.median * 1e6 for r in table], "time (us)"),
                         (ax_bw, [4 * N / r.median / 1e9 for r in table], "bandwidth (GB/s)")]:
    bars = ax.bar(range(len(table)), values, color=colors, hatch=hatches, edgecolor="black", linewidth=0.5)
    for bar, r in zip(bars, table):
        ax.annotate(f"{v0 / r.median:.1f}x", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(table)), [r.subject for r in table], fontsize=9)
    ax.set_ylabel(unit)
ax_bw.axhline(peak_gbs, linestyle="--", color="gray")
ax_bw.annotate(f"theoretical peak {peak_gbs:.0f} GB/s", (0, peak_gbs), xytext=(0, -12), textcoords="offset points", fontsize=8)
ax_time.set_title(f"{N:,} float32 elements: time per version (speedup over V0 on each bar)")
ax_bw.set_title(f"{device['name']}, {date}: bandwidth per version")
fig.tight_layout()
display(fig)
plt.close(fig)  # shown once, under the inline backend as under Agg
bars_figure = fig
""")

md(r"""
## Bandwidth against length

Small sums are bound by latency (a launch and a few dependent memory trips), large ones by the
memory; the versions differ in how early they reach it.
""")

code(r"""
fig, ax = plt.subplots(figsize=(10, 5.5))
for subject in SWEEP:
    line = sorted(results.select(timed, subject=subject, dtype="float32"), key=lambda r: r.n)
    ax.plot([r.n for r in line], [4 * r.n / r.median / 1e9 for r in line], marker="o", markersize=3,
            linestyle="--" if subject == "CUB" else "-", color="black" if subject == "CUB" else None, label=subject)
ax.axhline(peak_gbs, linestyle=":", color="gray", label=f"theoretical peak {peak_gbs:.0f} GB/s")
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("elements (float32)")
ax.set_ylabel("bandwidth (GB/s)")
ax.set_title(f"{device['name']}, {date}")
ax.legend(fontsize=8)
ax.grid(True, which="both", alpha=0.3)
fig.tight_layout()
display(fig)
plt.close(fig)
sweep_figure = fig
""")

md(r"""
## V9 against CUB, float32 and float64

Left: CUB's time over V9's, both measured in the same run (above 1, V9 is faster). Right: the
device time of one sum at small lengths, where the launch, not the memory, sets the time.
""")

code(r"""
fig, (ax_ratio, ax_small) = plt.subplots(1, 2, figsize=(15, 5.2))
for dtype in ("float32", "float64"):
    v9 = {r.n: r.median for r in results.select(timed, subject="V9", dtype=dtype)}
    cub = {r.n: r.median for r in results.select(timed, subject="CUB", dtype=dtype)}
    lengths = sorted(set(v9) & set(cub))
    ax_ratio.plot(lengths, [cub[n] / v9[n] for n in lengths], marker="o", markersize=3, label=dtype)
    small = [n for n in lengths if n <= 1 << 16]
    ax_small.plot(small, [v9[n] * 1e6 for n in small], marker="o", markersize=3, label=f"V9 {dtype}")
    ax_small.plot(small, [cub[n] * 1e6 for n in small], marker="x", linestyle="--", label=f"CUB {dtype}")
ax_ratio.axhline(1.0, color="gray", linestyle=":")
ax_ratio.set_title(f"CUB time / V9 time ({device['name']}, {date})")
ax_small.set_title("One sum, 2^10 to 2^16 elements (median us, device time)")
for ax in (ax_ratio, ax_small):
    ax.set_xscale("log", base=2)
    ax.set_xlabel("elements")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
fig.tight_layout()
display(fig)
plt.close(fig)
v9_figure = fig
""")

md(r"""
## V10, exact, beside V9 and CUB

`cured.fsum` (V10) returns the correctly rounded sum. Its device time against V9 (which rounds at
every addition, in a fixed order) and CUB, on standard-normal data (solid) and on data whose
exponents span the dtype's whole range (dashed, `cured.benchmark.full_range`), from the committed
results of each GPU. V10's fast path is floating bins in registers, which standard-normal data
almost never leaves; full-range data mostly takes its exact path in shared memory (each thread's
float64 bins by exponent for float32, integer digits for float64).
""")

code(r"""
fig, axes = plt.subplots(len(COMMITTED), 2, figsize=(15, 5.2 * len(COMMITTED)), squeeze=False)
for row, (name, (header, committed_rows, path)) in zip(axes, COMMITTED.items()):
    for ax, dtype in zip(row, ("float32", "float64")):
        item = 4 if dtype == "float32" else 8
        for data, style in (("device", "-"), ("full_range", "--")):
            for subject, color in (("V9", "#4c72b0"), ("V10", "#dd8452"), ("CUB", "black")):
                line = sorted(results.select(committed_rows, measure="device", input=data, dtype=dtype, subject=subject),
                              key=lambda r: r.n)
                label = f"{subject}, {'standard normal' if data == 'device' else 'full range'}"
                ax.plot([r.n for r in line], [item * r.n / r.median / 1e9 for r in line], linestyle=style, color=color,
                        marker="o", markersize=2, label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(f"elements ({dtype})")
        ax.set_ylabel("bandwidth (GB/s), device time")
        ax.set_title(f"{name}, {header['date']}: V10 beside V9 and CUB, {dtype}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
fig.tight_layout()
display(fig)
plt.close(fig)
exact_figure = fig
""")

md(r"""
## Why each version is faster: hardware counters

Nsight Compute (`python -m cured --profile`, recorded in `results/`) over one reduction of 2^25
float32 elements, a panel a metric: the counter each version's idea should move. V2 trades
divergence for bank conflicts, which V3 removes; V4 to V6 cut instructions and barrier stalls;
V7 and V9 put loads in flight, so their warps wait on memory instead, and DRAM throughput rises.
""")

code(r"""
devices = list(COMMITTED)
fig, axes = plt.subplots(len(devices) * 2, 5, figsize=(17, 5.6 * len(devices)), squeeze=False)
for d, name in enumerate(devices):
    header, committed_rows, path = COMMITTED[name]
    counters = results.select(committed_rows, measure="counter")
    subjects = list(dict.fromkeys(r.subject for r in counters))
    for k, metric in enumerate(METRICS):
        ax = axes[2 * d + k // 5][k % 5]
        values = [results.lookup(counters, subject=s, metric=metric.name).median for s in subjects]
        values = [v * 1e6 for v in values] if metric.unit == "s" else values
        ax.bar(range(len(subjects)), values, color=["#c44e52" if s == "CUB" else "#4c72b0" for s in subjects])
        ax.set_xticks(range(len(subjects)), [s.replace("V", "") for s in subjects], fontsize=7)
        ax.set_title(f"{metric.label}" + (f"\n{name}, {header['date'][:10]}" if k == 0 else ""), fontsize=9)
        if metric.unit == "count" and max(values) > 0:
            ax.set_yscale("symlog")
        ax.tick_params(axis="y", labelsize=7)
fig.tight_layout()
display(fig)
plt.close(fig)
counters_figure = fig
""")

md(r"""
## The call as users time it

Wall time of one call that returns the sum to Python (`time.perf_counter`, median), data already on
the GPU, float32, recorded with `python -m cured --latency`: cured on a CuPy array and a PyTorch
tensor, against `t.sum().item()` and `float(c.sum())`, with the floor beside them (one minimal
kernel writing one value into pinned host memory and the wait for it, from C).
""")

code(r"""
fig, axes = plt.subplots(1, len(COMMITTED), figsize=(8 * len(COMMITTED), 5.2), squeeze=False)
for ax, (name, (header, committed_rows, path)) in zip(axes[0], COMMITTED.items()):
    wall = results.select(committed_rows, measure="wall", dtype="float32")
    dates = set()  # the wall rows' own record, which a --latency record replaces apart from the file's others
    for subject, input, label, style in [("floor", "device", "floor (C)", ":"), ("cured", "cupy", "cured.sum(cupy)", "-"),
                                         ("cured", "torch", "cured.sum(torch)", "-"), ("torch", "torch", "t.sum().item()", "--"),
                                         ("cupy", "cupy", "float(c.sum())", "--")]:
        line = sorted(results.select(wall, subject=subject, input=input), key=lambda r: r.n)
        dates.update(r.date for r in line)
        ax.plot([r.n for r in line], [r.median * 1e6 for r in line], linestyle=style, marker="o", markersize=3, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("elements (float32)")
    ax.set_ylabel("wall time of one call (us)")
    ax.set_title(f"{name}, {' / '.join(sorted(dates))}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
fig.tight_layout()
display(fig)
plt.close(fig)
wall_figure = fig
""")

md(r"""
Set `CURED_NOTEBOOK_FIGURES` to a folder to save the figures there (README's images in `docs/`
come from this notebook run on the committed results).
""")

code(r"""
folder = os.environ.get("CURED_NOTEBOOK_FIGURES")
if folder:
    out = Path(folder) if Path(folder).is_absolute() else ROOT / folder
    out.mkdir(parents=True, exist_ok=True)
    figures = {"speedup_bars.png": bars_figure, "bandwidth_sweep.png": sweep_figure, "v9_against_cub.png": v9_figure,
               "counters.png": counters_figure, "wall_time.png": wall_figure, "v10_exact.png": exact_figure}
    for file, figure in figures.items():
        figure.savefig(out / file, dpi=100)
    print("saved", ", ".join(figures), "in", out)
""")

nb = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
nbformat.write(nb, "notebooks/speedup.ipynb")
