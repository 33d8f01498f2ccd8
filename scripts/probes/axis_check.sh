#!/usr/bin/env bash
# One device call for issue 13: build for the local GPU, the whole suite (CURED_REQUIRE_GPU=1), the
# four compute-sanitizer tools over the axis cases and V9 and V10 (sanitize_versions.py axis 9 10),
# then `python -m cured --axis --record` into $OUT/results (a copy of results/). Logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
export XLA_PYTHON_CLIENT_PREALLOCATE=false
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
export CURED_CUDA_ARCHS=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '.[:space:]')
python3 -m pip install --no-build-isolation --no-deps -e . >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
CURED_REQUIRE_GPU=1 python3 -m pytest -q -p no:cacheprovider 2>&1 | tail -n 3 | tee "$OUT/pytest_tail.log"
for tool in memcheck racecheck synccheck initcheck; do
    compute-sanitizer --tool "$tool" --error-exitcode 99 python3 scripts/sanitize_versions.py axis 9 10 >"$OUT/sanitizer-$tool.log" 2>&1
    echo "$tool rc=$? $(grep -E '^========= (ERROR|RACECHECK) SUMMARY' "$OUT/sanitizer-$tool.log" | tail -n 1) $(tail -n 1 "$OUT/sanitizer-$tool.log")"
done
mkdir -p "$OUT/results" && cp results/*.json "$OUT/results/"
timeout 240 python3 -m cured --axis --record "$OUT/results" 2>&1 | tail -n 33
