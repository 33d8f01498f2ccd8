"""Prints README's result tables, in Markdown, from the files in results/ (one a device).

    python scripts/readme_tables.py > /tmp/tables.md     # then paste each table into README

Every figure in README's "Results" comes from here, so README says what the files say.
"""
import sys
from pathlib import Path

from cured import results
from cured.profiling import METRICS, profile_table
from cured.results import lookup, markdown, select, us

ROOT = Path(__file__).resolve().parent.parent
N = 1 << 25


def load_all():
    return [results.load(p) for p in sorted((ROOT / "results").glob("*.json"), reverse=True)]  # H200 first


def short(name):
    return name.replace("NVIDIA ", "").replace(" 80GB HBM3", "")


def speedup(files):
    header = ["version"]
    for h, _ in files:
        d = short(h["device"]["name"])
        header += [f"{d} us", f"{d} GB/s", f"{d} % of peak", f"{d} vs V0"]
    subjects = list(dict.fromkeys(r.subject for r in select(files[0][1], measure="device", input="device", n=N, dtype="float32")))
    lines = []
    for s in subjects:
        line = [s]
        for h, rows in files:
            peak = h["device"]["peak_bandwidth_bytes_per_s"]
            r, v0 = lookup(rows, measure="device", input="device", n=N, dtype="float32", subject=s), \
                lookup(rows, measure="device", input="device", n=N, dtype="float32", subject="V0")
            gbs = 4 * N / r.median / 1e9
            line += [f"{r.median * 1e6:.2f}", f"{gbs:.0f}", f"{100e9 * gbs / peak:.1f}%", f"{v0.median / r.median:.2f}x"]
        lines.append(line)
    return markdown(header, lines)


def sweep(rows, dtype="float32", subjects=("V0", "V3", "V4", "V6", "V8", "V9", "CUB")):
    device = select(rows, measure="device", input="device", dtype=dtype)
    item = 4 if dtype == "float32" else 8
    lengths = sorted({r.n for r in device if (r.n.bit_length() - 1) % 2 == 0 and r.n & (r.n - 1) == 0})
    lines = [[f"2^{n.bit_length() - 1}"] + [f"{item * n / lookup(device, subject=s, n=n).median / 1e9:.3g}"
                                           if lookup(device, subject=s, n=n) else "" for s in subjects]
             for n in lengths]
    return markdown(["length"] + list(subjects), lines)


def v9_against_cub(files):
    lines = []
    for h, rows in files:
        for dtype in ("float32", "float64"):
            device = select(rows, measure="device", input="device", dtype=dtype)
            ratios = {r.n: lookup(device, subject="CUB", n=r.n).median / r.median for r in select(device, subject="V9")}
            behind = [f"2^{n.bit_length() - 1} ({q:.3f})" for n, q in sorted(ratios.items()) if q < 1]
            peak = h["device"]["peak_bandwidth_bytes_per_s"]
            big = lookup(device, subject="V9", n=1 << 28)
            lines.append([short(h["device"]["name"]), dtype, f"{min(ratios.values()):.3f} to {max(ratios.values()):.3f}",
                          ", ".join(behind) or "none",
                          f"{100 * (4 if dtype == 'float32' else 8) * (1 << 28) / big.median / peak:.1f}%"])
    return markdown(["GPU", "dtype", "CUB time / V9 time, 2^10 to 2^30", "lengths where CUB is ahead",
                     "V9 at 2^28, % of peak"], lines, "lllll")


def wall(files, dtype="float32", lengths=(1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 20, 1 << 24, 1 << 28, 1 << 30)):
    out = []
    for h, rows in files:
        w = select(rows, measure="wall", dtype=dtype)
        cols = [("floor", "device", "floor"), ("cured", "cupy", "cured (CuPy)"), ("cured", "torch", "cured (PyTorch)"),
                ("cured", "cai", "cured (CAI only)"), ("cured", "jax", "cured (JAX)"), ("cured", "numba", "cured (Numba)"),
                ("torch", "torch", "`t.sum().item()`"), ("cupy", "cupy", "`float(c.sum())`")]
        lines = []
        for n in lengths:
            got = {label: lookup(w, subject=s, input=i, n=n) for s, i, label in cols}
            best = min(got["`t.sum().item()`"].median, got["`float(c.sum())`"].median)
            lines.append([f"2^{n.bit_length() - 1}"] + [us(r.median) for r in got.values()]
                         + [f"{got['cured (CuPy)'].median / got['floor'].median:.2f}",
                            f"{best / got['cured (CuPy)'].median:.2f}", f"{best / got['cured (PyTorch)'].median:.2f}"])
        out.append(f"**{h['device']['name']}**, {dtype}, {select(w, subject='floor')[0].date}:\n\n" + markdown(
            ["length"] + [label for _, _, label in cols] + ["cured (CuPy) / floor", "best other / cured (CuPy)",
                                                            "best other / cured (PyTorch)"], lines))
    return "\n\n".join(out)


