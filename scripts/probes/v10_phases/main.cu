// Probe: where one V10 launch's time goes at 2^10 to 2^17 elements, a block's phases in clocks.
// Device time by CUDA events as cured.bench takes it (back-to-back launches, inputs rotated over
// 256 MiB so that none is in L2; NOROTATE=1 keeps one copy), the subjects in turns, a launch each
// (since 2026-11-24; one subject's 200 launches after another's before), for V9, V10 as built, V10
// instrumented (instrument.py) and, where linked, other versions of V10 (an A/B in one process); then 50 single
// launches of the instrumented copy, whose stamps give, for the block that rounds (medians):
//   clear  the first step's loads issued, then the block's state cleared, to its barrier
//   walk   the rest of the tiles: the loads' wait, the window, level 2, the last flush, the flags
//          (steps: of which the steps alone, to the end of the block's last tile)
//   bins   the warps' window sums into the state (add_bins: 0 since 2026-11-26, when a block of a few
//          tiles adds them in its walk's last flush, flush_limbs)
//   limbs  the warps' states added
//   ticket a block of several: its state into the workspace and the ticket, or into the
//          cluster's first block and the cluster barrier
//   read   the workspace's state read back (a block of the ticket's)
//   lohi   the non-zero limbs found
//   round  thread 0's carries and rounding; `again`: the same, run again at once (its code fetched)
// Build (sm_90) and run, from the repository root:
//   mkdir -p build/probe && P=scripts/probes/v10_phases
//   python3 $P/instrument.py csrc/kernels/v10_exact.cu build/probe/v10_timed.cu v10_timed_launchers
//   nvcc -O3 -std=c++17 -arch=sm_90 -Icsrc -o build/probe/v10_phases $P/main.cu build/probe/v10_timed.cu \
//       csrc/kernels/v10_exact.cu csrc/kernels/v9_one_launch_tiles.cu && build/probe/v10_phases
// An A/B against another version of the kernel (V10 base): save it, make its copy, build with it:
//   git show REV:csrc/kernels/v10_exact.cu > build/probe/base_src.cu
//   python3 $P/instrument.py build/probe/base_src.cu build/probe/v10_base.cu v10_base_launchers --plain
//   then add build/probe/v10_base.cu to the nvcc line above. Up to three variants more, made the
//   same way with the tables v10_var1_launchers to v10_var3_launchers, are timed where linked.
// LOG2S="26 27" times those lengths instead, without the phases. REPEATS=2 ONLY="V10 var1" runs one
// subject a few times, as under compute-sanitizer. For a cluster (2 to 8 blocks), the phases' line
// is followed by when its other blocks started and arrived at its barrier, against the rounding block.
// (About 2 minutes to build on 2 cores, 4 with the base; build here and carry build/probe, the
// binary only, to the GPU machine.)
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "cured.h"
#include "exact.h"

