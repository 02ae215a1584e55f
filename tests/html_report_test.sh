#!/usr/bin/env bash
# `memplan report` in a real browser: renders the HTML report for seed 004
# and a samples/jax case, opens each in headless Chromium (with the page's
# #selftest, which hovers an allocation-map rectangle and the timeline and
# logs whether the tooltips answered), and fails on
#   - chromium missing (scripts/install-deps.sh installs it; CI must notice),
#   - any console message but the self-test's "ok" (the page logs nothing
#     else; errors, "Uncaught" exceptions and Content-Security-Policy
#     refusals all show up as console messages),
#   - a blank screenshot (too few colours or non-white pixels).
# Screenshots are kept in $MEMPLAN_HTML_SHOTS when that is set.
#
# usage: html_report_test.sh MEMPLAN_BINARY SOURCE_DIR
set -euo pipefail

memplan=$1
source_dir=$2

chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  echo "FAIL: chromium is not installed (scripts/install-deps.sh installs it)" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cases=(
  "seed004 samples/xla/seed004_gpu_decode-buffer-assignment.txt"
  "jax_transformer_block_f32 samples/jax/transformer_block_f32"
)

# Decodes an 8-bit RGB(A) PNG with zlib alone and prints
# "WIDTH HEIGHT DISTINCT_COLOURS NON_WHITE_PIXELS".
png_stats() {
  python3 - "$1" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat = 8, b''
while pos < len(data):
    length, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b'IHDR':
        width, height, depth, colour, _, _, interlace = struct.unpack('>IIBBBBB', body)
    elif kind == b'IDAT':
        idat += body
    pos += 12 + length
assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
bpp = 3 if colour == 2 else 4
raw = zlib.decompress(idat)
stride = width * bpp
prev = bytearray(stride)
colours, non_white = set(), 0
for y in range(height):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if f == 1:
        for i in range(bpp, stride):
            line[i] = (line[i] + line[i - bpp]) & 255
    elif f == 2:
        for i in range(stride):
            line[i] = (line[i] + prev[i]) & 255
    elif f == 3:
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
    elif f == 4:
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[i] = (line[i] + pred) & 255
    # Every 4th pixel is enough to count colours and ink.
    for x in range(0, width, 4):
        px = bytes(line[x * bpp:x * bpp + 3])
        colours.add(px)
        if px != b'\xff\xff\xff':
            non_white += 1
    prev = line
print(width, height, len(colours), non_white)
PY
}

failed=0
for entry in "${cases[@]}"; do
  read -r name path <<<"$entry"
  html="$work/$name.html"
  shot="$work/$name.png"
  if ! "$memplan" report "$source_dir/$path" -o "$html"; then
    echo "FAIL: $name: memplan report exited with an error" >&2
    failed=1
    continue
  fi
  log="$work/$name.log"
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --enable-logging=stderr --v=0 --user-data-dir="$work/profile-$name" \
    --screenshot="$shot" --window-size=1280,2000 "file://$html#selftest" >"$log" 2>&1 || {
    echo "FAIL: $name: chromium exited with an error" >&2
    tail -20 "$log" >&2
    failed=1
    continue
  }
  console=$(grep -E 'CONSOLE|Uncaught' "$log" || true)
  echo "$name: console:"
  echo "${console:-  (nothing)}"
  unexpected=$(echo "$console" | grep -v '"memplan-selftest: ok' | grep -v '^$' || true)
  if [ -n "$unexpected" ] || grep -q 'Uncaught' "$log"; then
    echo "FAIL: $name: console errors or messages:" >&2
    echo "$unexpected" >&2
    failed=1
  fi
  if ! echo "$console" | grep -q '"memplan-selftest: ok (map, timeline)'; then
    echo "FAIL: $name: the page's self-test did not report ok (did its script run?)" >&2
    failed=1
  fi
  if [ ! -s "$shot" ]; then
    echo "FAIL: $name: no screenshot" >&2
    failed=1
    continue
  fi
  read -r width height colours ink <<<"$(png_stats "$shot")"
  echo "$name: screenshot ${width}x${height}, $colours colours, $ink non-white pixels (1 in 4 sampled)"
  if [ "$colours" -lt 16 ] || [ "$ink" -lt 20000 ]; then
    echo "FAIL: $name: the screenshot looks blank" >&2
    failed=1
  fi
  if [ -n "${MEMPLAN_HTML_SHOTS:-}" ]; then
    mkdir -p "$MEMPLAN_HTML_SHOTS"
    cp "$shot" "$html" "$MEMPLAN_HTML_SHOTS/"
  fi
done

if [ "$failed" -ne 0 ]; then
  echo "html_report_test: FAILED" >&2
  exit 1
fi
echo "html_report_test: ok"
