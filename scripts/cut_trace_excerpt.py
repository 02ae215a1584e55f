#!/usr/bin/env python3
"""Cut a time window out of a Kineto (PyTorch profiler) Chrome trace, keeping
the text of every kept event exactly as Kineto wrote it.

Kineto writes one event per block: a line "  {", the event's lines, and a
line "  }," (the last one "  }"). This script keeps the header (everything up
to and including '"traceEvents": ['), every metadata event ("ph": "M"),
every event whose time span meets [START, END] microseconds (so the slices
enclosing the window stay, and the call stacks in it stay whole), and the
footer (from the line "  ]," on), then writes the result gzip'd with a fixed
mtime so reruns give the same bytes.

    python3 scripts/cut_trace_excerpt.py IN.json.gz OUT.json.gz START_US END_US
"""
import gzip
import json
import re
import sys


def main():
    src, dst, start, end = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    text = gzip.open(src, "rt", encoding="utf-8").read()
    head_end = text.index('"traceEvents": [') + len('"traceEvents": [')
    footer_start = text.rindex("\n  ]")
    header, body, footer = text[:head_end], text[head_end:footer_start], text[footer_start:]
    blocks = re.split(r"\n  \},?(?=\n|$)", body)
    kept = []
    for block in blocks:
        block = block.strip("\n")
        if not block.strip():
            continue
        event = json.loads(block.strip() + "\n}")
        ph = event.get("ph")
        ts = event.get("ts")
        keep = ph == "M"
        if not keep and isinstance(ts, (int, float)):
            dur = event.get("dur", 0) or 0
            keep = ts <= end and ts + dur >= start
        if keep:
            kept.append(block + "\n  }")
    out = header + "\n" + ",\n".join(kept) + footer
    json.loads(out)  # still one valid JSON document
    with open(dst, "wb") as f:
        with gzip.GzipFile(fileobj=f, mode="wb", compresslevel=9, mtime=0, filename="") as gz:
            gz.write(out.encode("utf-8"))
    print(f"kept {len(kept)} of {len(blocks)} events, {len(out)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