#define CK(x)                                                                                    \
    do {                                                                                         \
        const cudaError_t ck_error = (x);                                                               \
        if (ck_error != cudaSuccess) {                                                                \
            printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(ck_error));                  \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

// What the kernels take from gpu_sum.c, without its test hooks.
extern "C" int64_t cured_test_grid(void) { return 0; }
extern "C" int64_t cured_test_dynamic_shared(void) { return 0; }
extern "C" void cured_count_cluster_launch(void) {}
extern "C" int cured_test_driver_launch(void) { return 0; }
extern "C" void cured_count_driver_launch(void) {}
extern "C" int64_t cured_tiles_grid(int64_t tiles, int64_t wanted) { return std::min(tiles, std::max<int64_t>(wanted, 1)); }
extern "C" const cured_launch_table v9_one_launch_tiles_launchers, v10_exact_launchers, v10_timed_launchers;
// Other versions of the kernel, timed beside it where linked (weak: absent ones are null).
extern "C" const cured_launch_table v10_base_launchers __attribute__((weak));
extern "C" const cured_launch_table v10_var1_launchers __attribute__((weak));
extern "C" const cured_launch_table v10_var2_launchers __attribute__((weak));
extern "C" const cured_launch_table v10_var3_launchers __attribute__((weak));
extern "C" cudaError_t read_stamps(long long *h, size_t count);
extern "C" cudaError_t clear_stamps();

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main() {
    // REPEATS=k times k launches of each subject after k / 20 warm-ups (under compute-sanitizer, a
    // few); ONLY="name,name" keeps those subjects alone. Lines go out as they are written.
    setvbuf(stdout, nullptr, _IOLBF, 0);
    const int kRepeats = getenv("REPEATS") ? std::max(1, atoi(getenv("REPEATS"))) : 200, kWarmup = kRepeats / 20,
              kStamped = 50;
    const char *only = getenv("ONLY");
    const cudaStream_t s = cudaStreamPerThread;
    // LOG2S="26 28" times those lengths instead of 2^10 to 2^17, with no phases (their grids are
    // waves of blocks, not a block a tile); the pool then holds two copies of the longest.
    std::vector<int> log2s;
    for (const char *p = getenv("LOG2S"); p != nullptr && *p != 0;) {
        char *end;
        log2s.push_back(int(strtol(p, &end, 10)));
        if (end == p) break;
        p = end;
    }
    const bool phases = log2s.empty();
    if (phases)
        for (int lg = 10; lg <= 17; ++lg) log2s.push_back(lg);
    const size_t pool_bytes = std::max(size_t(256) << 20, (size_t(16) << *std::max_element(log2s.begin(), log2s.end())));
    char *pool, *workspace, *out;
    CK(cudaMalloc(&pool, pool_bytes));
    CK(cudaMalloc(&workspace, 1 << 20));
    CK(cudaMalloc(&out, 4096));
    CK(cudaMemset(workspace, 0, 1 << 20));
    std::vector<cudaEvent_t> events(2 * kRepeats);
    for (auto &e : events) CK(cudaEventCreate(&e));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    std::mt19937_64 rng(12345);
    std::normal_distribution<double> normal;
    printf("%s; device time in us, phases in clocks\n", prop.name);

    std::vector<std::pair<const char *, const cured_launch_table *>> subjects = {
        {"V9", &v9_one_launch_tiles_launchers}, {"V10", &v10_exact_launchers}, {"V10 stamped", &v10_timed_launchers}};
    for (auto other : {std::make_pair("V10 base", &v10_base_launchers), std::make_pair("V10 var1", &v10_var1_launchers),
                       std::make_pair("V10 var2", &v10_var2_launchers), std::make_pair("V10 var3", &v10_var3_launchers)})
        if (other.second != nullptr) subjects.push_back(other);
    if (only != nullptr)
        subjects.erase(std::remove_if(subjects.begin(), subjects.end(),
                                      [&](const auto &subject) {
                                          const std::string names = std::string(",") + only + ",";
                                          return names.find(std::string(",") + subject.first + ",") == std::string::npos;
                                      }),
                       subjects.end());
    for (int item : {4, 8})
        for (int full_range = 0; full_range < 2; ++full_range)
            for (int lg : log2s) {
                const int64_t n = int64_t(1) << lg;
                const size_t bytes = size_t(n) * item;
                std::vector<char> host(bytes);
                for (int64_t i = 0; i < n; ++i) {  // standard normal, or random bits of a finite value
                    if (item == 4) {
                        float v = float(normal(rng));
                        uint32_t b;
                        if (full_range) do b = uint32_t(rng()); while (((b >> 23) & 255) == 255);
                        if (full_range) memcpy(&v, &b, 4);
                        memcpy(&host[i * 4], &v, 4);
                    } else {
                        double v = normal(rng);
                        uint64_t b;
                        if (full_range) do b = rng(); while (((b >> 52) & 2047) == 2047);
                        if (full_range) memcpy(&v, &b, 8);
                        memcpy(&host[i * 8], &v, 8);
                    }
                }
                const int64_t copies = getenv("NOROTATE") ? 1 : int64_t(pool_bytes / bytes);
                for (int64_t c = 0; c < copies; ++c) CK(cudaMemcpy(pool + c * bytes, host.data(), bytes, cudaMemcpyHostToDevice));
                const cured_dtype in = item == 4 ? CURED_FLOAT32 : CURED_FLOAT64;
                const cured_acc acc = item == 4 ? CURED_ACC_FLOAT32 : CURED_ACC_FLOAT64;
                const cured_span span = {0, n, n, in};
                printf("%s %s 2^%d:", item == 4 ? "float32" : "float64", full_range ? "full range" : "normal", lg);
                // The subjects in turns, a launch each, so that the machine's drift falls on all alike,
                // in an order reversed every other round: in one order, V10 read 0.2 to 0.35 us more
                // than its own copy two places later (H200, 2026-11-26, the float32 kernels unchanged).
                const size_t m = subjects.size();
                if (events.size() < 2 * kRepeats * m) {
                    const size_t had = events.size();
                    events.resize(2 * kRepeats * m);
                    for (size_t e = had; e < events.size(); ++e) CK(cudaEventCreate(&events[e]));
                }
                for (int r = 0; r < kWarmup + kRepeats; ++r)
                    for (size_t j = 0; j < m; ++j) {
                        const size_t k = r % 2 == 0 ? j : m - 1 - j;  // forwards, then backwards
                        const int timed = r - kWarmup;
                        const size_t e = 2 * (size_t(timed) * m + k);
                        if (timed >= 0) CK(cudaEventRecord(events[e], s));
                        CK(subjects[k].second->fn[in][acc](pool + ((r * m + k) % copies) * bytes, out, span, workspace, s));
                        if (timed >= 0) CK(cudaEventRecord(events[e + 1], s));
                    }
                CK(cudaStreamSynchronize(s));
                double first_value = 0;
                bool has_reference = false;
                for (size_t k = 0; k < m; ++k) {
                    std::vector<double> t;
                    for (int r = 0; r < kRepeats; ++r) {
                        float ms;
                        const size_t e = 2 * (size_t(r) * m + k);
                        CK(cudaEventElapsedTime(&ms, events[e], events[e + 1]));
                        t.push_back(ms * 1e3);
                    }
                    CK(subjects[k].second->fn[in][acc](pool, out, span, workspace, s));
                    double value;
                    if (item == 4) {
                        float f;
                        CK(cudaMemcpy(&f, out, 4, cudaMemcpyDeviceToHost));
                        value = f;
                    } else {
                        CK(cudaMemcpy(&value, out, 8, cudaMemcpyDeviceToHost));
                    }
                    const bool v10 = strncmp(subjects[k].first, "V10", 3) == 0, reference = strcmp(subjects[k].first, "V10") == 0;
                    if (reference) first_value = value, has_reference = true;
                    printf(" %s %.2f%s", subjects[k].first, median(t),
                           has_reference && v10 && !reference && value != first_value ? " (A DIFFERENT SUM)" : "");
                }
                if (!phases) {
                    printf("\n");
                    continue;
                }
                const int64_t tile = int64_t(256) * 8 * (16 / item), blocks = (n + tile - 1) / tile;
                std::vector<std::vector<double>> phase(12);
                std::vector<double> digits_wait, digits_add;  // float64's digits: the barrier before adding them, and the adding
                std::vector<double> span_us, others_start, others_arrive;
                std::vector<long long> st(blocks * 16);
                for (int r = 0; r < kWarmup + kStamped; ++r) {
                    CK(clear_stamps());
                    CK(v10_timed_launchers.fn[in][acc](pool + ((r * 7) % copies) * bytes, out, span, workspace, s));
                    CK(cudaStreamSynchronize(s));
                    CK(read_stamps(st.data(), st.size()));
                    if (r < kWarmup) continue;
                    int64_t rounding = -1;
                    long long first_ns = LLONG_MAX, last_ns = 0;
                    for (int64_t b = 0; b < blocks; ++b) {
                        if (st[b * 16 + 8] != 0) rounding = b;
                        first_ns = std::min(first_ns, st[b * 16 + 12]);
                        last_ns = std::max(last_ns, st[b * 16 + 13]);
                    }
                    if (rounding < 0) {
                        printf("\nno block rounded\n");
                        return 1;
                    }
                    const long long *p = &st[rounding * 16];
                    for (int k = 1; k <= 9; ++k) {  // from the last stamp before it; 0 where it did not run
                        int j = k - 1;
                        while (j > 0 && p[j] == 0) --j;
                        phase[k].push_back(p[k] != 0 ? double(p[k] - p[j]) : 0.0);
                    }
                    phase[10].push_back(double(p[8] - p[0]));
                    phase[11].push_back(p[11] != 0 && p[1] != 0 ? double(p[11] - p[1]) : 0.0);
                    digits_wait.push_back(p[14] != 0 ? double(p[14] - p[11]) : 0.0);
                    digits_add.push_back(p[15] != 0 ? double(p[15] - p[14]) : 0.0);
                    span_us.push_back((last_ns - first_ns) * 1e-3);
                    // A cluster's other blocks: their latest start, and their latest arrival at the
                    // cluster's barrier (NS(1)), in ns after the rounding block's start and after its own
                    // limbs (STAMP(4), its clocks converted by its own clock rate from start to round).
                    if (blocks > 1 && blocks <= 8 && p[8] > p[0]) {
                        const double ns_per_clock = double(p[13] - p[12]) / double(p[8] - p[0]);
                        const double limbs_ns = double(p[4] - p[0]) * ns_per_clock;
                        long long latest_start = 0, latest_arrival = 0;
                        for (int64_t b = 0; b < blocks; ++b)
                            if (b != rounding) {
                                latest_start = std::max(latest_start, st[b * 16 + 12] - p[12]);
                                latest_arrival = std::max(latest_arrival, st[b * 16 + 13] - p[12]);
                            }
                        others_start.push_back(double(latest_start));
                        others_arrive.push_back(double(latest_arrival) - limbs_ns);
                    }
                }
                printf(" | blocks %lld, first start to last end %.2f us | clear %.0f walk %.0f (steps %.0f, digits' barrier %.0f, digits %.0f) bins %.0f limbs %.0f ticket %.0f "
                       "read %.0f lohi %.0f round %.0f (again %.0f) total %.0f\n",
                       (long long)blocks, median(span_us), median(phase[1]), median(phase[2]), median(phase[11]), median(digits_wait), median(digits_add), median(phase[3]),
                       median(phase[4]), median(phase[5]), median(phase[6]), median(phase[7]), median(phase[8]),
                       median(phase[9]), median(phase[10]));
                if (!others_start.empty())
                    printf("    cluster: the other blocks start at most %.0f ns after the rounding block, and arrive at most %.0f ns after its limbs\n",
                           median(others_start), median(others_arrive));
            }
    return 0;
}
