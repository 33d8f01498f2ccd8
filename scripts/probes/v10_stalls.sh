# Nsight Compute stall reasons of V9 and V10 at small lengths on an H100/H200 (sm_90), logs under $OUT.
set -u
export CURED_CUDA_ARCHS=90
python3 -m pip install --no-build-isolation --no-deps -e . > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio|smsp__inst_executed.sum|gpu__time_duration.sum|sm__cycles_active.max'
timeout 150 ncu --kernel-name regex:'reduce_v(9|10)' --metrics "$M" python3 scripts/probes/v10_ncu.py --v9 normal:float32:10 normal:float32:14 > $OUT/ncu.log 2>&1; echo "ncu rc=$?"
grep -E "^  void|reduce_v|stalled|inst_executed|duration|cycles_active" $OUT/ncu.log | awk '$NF+0 > 0.05 || /void/' | cut -c1-130
