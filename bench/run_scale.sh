#!/usr/bin/env bash
# The scale suite (issue 14, "Speed and memory at scale"): `memplan analyze`
# end to end against `wc -l` on generated buffer-assignment dumps and HLO
# module texts of 1 MB, 100 MB and 1 GB, in one run.
#
#   bench/run_scale.sh [--build-dir DIR] [--sizes "1 100 1000"] [--reps N]
#                      [--kinds "dump hlo"] [--tmp DIR] [--no-build]
#                      [--format text|json] [--memplan PATH] [--baseline PATH]
#
# Builds memplan, the generators and time_command (Release) into DIR
# (default build-bench), then for each kind and size (megabytes, 10^6 bytes):
#   - checks that the temporary directory (default: a new one under
#     $TMPDIR) has room for the file (three times its size free), generates
#     it there (bench/gen_synthetic_dump, bench/gen_synthetic_hlo; never in
#     the source tree), and reads it once into the page cache (no cache is
#     dropped: that needs root and disturbs the rest of the machine, so every
#     figure is warm-cache);
#   - N times (default 3), back to back: `wc -l FILE`, then
#     `memplan analyze FILE --format=F` (default text) with its output to
#     /dev/null, each timed by time_command (wall and CPU time, peak RSS from
#     wait4);
#   - deletes the file.
# It prints one table: per file the medians of the N runs of wall time for
# wc and memplan, the median of the N per-run ratios memplan / wc (each
# ratio from one back-to-back pair, so a busy moment hits both), the same
# for CPU time (user + system; steadier than wall time when other processes
# share the cores), and memplan's peak RSS as a ratio to the file size,
# against the targets (time <= 3x wc -l, peak RSS <= 1.5x the file, on
# 100 MB and larger). With --baseline PATH, a second memplan binary (say,
# main's) runs on the same file right after each memplan run, each against
# the same wc -l run, and gets rows of its own ("dump (baseline)").
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build-bench
sizes="1 100 1000"
kinds="dump hlo"
reps=3
tmp_parent="${TMPDIR:-/tmp}"
build=1
format=text
memplan=""
baseline=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    --kinds) kinds="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    --tmp) tmp_parent="$2"; shift 2 ;;
    --format) format="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --memplan) memplan="$2"; shift 2 ;;  # another binary (say, an older one), same inputs
    --baseline) baseline="$2"; shift 2 ;;  # a second binary, run right after each memplan run
    *) echo "usage: $0 [--build-dir DIR] [--sizes \"1 100 1000\"] [--kinds \"dump hlo\"]" \
            "[--reps N] [--tmp DIR] [--format text|json] [--memplan PATH] [--baseline PATH]" \
            "[--no-build]" >&2; exit 2 ;;
  esac
done
jobs="${MEMPLAN_JOBS:-2}"

if [ "$build" = 1 ]; then
  echo "== build (Release) into $build_dir" >&2
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMEMPLAN_BUILD_BENCH=ON -DMEMPLAN_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build_dir" -j"$jobs" \
    --target memplan gen_synthetic_dump gen_synthetic_hlo time_command >&2
fi
memplan="${memplan:-$build_dir/cli/memplan}"
timer="$build_dir/bench/time_command"

work=$(mktemp -d "$tmp_parent/memplan-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One table row: row LABEL "MS..." "CPU..." "RSS..." "RATIO..." "CPU_RATIO..." (each a
# space-separated list over the runs), with bytes, lines, wc_ms and wc_cpu from the caller.
row() {
  awk -v kind="$1" -v bytes="$bytes" -v lines="$lines" \
    -v wc="$(printf '%s\n' "${wc_ms[@]}" | median)" \
    -v mp="$(printf '%s\n' $2 | median)" \
    -v cpu="$(printf '%s\n' $3 | median)" \
    -v rss="$(printf '%s\n' $4 | median)" \
    -v ratio="$(printf '%s\n' $5 | median)" \
    -v wccpu="$(printf '%s\n' "${wc_cpu[@]}" | median)" \
    -v cpuratio="$(printf '%s\n' $6 | median)" 'BEGIN {
      big = bytes >= 50e6
      rss_ratio = rss * 1024 / bytes
      printf "| %s | %.1f MB | %d | %.1f | %.1f | %.1fx%s | %.1f | %.1f | %.1fx | %.1f MB | %.2fx%s |\n",
        kind, bytes / 1e6, lines, wc, mp, ratio,
        big ? (ratio <= 3 ? " (met)" : " (missed)") : "", wccpu, cpu, cpuratio,
        rss * 1024 / 1e6, rss_ratio, big ? (rss_ratio <= 1.5 ? " (met)" : " (missed)") : ""
    }'
}

