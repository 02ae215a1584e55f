#!/usr/bin/env bash
# Throughput and memory of the HLO text parser (parsers/hlo_text_parser.h)
# on a large synthetic module, against the target: parse in at most 5x the
# time of `wc -l` on the same file.
#
#   bench/run_hlo_bench.sh [--build-dir DIR] [--size-mb N] [--reps N]
#
# Builds hlo_text_bench and gen_synthetic_hlo (Release) into DIR (default
# build-bench), writes DIR/bench/synthetic-<N>mb.hlo.txt (default 100 MB),
# reads it once into the page cache (no cache is dropped: that needs root and
# disturbs everyone else), and measures in one run:
#   - `wc -l FILE`: wall and CPU (user + sys) time, median of N runs;
#   - map + parse + free (hlo_text_bench, BM_ParseHloText/synthetic): wall
#     and CPU time, median of N repetitions, and MB/s;
#   - their ratios, wall and CPU (CPU is steadier on a loaded machine);
#   - peak RSS of one parse (/usr/bin/time -v of hlo_text_bench
#     --parse-once), as a ratio to the file size.
# Needs: cmake, ninja, a C++20 compiler, Google Benchmark, GNU time, bc
# (and perf, if present, for wc's CPU time).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build-bench
size_mb=100
reps=5
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir="$2"; shift 2 ;;
    --size-mb) size_mb="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    *) echo "usage: $0 [--build-dir DIR] [--size-mb N] [--reps N]" >&2; exit 2 ;;
  esac
done
jobs="${MEMPLAN_JOBS:-2}"

echo "== build (Release) into $build_dir"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DMEMPLAN_BUILD_BENCH=ON -DMEMPLAN_BUILD_TESTS=OFF >/dev/null
cmake --build "$build_dir" -j"$jobs" --target hlo_text_bench gen_synthetic_hlo

file="$build_dir/bench/synthetic-${size_mb}mb.hlo.txt"
echo "== generate $file"
"$build_dir/bench/gen_synthetic_hlo" "$file" --size-mb="$size_mb"
bytes=$(stat -c %s "$file")
cat "$file" > /dev/null  # into the page cache, for wc and the parser alike

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

now_ns() { date +%s%N; }
echo "== wc -l, $reps runs"
wc_ms=$(for _ in $(seq "$reps"); do
  t0=$(now_ns); wc -l "$file" > /dev/null; t1=$(now_ns)
  echo "scale=3; ($t1 - $t0) / 1000000" | bc
done | median)
# CPU time (user + sys) in ms: perf's task-clock where perf works, else GNU
# time (10 ms resolution).
if perf stat -x, -e task-clock true >/dev/null 2>&1; then
  wc_cpu_ms=$(for _ in $(seq "$reps"); do
    perf stat -x, -e task-clock wc -l "$file" 2>&1 >/dev/null | awk -F, '/task-clock/ { print $1 }'
  done | median)
else
  wc_cpu_ms=$(for _ in $(seq "$reps"); do
    /usr/bin/time -f "%U %S" wc -l "$file" 2>&1 >/dev/null | tail -1 | awk '{ print ($1 + $2) * 1000 }'
  done | median)
fi

echo "== map + parse + free (hlo_text_bench), $reps repetitions"
csv=$("$build_dir/bench/hlo_text_bench" --hlo="$file" \
  --benchmark_filter='^BM_ParseHloText/synthetic' --benchmark_repetitions="$reps" \
  --benchmark_report_aggregates_only=true --benchmark_format=csv 2>/dev/null)
# CSV: name,iterations,real_time,cpu_time,time_unit,... (ms)
parse_ms=$(echo "$csv" | awk -F, '/_median"?,/ { print $3 }')
parse_cpu_ms=$(echo "$csv" | awk -F, '/_median"?,/ { print $4 }')

echo "== peak RSS of one parse"
once=$( { /usr/bin/time -v "$build_dir/bench/hlo_text_bench" --parse-once --hlo="$file"; } 2>&1)
rss_kb=$(echo "$once" | awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }')
summary=$(echo "$once" | head -1)

awk -v bytes="$bytes" -v wc="$wc_ms" -v wccpu="$wc_cpu_ms" -v p="$parse_ms" -v pcpu="$parse_cpu_ms" \
    -v rss="$rss_kb" -v reps="$reps" -v summary="$summary" \
    -v load="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
  mb = bytes / 1e6
  printf "\nfile:                %d bytes (%.1f MB): %s\n", bytes, mb, summary
  printf "wc -l:               %.1f ms wall, %.1f ms CPU (median of %d)\n", wc, wccpu, reps
  printf "map + parse + free:  %.1f ms wall, %.1f ms CPU (median of %d) = %.0f MB/s wall, %.0f MB/s CPU\n", p, pcpu, reps, mb / (p / 1000), mb / (pcpu / 1000)
  printf "ratio to wc -l:      %.1fx wall, %.1fx CPU   (target <= 5x: %s)\n", p / wc, (wccpu > 0 ? pcpu / wccpu : 0), (p / wc <= 5) ? "met" : "MISSED"
  printf "peak RSS:            %.1f MB = %.2fx the file (the mapped file counts)\n", rss * 1024 / 1e6, rss * 1024 / bytes
  printf "load average:        %s (timings are noisy when the machine is busy)\n", load
}'
