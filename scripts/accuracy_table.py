#!/usr/bin/env python3
"""Prints docs/accuracy.md's tables from the JAX ground-truth corpus.

Runs `memplan analyze --format=json` on every samples/jax case, both the text
dump and the HloProto, and compares with truth.json (memory_analysis()) and
with XLA's own temp allocation size. Usage:

    python3 scripts/accuracy_table.py [build/cli/memplan]
"""
import json
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MEMPLAN = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build/cli/memplan")
FIELDS = ["argument", "output", "alias", "temp"]


def analyze(path):
    out = subprocess.run([MEMPLAN, "analyze", str(path), "--format=json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    cases = sorted(p for p in (ROOT / "samples/jax").iterdir() if p.is_dir())
    print("| case | " + " | ".join(FIELDS) + " | all exact |")
    print("|---|" + "---|" * (len(FIELDS) + 1))
    errors = []
    arena_rows = []
    for case in cases:
        truth = json.loads((case / "truth.json").read_text())["memory_analysis"]
        text = analyze(case)
        proto = analyze(next(case.glob("*.hlo.pb")))
        cells, exact = [], True
        for f in FIELDS:
            want = truth[f + "_size_in_bytes"]
            got = {text[f + "_bytes"], proto[f + "_bytes"]}
            exact &= got == {want}
            cells.append(f"{want:,}" + ("" if got == {want} else f" (got {sorted(got)})"))
        print(f"| {case.name} | " + " | ".join(cells) + f" | {'yes' if exact else 'NO'} |")
        for source, result in (("text", text), ("proto", proto)):
            for arena in result["temp_arenas"]:
                errors.append(arena["best_fit_error_percent"])
                arena_rows.append((case.name, source, arena))
    print()
    print("| case | lifetimes from | XLA temp | best-fit | signed error | no-fragmentation bound | fragmentation |")
    print("|---|---|---|---|---|---|---|")
    for name, source, a in arena_rows:
        print(f"| {name} | {a['lifetimes_from']} | {a['xla_size']:,} | {a['best_fit_size']:,} | "
              f"{a['best_fit_error_percent']:+.2f}% | {a['lower_bound']:,} | "
              f"{a['fragmentation_percent']:.2f}% |")
    print()
    print(f"Signed error over {len(errors)} simulations: median "
          f"{statistics.median(errors):+.2f}%, max |error| {max(abs(e) for e in errors):.2f}%")


if __name__ == "__main__":
    main()