rows=""
for kind in $kinds; do
  for size in $sizes; do
    case "$kind" in
      dump) gen="$build_dir/bench/gen_synthetic_dump"; file="$work/synthetic-${size}mb.buffer-assignment.txt" ;;
      hlo) gen="$build_dir/bench/gen_synthetic_hlo"; file="$work/synthetic-${size}mb.hlo.txt" ;;
      *) echo "unknown kind $kind (dump or hlo)" >&2; exit 2 ;;
    esac
    need_kb=$((size * 1000 * 3))
    free_kb=$(df -Pk "$work" | awk 'NR == 2 { print $4 }')
    if [ "$free_kb" -lt "$need_kb" ]; then
      echo "== skip $kind ${size} MB: $((free_kb / 1000)) MB free in $work, want $((need_kb / 1000))" >&2
      continue
    fi
    echo "== $kind ${size} MB: generate" >&2
    "$gen" "$file" --size-mb="$size" >&2
    bytes=$(stat -c %s "$file")
    lines=$(wc -l < "$file")
    cat "$file" > /dev/null
    wc_ms=(); wc_cpu=(); mp_ms=(); mp_cpu=(); mp_rss=(); ratio=(); cpu_ratio=()
    b_ms=(); b_cpu=(); b_rss=(); b_ratio=(); b_cpu_ratio=()
    for rep in $(seq "$reps"); do
      read -r w wc_c _ wc_code < <("$timer" -- wc -l "$file")
      read -r m c r code < <("$timer" -- "$memplan" analyze "$file" --format="$format")
      if [ "$wc_code" != 0 ] || [ "$code" != 0 ]; then
        echo "== $kind ${size} MB: wc exit $wc_code, memplan exit $code" >&2
        exit 1
      fi
      echo "   run $rep: wc -l $w ms wall, $wc_c ms CPU; memplan $m ms wall, $c ms CPU," \
           "$((r / 1024)) MiB peak RSS" >&2
      wc_ms+=("$w"); wc_cpu+=("$wc_c"); mp_ms+=("$m"); mp_cpu+=("$c"); mp_rss+=("$r")
      ratio+=("$(awk -v m="$m" -v w="$w" 'BEGIN { printf "%.3f", m / w }')")
      # wc's CPU time can read 0 on a tiny file (rusage ticks): at least 1 ms.
      cpu_ratio+=("$(awk -v m="$c" -v w="$wc_c" 'BEGIN { printf "%.3f", m / (w < 1 ? 1 : w) }')")
      if [ -n "$baseline" ]; then
        read -r m c r code < <("$timer" -- "$baseline" analyze "$file" --format="$format")
        if [ "$code" != 0 ]; then
          echo "== $kind ${size} MB: baseline exit $code" >&2
          exit 1
        fi
        echo "   run $rep: baseline $m ms wall, $c ms CPU, $((r / 1024)) MiB peak RSS" >&2
        b_ms+=("$m"); b_cpu+=("$c"); b_rss+=("$r")
        b_ratio+=("$(awk -v m="$m" -v w="$w" 'BEGIN { printf "%.3f", m / w }')")
        b_cpu_ratio+=("$(awk -v m="$c" -v w="$wc_c" 'BEGIN { printf "%.3f", m / (w < 1 ? 1 : w) }')")
      fi
    done
    rm -f "$file"
    rows+="$(row "$kind" "${mp_ms[*]}" "${mp_cpu[*]}" "${mp_rss[*]}" "${ratio[*]}" "${cpu_ratio[*]}")"$'\n'
    if [ -n "$baseline" ]; then
      rows+="$(row "$kind (baseline)" "${b_ms[*]}" "${b_cpu[*]}" "${b_rss[*]}" "${b_ratio[*]}" \
        "${b_cpu_ratio[*]}")"$'\n'
    fi
  done
done

echo
echo "memplan analyze --format=$format, medians of $reps back-to-back runs;" \
     "load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
echo
echo "| input | file | lines | wc -l ms | memplan ms | time / wc -l | wc -l CPU ms | memplan CPU ms | CPU / wc -l CPU | peak RSS | RSS / file |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s' "$rows"
