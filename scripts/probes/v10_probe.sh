# One device call while tuning V10: build for this GPU, V10's tests, then V10 against V9 and CUB
# (scripts/probes/v10_speed.py), then Nsight Compute's sections for the cases given in $NCU_CASES
# (scripts/probes/v10_ncu.py). Logs under $OUT.
set -u
export CURED_CUDA_ARCHS=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '.[:space:]')
t0=$(date +%s)
python3 -m pip install --no-build-isolation --no-deps -e . > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
CURED_REQUIRE_GPU=1 timeout 200 python3 -m pytest -q -x -p no:cacheprovider tests/test_exact.py ${TESTS:-} > $OUT/tests.log 2>&1
echo "tests rc=$? $(tail -1 $OUT/tests.log) at $(( $(date +%s) - t0 )) s"
timeout 200 python3 scripts/probes/v10_speed.py ${LENGTHS:-10,12,14,16,20,24,26,28} 2>&1 | tee $OUT/speed.log
echo "speed at $(( $(date +%s) - t0 )) s"
if [ -n "${NCU_CASES:-}" ]; then
  timeout 120 ncu --kernel-name regex:reduce_v10 --section SpeedOfLight --section WarpStateStats --section Occupancy \
    --section LaunchStats --section InstructionStats python3 scripts/probes/v10_ncu.py $NCU_CASES > $OUT/ncu.log 2>&1
  echo "ncu rc=$?"
  grep -E "^  void|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Executed Instructions  " $OUT/ncu.log | cut -c1-120
fi
echo "total $(( $(date +%s) - t0 )) s"
