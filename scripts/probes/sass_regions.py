"""Sums Nsight Compute's source counters (a CSV from `ncu --import R --page source --csv
--print-source sass`, as scripts/probes/v10_ncu_source.sh writes) over stretches of the kernel's
code: executed warp instructions, warp-state samples (their share of all) and the kinds of
instructions executed there, so that the costly stretches can be found and then read in full.

    python3 scripts/probes/sass_regions.py FILE.csv [stretch in bytes, default 0x800]
"""
import collections
import csv
import sys


def main(path: str, stretch: int) -> None:
    rows = list(csv.reader(open(path)))
    header, data = rows[1], rows[2:]
    column = {name: i for i, name in enumerate(header)}
    executed, samples = column["Instructions Executed"], column["Warp Stall Sampling (All Samples)"]
    base = int(data[0][0], 16)
    regions: dict[int, list] = collections.OrderedDict()
    for row in data:
        count, sampled = int(row[executed] or 0), int(row[samples] or 0)
        region = regions.setdefault((int(row[0], 16) - base) // stretch, [0, 0, set()])
        region[0] += count
        region[1] += sampled
        if count:
            words = row[1].split()
            op = words[1] if words and words[0].startswith("@") else (words[0] if words else "")
            region[2].add(op.split(".")[0])
    total = sum(r[1] for r in regions.values()) or 1
    print(f"{path}: {sum(r[0] for r in regions.values())} warp instructions, {total} samples")
    for k, (count, sampled, ops) in regions.items():
        if count or sampled:
            print(f"{k * stretch:6x} executed {count:6d} samples {sampled:4d} ({100 * sampled / total:4.1f}%) "
                  f"{' '.join(sorted(ops))[:90]}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2], 0) if len(sys.argv) > 2 else 0x800)
