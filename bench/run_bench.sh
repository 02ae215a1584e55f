#!/usr/bin/env bash
# Throughput and memory of `memplan analyze` on a large synthetic dump,
# against the issue's targets: parse + analyze in at most 3x the time of
# `wc -l` on the same file, and peak memory at most 2x the file size.
#
#   bench/run_bench.sh [--build-dir DIR] [--size-mb N] [--reps N]
#
# Builds memplan and the benchmarks (Release) into DIR (default build-bench),
# writes DIR/bench/synthetic-<N>mb.buffer-assignment.txt (default 100 MB) with
# bench/gen_synthetic_dump, and measures, in one run and with the file in the
# page cache (it is read once first; no cache is dropped, since that needs
# root and disturbs everything else on the machine):
#   - `wc -l FILE`, wall time, median of N runs;
#   - parse + analyze in process (parse_analyze_bench, BM_ParseAnalyze:
#     map the file, parse, analyze), median of N repetitions, and MB/s;
#   - `memplan analyze FILE --format=json` end to end (process start, map,
#     parse, analyze, render, write to /dev/null via stdout), median of N;
#   - peak RSS of that command (/usr/bin/time -v, "Maximum resident set
#     size"), as a ratio to the file size.
# Needs: cmake, ninja, a C++20 compiler, Google Benchmark, GNU time.
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
cmake --build "$build_dir" -j"$jobs" --target memplan parse_analyze_bench gen_synthetic_dump

file="$build_dir/bench/synthetic-${size_mb}mb.buffer-assignment.txt"
echo "== generate $file"
"$build_dir/bench/gen_synthetic_dump" "$file" --size-mb="$size_mb"
bytes=$(stat -c %s "$file")
cat "$file" > /dev/null  # into the page cache, for wc and memplan alike

now_ns() { date +%s%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "== wc -l, $reps runs"
wc_ms=$(for _ in $(seq "$reps"); do
  t0=$(now_ns); wc -l "$file" > /dev/null; t1=$(now_ns)
  echo "scale=3; ($t1 - $t0) / 1000000" | bc
done | median)

echo "== parse + analyze in process (parse_analyze_bench), $reps repetitions"
csv=$("$build_dir/bench/parse_analyze_bench" --dump="$file" \
  --benchmark_filter='^BM_ParseAnalyze/synthetic' --benchmark_repetitions="$reps" \
  --benchmark_report_aggregates_only=true --benchmark_format=csv 2>/dev/null)
# CSV: name,iterations,real_time,cpu_time,time_unit,bytes_per_second,... (ms)
pa_ms=$(echo "$csv" | awk -F, '/_median"?,/ { print $3 }')
pa_cpu_ms=$(echo "$csv" | awk -F, '/_median"?,/ { print $4 }')

echo "== memplan analyze --format=json, $reps runs"
cli_ms=$(for _ in $(seq "$reps"); do
  t0=$(now_ns); "$build_dir/cli/memplan" analyze "$file" --format=json > /dev/null; t1=$(now_ns)
  echo "scale=3; ($t1 - $t0) / 1000000" | bc
done | median)

echo "== peak RSS of memplan analyze --format=json"
rss_kb=$( { /usr/bin/time -v "$build_dir/cli/memplan" analyze "$file" --format=json > /dev/null; } 2>&1 |
  awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }')

awk -v bytes="$bytes" -v wc="$wc_ms" -v pa="$pa_ms" -v pacpu="$pa_cpu_ms" -v cli="$cli_ms" \
    -v rss="$rss_kb" -v reps="$reps" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
  mb = bytes / 1e6
  printf "\nfile:                   %d bytes (%.1f MB)\n", bytes, mb
  printf "wc -l:                  %.1f ms (median of %d)\n", wc, reps
  printf "parse+analyze:          %.1f ms wall, %.1f ms CPU (median of %d) = %.0f MB/s\n", pa, pacpu, reps, mb / (pa / 1000)
  printf "memplan analyze (json): %.1f ms wall, end to end (median of %d)\n", cli, reps
  printf "time ratio to wc -l:    %.1fx parse+analyze, %.1fx memplan analyze   (target <= 3x: %s)\n", pa / wc, cli / wc, (pa / wc <= 3) ? "met" : "MISSED"
  printf "peak RSS:               %.1f MB = %.2fx the file   (target <= 2x: %s)\n", rss * 1024 / 1e6, rss * 1024 / bytes, (rss * 1024 / bytes <= 2) ? "met" : "MISSED"
  printf "load average:           %s (timings are noisy when the machine is busy)\n", load
}'
