# Where one small V10 launch's warps stall, instruction by instruction: Nsight Compute's source
# counters (SASS, executed instructions and warp-state samples) for the copy of the kernel that
# build/probe/v10_phases links as `v10_var1` (scripts/probes/v10_phases/main.cu says how to build it),
# one launch a case, as `ncu --page source` prints them, into $OUT/NAME_sass.csv.
# Usage (run's command, build/probe/v10_phases and this file carried):
#   bash scripts/probes/v10_ncu_source.sh "ff 211 f32_full 10" "dd 211 f64_full 10" ...
# A case: the kernel's dtype letters (ff float32, dd float64), the launches to skip (the probe runs
# 5 before its first standard-normal launch of a dtype and 211 before its first full-range one at one
# length), a name, and log2 of the length (LOG2S). The sampling interval is the shortest (32 cycles)
# and the caches and clocks are left as the probe leaves them. The device returns at most 8 files
# from $OUT, so each case leaves one: the report itself is deleted.
# Seen (H100, 2026-11-26): a one-block launch at 2^10 gives about 270 samples; the sum of a region's
# samples and its executed instructions tell where its time went (docs/development.md).
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
for case in "$@"; do
    set -- $case
    LOG2S=$4 timeout 150 ncu --kernel-name-base mangled --kernel-name "regex:v10_var1_cu.*reduce_v10I$1" \
        --launch-skip "$2" --launch-count 1 --section SourceCounters --section WarpStateStats \
        --warp-sampling-interval 0 --cache-control none --clock-control none \
        -o "/tmp/$3" -f ./build/probe/v10_phases > "/tmp/ncu_$3.txt" 2>&1
    echo "== $3 ncu rc=$?"
    ncu --import "/tmp/$3.ncu-rep" --page source --csv --print-source sass > "$OUT/$3_sass.csv"
    echo "source rc=$?, $(wc -l < "$OUT/$3_sass.csv") lines"
done
