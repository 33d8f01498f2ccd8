#!/usr/bin/env bash
# One device call for a GPU's issue-13 record: the build, the packed-rows probe (packed_rows_ab.py),
# the dtypes off the issue's list (axis_dtypes.py), `python -m cured --axis --record` into
# $OUT/results (a copy of results/, to copy back), then tests/test_axis.py with no GPU test
# allowed to skip. About 9 minutes on an H100. GPU_NAME=H200 exits 3 before the build when the
# machine's GPU name lacks that text, so that an ask for one kind of GPU that brings another costs
# only the machine's start. Logs in $OUT.
#     GPU_NAME=H200 bash scripts/probes/axis_record.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
echo "GPU: $name"
if [ -n "${GPU_NAME:-}" ] && [[ "$name" != *"$GPU_NAME"* ]]; then
    echo "axis_record: wanted $GPU_NAME"
    exit 3
fi
export XLA_PYTHON_CLIENT_PREALLOCATE=false
export CURED_CUDA_ARCHS=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '.[:space:]')
python3 -m pip install --no-build-isolation --no-deps -e . >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
date -u
timeout 90 python3 scripts/probes/packed_rows_ab.py 2>&1 | tee "$OUT/packed_rows_ab.log" | tail -n 12
timeout 90 python3 scripts/probes/axis_dtypes.py 2>&1 | tee "$OUT/axis_dtypes.log" | tail -n 16
mkdir -p "$OUT/results" && cp results/*.json "$OUT/results/"
date -u
timeout 200 python3 -m cured --axis --record "$OUT/results" 2>&1 | tee "$OUT/axis_record.log" | tail -n 33
CURED_REQUIRE_GPU=1 timeout 90 python3 -m pytest -q -p no:cacheprovider tests/test_axis.py 2>&1 | tail -n 3
