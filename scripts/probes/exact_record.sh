# One device call: build cured for this GPU, then `--exact --record` (V10's full-range rows against
# V9 and CUB, and the CPU's rows) into a copy of results/, so that only this GPU's file changes and
# comes back in $OUT (about 70 s of build and 140 s of record on an H100 or H200, 2026-11-26).
# Where build/probe/v10_phases was carried, its A/B runs beside the build (LOG2S, default "22 26 28").
# SWEEP_MAX_LOG2=17 adds `--sweep --versions 9,10,cub --max-log2 17 --no-end-to-end --record` (about
# 100 s): standard-normal rows of the same kernel.
# Usage (run's command): bash scripts/probes/exact_record.sh [H100|H200]; with a name, the call
# stops at once (exit 3) on another GPU, as a lent machine may answer a call for one with the other.
set -u
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
echo "$name"; date -u
[ -z "${1:-}" ] || [[ "$name" == *"$1"* ]] || exit 3
export CURED_CUDA_ARCHS=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '.[:space:]')
( python3 -m pip install --no-build-isolation --no-deps -e . > "$OUT/build.log" 2>&1; echo "build rc=$?" >> "$OUT/build.log" ) &
build=$!
if [ -x build/probe/v10_phases ]; then
    LOG2S=${LOG2S:-"22 26 28"} ./build/probe/v10_phases > "$OUT/ab.txt" 2>&1; echo "probe rc=$?"; cat "$OUT/ab.txt"
fi
wait $build; tail -n 1 "$OUT/build.log"
grep -q "build rc=0" "$OUT/build.log" || { tail -n 30 "$OUT/build.log"; exit 1; }
rm -rf /tmp/rec && cp -r results /tmp/rec
python3 -m cured --exact --record /tmp/rec > "$OUT/exact.log" 2>&1; echo "exact rc=$? at ${SECONDS}s"
sed -n '/whole exponent range/,$p' "$OUT/exact.log"
if [ -n "${SWEEP_MAX_LOG2:-}" ]; then  # V9, V10 and CUB on standard-normal data too, 2^10 to 2^SWEEP_MAX_LOG2
    python3 -m cured --sweep --versions 9,10,cub --max-log2 "$SWEEP_MAX_LOG2" --no-end-to-end --record /tmp/rec \
        > "$OUT/sweep.log" 2>&1; echo "sweep rc=$? at ${SECONDS}s"
    sed -n '/bandwidth/,$p' "$OUT/sweep.log"
fi
for f in /tmp/rec/*.json; do cmp -s "$f" "results/$(basename "$f")" || cp "$f" "$OUT/"; done
ls "$OUT"