def wall_summary(files):
    """Over 2^10 to 2^16 and 2^10 to 2^30: the worst ratios, per device and dtype."""
    lines = []
    for h, rows in files:
        for dtype in ("float32", "float64"):
            w = select(rows, measure="wall", dtype=dtype)
            ns = sorted({r.n for r in w})
            small = [n for n in ns if n <= 1 << 16]

            def m(s, i, n):
                return lookup(w, subject=s, input=i, n=n).median

            floor = max(m("cured", "cupy", n) / m("floor", "device", n) for n in small)
            best = lambda n: min(m("torch", "torch", n), m("cupy", "cupy", n))
            inputs = ("cupy", "torch", "jax", "numba")
            # three decimals: the least ratios sit at their targets (2, 1), where two would round 1.999 up
            lines.append([short(h["device"]["name"]), dtype, f"{floor:.3f}",
                          f"{min(best(n) / m('cured', 'cupy', n) for n in small):.3f}",
                          f"{min(best(n) / m('cured', 'torch', n) for n in small):.3f}",
                          " / ".join(f"{min(best(n) / m('cured', i, n) for n in ns):.3f}" for i in inputs)])
    return markdown(["GPU", "dtype", "worst cured (CuPy) / floor, 2^10-2^16 (target 1.3)",
                     "least speedup over the faster of PyTorch and CuPy, CuPy input, 2^10-2^16 (target 2)",
                     "same, PyTorch input",
                     "least speedup, 2^10-2^30 (target 1): CuPy / PyTorch / JAX / Numba input"],
                    lines, "llrrrr")


def queued(files):
    lines = []
    for h, rows in files:
        for dtype in ("float32", "float64"):
            q = select(rows, measure="host_async", dtype=dtype)
            ns = sorted({r.n for r in q})
            for n in (1 << 10, 1 << 20, 1 << 30):
                if n in ns:
                    lines.append([short(h["device"]["name"]), dtype, f"2^{n.bit_length() - 1}",
                                  us(lookup(q, subject="cured", input="cupy", n=n).median),
                                  us(lookup(q, subject="cured", input="torch", n=n).median),
                                  us(lookup(q, subject="torch", input="torch", n=n).median)])
    return markdown(["GPU", "dtype", "length", "cured.sum(c, out=o)", "cured.sum(t, out=o)", "torch.sum(t)"], lines, "lllrrr")


def host(files):
    """Host arrays (`python -m cured --latency`): cured.sum as called (device="auto"), each place
    forced, numpy.sum and the pinned copy, a table a GPU and dtype."""
    from cured.walltime import host_table

    subjects = ("cured", "cured-cpu", "cured-gpu", "numpy", "pinned_copy")
    out = []
    for h, rows in files:
        e = select(rows, measure="end_to_end", input="host", subject=subjects)
        for dtype in ("float32", "float64"):
            d = select(e, dtype=dtype)
            if d:
                out.append(f"{short(h['device']['name'])}, {dtype} ({d[0].date}):\n\n" +
                           host_table(d, sorted({r.n for r in d})))
    return "\n\n".join(out)


def exact(files, lengths=(1 << 10, 1 << 16, 1 << 20, 1 << 26, 1 << 28, 1 << 30)):
    """V10 against V9 (and CUB), device time: V9's time over V10's on both kinds of data."""
    lines = []
    for h, rows in files:
        for dtype in ("float32", "float64"):
            item = 4 if dtype == "float32" else 8
            for data, label in (("device", "standard normal"), ("full_range", "full range")):
                d = select(rows, measure="device", input=data, dtype=dtype)
                cells = []
                for n in lengths:
                    v9, v10, cub = (lookup(d, subject=s, n=n) for s in ("V9", "V10", "CUB"))
                    cells.append(f"{v9.median / v10.median:.2f} ({item * n / v10.median / 1e9:.0f} GB/s)" if n >= 1 << 20
                                 else f"{v9.median / v10.median:.2f} ({us(v10.median)} us)")
                lines.append([short(h["device"]["name"]), dtype, label] + cells)
    return markdown(["GPU", "dtype", "data"] + [f"2^{n.bit_length() - 1}" for n in lengths], lines, "lll" + "r" * len(lengths))


def exact_cpu(files):
    lines = []
    for h, rows in files:
        w = select(rows, measure="wall", input="host")
        for dtype in ("float32", "float64"):
            item = 4 if dtype == "float32" else 8
            mine, theirs = lookup(w, subject="V10-cpu", dtype=dtype), lookup(w, subject="math.fsum", dtype=dtype)
            lines.append([short(h["device"]["name"]), dtype, f"{item * mine.n / mine.median / 1e9:.2f}",
                          f"{item * theirs.n / theirs.median / 1e9:.2f}"])
    return markdown(["machine (its host CPU)", "dtype", "cured.fsum(device='cpu'), GB/s, one core", "math.fsum, GB/s"],
                    lines, "llrr")


def axis(files):
    """Sums along axes (`python -m cured --axis`), a table a GPU."""
    from cured.axis_bench import axis_table

    return "\n\n".join(f"{short(h['device']['name'])} ({select(rows, input='axis')[0].date}):\n\n" +
                         axis_table(select(rows, input="axis")) for h, rows in files if select(rows, input="axis"))


def main():
    files = load_all()
    print("## speedup\n\n" + speedup(files))
    for h, rows in files:
        print(f"\n## counters {h['device']['name']}\n\n" + profile_table(select(rows, measure="counter")))
    print("\n## sweep H200\n\n" + sweep(files[0][1]))
    print("\n## v9 against cub\n\n" + v9_against_cub(files))
    print("\n## wall\n\n" + wall(files))
    print("\n## wall summary\n\n" + wall_summary(files))
    print("\n## queued\n\n" + queued(files))
    print("\n## host\n\n" + host(files))
    print("\n## exact (V9 time / V10 time)\n\n" + exact(files))
    print("\n## exact cpu\n\n" + exact_cpu(files))
    print("\n## axis\n\n" + axis(files))
    print("\n## metrics\n\n" + markdown(["column", "Nsight Compute metric(s)", "combined over a version's kernels",
                                          "what it shows"],
                                         [[m.label, ", ".join(f"`{x}`" for x in m.ncu), m.combine, m.shows]
                                          for m in METRICS], "llll"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
