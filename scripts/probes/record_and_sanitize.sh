# One device call: record this GPU's results, then compute-sanitizer's four tools over V9 and V10.
export CURED_CUDA_ARCHS=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '.[:space:]')
python3 -m pip install --no-build-isolation --no-deps -e . > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
mkdir -p $OUT/results
timeout 470 python3 -m cured --record $OUT/results --latency-budget 0.3 > $OUT/record.log 2>&1; echo "record rc=$?"
grep -A40 "data over the whole exponent range" $OUT/record.log | head -60
grep "CPU, one core" $OUT/record.log
for tool in memcheck racecheck synccheck initcheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 python3 scripts/sanitize_versions.py 9 10 > $OUT/sanitizer-$tool.log 2>&1; echo "$tool rc=$? $(grep -E '^========= (ERROR|RACECHECK) SUMMARY' $OUT/sanitizer-$tool.log | tail -1) $(tail -1 $OUT/sanitizer-$tool.log)"
done
