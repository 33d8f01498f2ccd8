"""python -m cured: the device and the kernel versions."""
from __future__ import annotations

import sys

import cured


def main(argv: list[str] | None = None) -> int:
    try:
        info = cured.device_info()
    except cured.CudaError as error:
        print(f"cured: {error}", file=sys.stderr)
        return 2
    major, minor = info["compute_capability"]
    print(f"device {info['device']}: {info['name']}, compute capability {major}.{minor}, "
          f"{info['multiprocessors']} SMs, {info['l2_cache_bytes'] / 2**20:.0f} MiB L2, "
          f"{info['memory_bytes'] / 2**30:.0f} GiB at {info['peak_bandwidth_bytes_per_s'] / 1e9:.0f} GB/s theoretical")
    print()
    for v in cured.versions():
        print(f"V{v.id}  {v.name:<24} {v.elements_per_block:>6} elements a block  {v.summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
