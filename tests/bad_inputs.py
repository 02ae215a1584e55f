#!/usr/bin/env python3
"""The bad-input suite (issue 14): inputs generated from the samples, each
run through the `memplan` subcommand that reads its format.

Cases: every seed truncated at record (line) boundaries and at random
offsets; numbers replaced by negative, 2^63 and overflowing values; empty
files, binary garbage, NUL bytes, UTF-16, CRLF and CR-only line ends; each
format fed to every other format's subcommand; a directory with no dumps, a
FIFO, an unreadable file, /dev/zero.

Each run must end within a time bound in either exit 0 with a warning, or
exit 2 with a message naming the file (with line:column when the problem is
at a place in it), and must leave no output file (-o) when it fails and no
temporary file ever. `memplan check` may also exit 1 (a budget exceeded).
Prints the counts, lists every failure, and exits 1 on any crash, hang or
broken rule. A run that exits 0 without any warning (a truncation that leaves
a smaller valid document, say) is counted as such, listed with --verbose, and
does not fail the suite.

    tests/bad_inputs.py MEMPLAN_BINARY SOURCE_DIR [--jobs N] [--verbose]
"""

import argparse
import concurrent.futures
import os
import random
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time

TIME_BOUND_S = 20  # per run; a run that takes longer counts as a hang

# Seeds: (format, sample path relative to the source tree, is_text).
MLP = "samples/jax/mlp_train_step/jit_mlp_train_step.cpu_after_optimizations"
SEEDS = [
    ("buffer-assignment", MLP + "-buffer-assignment.txt", True),
    ("buffer-assignment", "samples/xla/seed004_gpu_decode-buffer-assignment.txt", True),
    ("hlo-proto", MLP + ".hlo.pb", False),
    ("memory-usage-report", MLP + "-memory-usage-report.txt", True),
    ("oom-message", "samples/reports/gpt_train_step-oom-gpu.txt", True),
    ("hlo-text", MLP + ".txt", True),
    ("call-tree", "samples/calltree/seed000_vescale_nanogpt_4d_calltree.txt.gz", False),
    ("budget-yaml", None, True),  # written below
    ("baseline-json", None, True),  # `memplan analyze --format=json` of MLP
    ("nccl-tests", "samples/nccl-tests/a3mega-h100-2node-all_reduce.txt", True),
]
BUDGET_YAML = (
    "# budgets\n\"*\":\n  device: H100-80GB\n  peak: 0.8 * device\n  regression: 5%\n"
    "jit_mlp_train_step:\n  temp: 1.5GiB\n  device_footprint: 800MB\n"
    "jit_small: {device_memory: 1MiB, output: 0.5 * device, regression: 2.5%}\n")

# file:line:col, or a byte offset for binary formats (gzip, protobuf).
LOCATED = re.compile(r"\S:\d+:\d+\b|: byte \d+: ")
WARNED = re.compile(r"warning|Recoverable problems: [1-9]|Note: ", re.IGNORECASE)


class Case:
    def __init__(self, name, fmt, path, kind="file"):
        self.name = name  # what was done, for the listing
        self.fmt = fmt  # the subcommand's format
        self.path = path  # the input
        self.kind = kind  # "file", or "whole" for inputs with no line to point at


def command_for(memplan, fmt, path, out, aux):
    """The memplan command line that reads `path` as format `fmt`."""
    if fmt in ("buffer-assignment", "hlo-proto", "memory-usage-report", "oom-message",
               "hlo-text"):
        return [memplan, "analyze", path, "--format=json", "-o", out]
    if fmt == "call-tree":
        return [memplan, "calltree", path, "--format=json", "-o", out]
    if fmt == "budget-yaml":
        return [memplan, "check", aux["dump"], "--budget", path, "--junit", out]
    if fmt == "baseline-json":
        return [memplan, "check", aux["dump"], "--budget", aux["budget"], "--baseline", path,
                "--junit", out]
    if fmt == "nccl-tests":
        return [memplan, "calibrate", path, "--format=json", "-o", out]
    raise ValueError(fmt)


def file_name_for(fmt, stem):
    """A file name the format's reader accepts (dump readers look at suffixes)."""
    return {
        "buffer-assignment": stem + "-buffer-assignment.txt",
        "hlo-proto": stem + ".hlo.pb",
        "memory-usage-report": stem + "-memory-usage-report.txt",
        "oom-message": stem + "-oom.txt",
        "hlo-text": stem + ".txt",
        "call-tree": stem + ".calltree.txt",
        "budget-yaml": stem + ".yaml",
        "baseline-json": stem + ".json",
        "nccl-tests": stem + ".nccl.txt",
    }[fmt]


