#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: build cured for this GPU, run the whole test suite with no GPU test
# allowed to skip, then compute-sanitizer's memcheck, racecheck, synccheck and initcheck over every
# version and the sums along axes (scripts/sanitize_versions.py), whatever the suite gave; exits 1 if
# a test failed or skipped (on one GPU, the second-GPU test skips) or a tool found an error. Logs go
# to $LOG_DIR (default build/gpu_check).
# Usage: scripts/gpu_check.sh [pytest arguments...]
# PART=suite or PART=sanitizers runs one half after the build (both by default): on an H100 the
# whole took more than a lent machine's 600 s a call by 2026-11-26 (suite 245 s, racecheck the
# longest tool), so run the halves as two calls on the warm machine. SANITIZE="10 axis" passes
# those arguments to sanitize_versions.py (some versions, the sums along axes) instead of all.
# BUILD=0 skips the build, for a warm machine that holds this tree's: on an H200 on 2026-11-28 the
# build took 140 s and the suite 437 s (the notebook test included), 584 s of a call's 600.
PART=${PART:-all}
case "$PART" in all | suite | sanitizers) ;; *) echo "gpu_check: PART must be all, suite or sanitizers, not $PART"; exit 2 ;; esac
case "${BUILD:-1}" in 0 | 1) ;; *) echo "gpu_check: BUILD must be 0 or 1, not $BUILD"; exit 2 ;; esac
set -euo pipefail
cd "$(dirname "$0")/.."
LOG_DIR=${LOG_DIR:-build/gpu_check}
mkdir -p "$LOG_DIR"
PYTHON=${PYTHON:-python3}

# Python packages the machine lacks (Jupyter, for the notebook test), carried as wheels in .whl/.
if compgen -G ".whl/*.whl" >/dev/null; then
    "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi

if [ -z "${CURED_CUDA_ARCHS:-}" ]; then
    CURED_CUDA_ARCHS=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '.[:space:]')
    export CURED_CUDA_ARCHS
fi
if [ "${BUILD:-1}" = 1 ]; then
    echo "== build for sm_$CURED_CUDA_ARCHS"
    "$PYTHON" -m pip install --no-build-isolation --no-deps -e . >"$LOG_DIR/build.log" 2>&1 || { cat "$LOG_DIR/build.log"; exit 1; }
fi
"$PYTHON" -c 'import cured; print(cured.device_info())'

status=0
if [ "$PART" != sanitizers ]; then
    echo "== pytest"
    # CURED_REQUIRE_GPU makes the suite fail, not skip, when the GPU cannot be used.
    CURED_REQUIRE_GPU=1 PYTHONUNBUFFERED=1 "$PYTHON" -m pytest -q -p no:cacheprovider "$@" 2>&1 | tee "$LOG_DIR/pytest.log" || true
    summary=$(tail -n 1 "$LOG_DIR/pytest.log")
    if [[ "$summary" == *skipped* || "$summary" == *failed* || "$summary" == *error* ]]; then
        echo "gpu_check: the suite did not pass with every test run: $summary"
        grep -E "^(SKIPPED|FAILED|ERROR)" "$LOG_DIR/pytest.log" || true
        status=1
    fi
fi
[ "$PART" != suite ] || exit $status

echo "== compute-sanitizer"
read -r -a sanitize_args <<<"${SANITIZE:-}"
for tool in memcheck racecheck synccheck initcheck; do
    if compute-sanitizer --tool "$tool" --error-exitcode 99 "$PYTHON" scripts/sanitize_versions.py "${sanitize_args[@]}" \
        >"$LOG_DIR/sanitizer-$tool.log" 2>&1; then
        echo "$tool: $(grep -E '^========= (ERROR|RACECHECK) SUMMARY' "$LOG_DIR/sanitizer-$tool.log" | tail -n 1)"
    else
        status=1
        echo "$tool: FAILED"; tail -n 30 "$LOG_DIR/sanitizer-$tool.log"
    fi
done
exit $status
