"""Builds cured._cured: C sources through the C compiler, CUDA sources through nvcc.

nvcc compiles every .cu file to an object first (in parallel), and the objects are linked into the
extension with the C objects, as CuPy's build_ext does. The CUDA runtime is linked statically, so
`import cured` needs no driver; the first GPU call reports a missing one as cured.CudaError.

Environment:
  NVCC              the nvcc to use (else CUDA_HOME/CUDA_PATH, PATH, /usr/local/cuda)
  CURED_CUDA_ARCHS  compute capabilities to build machine code for, e.g. "90" or "80;90"
                    (default 75;80;86;89;90); PTX is embedded for the newest of them.
"""
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).parent.resolve()
CSRC = HERE / "csrc"
DEFAULT_ARCHS = "75;80;86;89;90"


def find_nvcc():
    candidates = [os.environ.get("NVCC")]
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            candidates.append(os.path.join(os.environ[var], "bin", "nvcc"))
    candidates += [shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return Path(candidate).resolve()
    sys.exit(
        "cured: nvcc, the CUDA compiler, was not found (looked at $NVCC, $CUDA_HOME/bin, $CUDA_PATH/bin, "
        "PATH and /usr/local/cuda/bin). Install the CUDA toolkit or point NVCC at nvcc."
    )


def cuda_archs():
    archs = [a.strip() for a in os.environ.get("CURED_CUDA_ARCHS", DEFAULT_ARCHS).replace(",", ";").split(";")]
    archs = [a for a in archs if a]
    if not archs or not all(a.isdigit() for a in archs):
        sys.exit(f"cured: CURED_CUDA_ARCHS must list compute capabilities like '80;90', not {os.environ['CURED_CUDA_ARCHS']!r}")
    return sorted(set(archs), key=int)


def gencode_flags(archs):
    flags = [f"-gencode=arch=compute_{a},code=sm_{a}" for a in archs]
    newest = archs[-1]
    flags.append(f"-gencode=arch=compute_{newest},code=compute_{newest}")
    return flags


class BuildExtWithCuda(build_ext):
    """build_ext that first compiles the extension's .cu sources with nvcc and links the objects."""

    def build_extension(self, ext):
        nvcc = find_nvcc()
        cuda_home = nvcc.parent.parent
        cu_sources = [s for s in ext.sources if s.endswith(".cu")]
        ext.sources = [s for s in ext.sources if not s.endswith(".cu")]
        ext.include_dirs += [str(cuda_home / "include")]
        ext.library_dirs += [str(d) for d in (cuda_home / "lib64", cuda_home / "lib") if d.is_dir()]
        ext.extra_objects += self.compile_cuda(nvcc, cu_sources)
        super().build_extension(ext)

    def compile_cuda(self, nvcc, sources):
        archs = cuda_archs()
        out_dir = Path(self.build_temp) / "cuda"
        out_dir.mkdir(parents=True, exist_ok=True)
        headers = list(CSRC.rglob("*.h")) + list(CSRC.rglob("*.cuh"))
        newest_input = max([p.stat().st_mtime for p in headers] + [Path(__file__).stat().st_mtime])
        flags = [
            "-std=c++17", "-O3", "-Xcompiler", "-fPIC", "-Xcompiler", "-fvisibility=hidden",
            # cured compares GPU results with a CPU model bit for bit: IEEE denormals and division.
            "-ftz=false", "-prec-div=true", "-prec-sqrt=true",
            "--threads", "0", f"-I{CSRC}",
        ] + gencode_flags(archs)
        stamp = " ".join(flags)

        def compile_one(source):
            source = Path(source)
            obj = out_dir / (source.stem + ".o")
            flags_file = obj.with_suffix(".flags")
            fresh = (
                obj.exists()
                and obj.stat().st_mtime > max(newest_input, source.stat().st_mtime)
                and flags_file.exists()
                and flags_file.read_text() == stamp
            )
            if not fresh:
                cmd = [str(nvcc), *flags, "-c", str(source), "-o", str(obj)]
                print(" ".join(cmd), flush=True)
                subprocess.run(cmd, check=True)
                flags_file.write_text(stamp)
            return str(obj)

        jobs = max(1, min(len(sources), os.cpu_count() or 1))
        with ThreadPoolExecutor(jobs) as pool:
            return list(pool.map(compile_one, sources))


def cured_extension():
    return Extension(
        "cured._cured",
        sources=sorted(str(p.relative_to(HERE)) for p in CSRC.glob("*.c"))
        + sorted(str(p.relative_to(HERE)) for p in (CSRC / "kernels").glob("*.cu")),
        include_dirs=[numpy.get_include(), str(CSRC)],
        # Static CUDA runtime: `import cured` works with no GPU and no driver. nvcc's objects need
        # libstdc++ (static-initialisation guards, exception personality).
        libraries=["cudart_static", "stdc++", "dl", "rt", "pthread"],
        # Hidden by default, as nvcc's objects are: the files share names such as dtype_of, which
        # only PyInit__cured (PyMODINIT_FUNC) leaves the library under.
        extra_compile_args=["-std=c11", "-O3", "-Wall", "-Wextra", "-fno-fast-math", "-fvisibility=hidden"],
        depends=[str(p.relative_to(HERE)) for p in CSRC.rglob("*.h")],
    )


if __name__ == "__main__":  # setuptools runs this file as __main__; tests import its helpers
    setup(ext_modules=[cured_extension()], cmdclass={"build_ext": BuildExtWithCuda})