def mutations(data, is_text, rng):
    """(name, bytes) variants of one seed."""
    out = [("empty", b""), ("garbage", bytes(rng.getrandbits(8) for _ in range(4096)))]
    n = len(data)
    # Truncations at record boundaries (lines), at most 12, evenly spread.
    if is_text:
        ends = [m.end() for m in re.finditer(rb"\n", data)]
        step = max(1, len(ends) // 12)
        for k in ends[::step][:12]:
            out.append((f"truncated-at-line-end-{k}", data[:k]))
    for k in sorted(rng.sample(range(1, max(2, n)), min(8, max(1, n - 1)))):
        out.append((f"truncated-at-{k}", data[:k]))
    # Numbers replaced: the first, a middle and the last number of the file.
    numbers = list(re.finditer(rb"(?<![\w.])\d+(?![\w.])", data)) if is_text else []
    picks = [numbers[i] for i in sorted({0, len(numbers) // 2, len(numbers) - 1})
             ] if numbers else []
    for m in picks:
        for label, value in (("negative", b"-1"), ("2^63", b"9223372036854775808"),
                             ("overflow", b"99999999999999999999999999")):
            out.append((f"number-{m.start()}-{label}",
                        data[:m.start()] + value + data[m.end():]))
    if is_text:
        middle = n // 2
        out.append(("nul-bytes", data[:middle] + b"\0\0\0" + data[middle:]))
        try:
            out.append(("utf-16", data.decode("utf-8").encode("utf-16")))
        except UnicodeDecodeError:
            pass
        out.append(("crlf", data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")))
        out.append(("cr-only", data.replace(b"\r\n", b"\n").replace(b"\n", b"\r")))
        out.append(("invalid-utf-8", data[:middle] + b"\xff\xc0\xaf\xed\xa0\x80" + data[middle:]))
    return out


def build_cases(src, work, rng, seeds_data):
    cases = []
    for fmt, data, is_text in seeds_data:
        for name, variant in mutations(data, is_text, rng):
            path = os.path.join(work, "in", file_name_for(fmt, f"{fmt}.{name}"))
            with open(path, "wb") as f:
                f.write(variant)
            cases.append(Case(f"{fmt}/{name}", fmt, path))
    # Each format fed to every other format's reader.
    for fmt_in, data, _ in seeds_data:
        for fmt_as, _, _ in seeds_data:
            if fmt_in == fmt_as:
                continue
            path = os.path.join(work, "in", file_name_for(fmt_as, f"{fmt_in}-as-{fmt_as}"))
            with open(path, "wb") as f:
                f.write(data)
            cases.append(Case(f"{fmt_in} read as {fmt_as}", fmt_as, path))
    # Whole-file problems: no line to point at.
    empty_dir = os.path.join(work, "in", "no-dumps")
    os.makedirs(empty_dir)
    with open(os.path.join(empty_dir, "notes.txt"), "w") as f:
        f.write("not a dump\n")
    cases.append(Case("directory without dumps", "buffer-assignment", empty_dir, "whole"))
    unreadable = os.path.join(work, "in", "unreadable-buffer-assignment.txt")
    shutil.copy(os.path.join(src, SEEDS[0][1]), unreadable)
    os.chmod(unreadable, 0)
    cases.append(Case("unreadable file", "buffer-assignment", unreadable, "whole"))
    for fmt in ("buffer-assignment", "budget-yaml", "baseline-json", "call-tree"):
        cases.append(Case(f"/dev/zero as {fmt}", fmt, "/dev/zero", "whole"))
    cases.append(Case("missing file", "buffer-assignment", os.path.join(work, "nope.txt"),
                      "whole"))
    fifo = os.path.join(work, "in", "fifo-buffer-assignment.txt")
    os.mkfifo(fifo)
    cases.append(Case("FIFO", "buffer-assignment", fifo, "fifo"))
    return cases


def feed_fifo(path, data, stop):
    """Writes `data` to the FIFO once a reader opens it (or gives up)."""
    while not stop.is_set():
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            time.sleep(0.05)
            continue
        os.set_blocking(fd, True)
        try:
            os.write(fd, data)
        except OSError:
            pass
        os.close(fd)
        return


def run_case(memplan, case, work, aux, fifo_data):
    out_dir = tempfile.mkdtemp(dir=os.path.join(work, "out"))
    out = os.path.join(out_dir, "out.result")
    argv = command_for(memplan, case.fmt, case.path, out, aux)
    stop = threading.Event()
    feeder = None
    if case.kind == "fifo":
        feeder = threading.Thread(target=feed_fifo, args=(case.path, fifo_data, stop))
        feeder.start()
    start = time.monotonic()
    try:
        p = subprocess.run(argv, capture_output=True, timeout=TIME_BOUND_S)
        code, err, stdout = p.returncode, p.stderr.decode("utf-8", "replace"), \
            p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        code, err, stdout = None, "", ""
    elapsed = time.monotonic() - start
    stop.set()
    if feeder:
        feeder.join()
    left = sorted(os.listdir(out_dir))
    shutil.rmtree(out_dir)
    result = {"case": case, "code": code, "err": err, "elapsed": elapsed, "problem": None}
    if code is None:
        result["outcome"] = "hang"
        result["problem"] = f"no exit within {TIME_BOUND_S} s"
    elif code < 0 or code > 2 or "Sanitizer" in err or "runtime error:" in err:
        result["outcome"] = "crash"
        result["problem"] = f"exit {code}: {err[-400:]}"
    elif any(".tmp." in name for name in left):
        result["outcome"] = "broken"
        result["problem"] = f"temporary file left: {left}"
    elif code == 2:
        result["outcome"] = "exit 2"
        if left:
            result["problem"] = f"partial output file left: {left}"
        elif case.kind == "file" and not LOCATED.search(err):
            # An error about a place in the file must say where.
            # ... unless it is about the file as a whole.
            if not re.search(r"(cannot read|not a regular file|no such file|"
                             r"cannot open|no budgets|empty|nothing was checked)", err,
                             re.IGNORECASE):
                result["problem"] = "exit 2 without file:line:col: " + err[-300:]
        elif not err.strip():
            result["problem"] = "exit 2 without a message"
        if result["problem"]:
            result["outcome"] = "broken"
    elif code == 1:
        result["outcome"] = "exit 1 (check failed)"
        if case.fmt not in ("budget-yaml", "baseline-json"):
            result["outcome"] = "broken"
            result["problem"] = "exit 1 from a command that uses 0 and 2 only"
    else:
        result["outcome"] = "exit 0 with warning" if WARNED.search(err + stdout) or \
            case.fmt in ("budget-yaml", "baseline-json") else "exit 0 without warning"
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("memplan")
    parser.add_argument("source_dir")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    memplan = os.path.abspath(args.memplan)
    src = os.path.abspath(args.source_dir)
    rng = random.Random(14)  # deterministic cases
    work = tempfile.mkdtemp(prefix="memplan-bad-inputs-")
    try:
        os.makedirs(os.path.join(work, "in"))
        os.makedirs(os.path.join(work, "out"))
        aux = {"dump": os.path.join(src, SEEDS[0][1]), "budget": os.path.join(work, "ok.yaml")}
        with open(aux["budget"], "w") as f:
            f.write("\"*\":\n  regression: 5%\n")
        baseline = subprocess.run([memplan, "analyze", aux["dump"], "--format=json"],
                                  capture_output=True, check=True).stdout
        seeds_data = []
        for fmt, rel, is_text in SEEDS:
            if fmt == "budget-yaml":
                data = BUDGET_YAML.encode()
            elif fmt == "baseline-json":
                data = baseline
            else:
                with open(os.path.join(src, rel), "rb") as f:
                    data = f.read()
            seeds_data.append((fmt, data, is_text))
        cases = build_cases(src, work, rng, seeds_data)
        fifo_data = seeds_data[0][1]
        start = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(lambda c: run_case(memplan, c, work, aux, fifo_data), cases))
        total = time.monotonic() - start
    finally:
        for root, dirs, files in os.walk(work):
            for name in files + dirs:
                try:
                    os.chmod(os.path.join(root, name), stat.S_IRWXU)
                except OSError:
                    pass
        shutil.rmtree(work, ignore_errors=True)

    counts = {}
    for r in results:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    slowest = max(results, key=lambda r: r["elapsed"])
    print(f"bad-input suite: {len(results)} cases in {total:.1f} s "
          f"(slowest {slowest['elapsed']:.1f} s: {slowest['case'].name})")
    for outcome in ("exit 0 with warning", "exit 0 without warning", "exit 1 (check failed)",
                    "exit 2", "crash", "hang", "broken"):
        print(f"  {outcome:24} {counts.get(outcome, 0)}")
    bad = [r for r in results if r["outcome"] in ("crash", "hang", "broken")]
    for r in bad:
        print(f"FAIL {r['case'].name} ({r['case'].path}): {r['outcome']}: {r['problem']}")
    if args.verbose:
        for r in results:
            if r["outcome"] == "exit 0 without warning":
                print(f"note: exit 0 without warning: {r['case'].name}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
