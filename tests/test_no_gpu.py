"""Without a usable GPU: import works, device_count() is 0, GPU calls raise cured.CudaError with a
clear message, and `python -m cured` says so and exits non-zero. CUDA_VISIBLE_DEVICES="" hides every
GPU, so this runs the same on a GPU machine and on CI."""
import os
import subprocess
import sys
import tempfile

HIDDEN = dict(os.environ, CUDA_VISIBLE_DEVICES="")


def run(*args):
    # From an empty directory, so that `import cured` finds the installed package, not a source tree.
    with tempfile.TemporaryDirectory() as cwd:
        return subprocess.run([sys.executable, *args], env=HIDDEN, cwd=cwd, capture_output=True, text=True, timeout=120)


def test_gpu_calls_raise_cuda_error():
    script = """
import cured
assert cured.device_count() == 0
for call in (lambda: cured.sum([1, 2, 3]), cured.device_info, cured._cured.memory_in_use):
    try:
        call()
    except cured.CudaError as error:
        assert isinstance(error, RuntimeError) and isinstance(error.code, int) and error.code != 0
        assert "no usable CUDA GPU" in str(error), str(error)
    else:
        raise AssertionError("no CudaError")
assert cured.sum([1, 2, 3], device="cpu") == 6   # the CPU model still works
print("ok")
"""
    result = run("-c", script)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_main_says_there_is_no_gpu():
    result = run("-m", "cured")
    assert result.returncode != 0
    assert "no usable CUDA GPU" in result.stderr
    assert "Traceback" not in result.stderr
