#!/usr/bin/env python3
"""Where the time of a training step goes: runs `perf record` on
build/bench/bench_train and sums the samples into the rows of docs/RESULTS.md's
profile table (SGEMM kernel, packing, GELU and softmax, ...). Each sample's
function is placed by the source file it comes from (addr2line -i, outermost
frame), so static helpers of the same name in two files (forward_rows in
op_layernorm.c and op_loss.c) land in their own rows. Setup (allocation,
random initialisation) is included, as perf sees the whole process.

  tests/bench/profile_step.py [PRESET] [STEPS] [THREADS]   (default small 4 1)
Environment: BUILD (build). Needs perf and addr2line (binutils)."""
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROWS = [
    ("SGEMM kernel", lambda s, f: s.startswith(("sgemm_kernel", "sgemm_small_kernel"))),
    ("SGEMM packing and scaling", lambda s, f: s.startswith("sgemm_")),
    ("GELU and softmax", lambda s, f: f.startswith("op_gelu") or s == "softmax_rows"),
    ("LayerNorm", lambda s, f: f.startswith("op_layernorm")),
    ("loss, sampler, random numbers",
     lambda s, f: f.startswith(("op_loss", "objective", "rng")) or
     s.startswith(("__cos", "__sin", "__ieee754_log", "__log", "__exp"))),
    ("memset / memcpy", lambda s, f: "memmove" in s or "memset" in s or "memcpy" in s),
    ("AdamW and gradient norm", lambda s, f: f.startswith("optim")),
    ("attention outside SGEMM", lambda s, f: f.startswith(("op_attention", "op_relpos"))),
    ("bias gradients, dropout masks, embeddings",
     lambda s, f: f.startswith(("op_dense", "tmodel", "op_misc", "op_embed"))),
]
REST = "setup (page faults, initialisation), rest"


def source_file(binary, addr):
    out = subprocess.run(["addr2line", "-i", "-e", binary, addr], capture_output=True,
                         text=True).stdout.strip().splitlines()
    return os.path.basename(out[-1]) if out else ""


def main():
    preset = sys.argv[1] if len(sys.argv) > 1 else "small"
    steps = sys.argv[2] if len(sys.argv) > 2 else "4"
    threads = sys.argv[3] if len(sys.argv) > 3 else "1"
    binary = os.path.join(os.environ.get("BUILD", "build"), "bench", "bench_train")
    for tool in ("perf", "addr2line"):
        if not shutil.which(tool):
            sys.exit(f"profile_step.py: {tool} not found")
    if not os.access(binary, os.X_OK):
        sys.exit(f"profile_step.py: {binary} not built (run make)")
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        subprocess.run(["perf", "record", "-F", "999", "-o", data, binary, preset, steps, threads],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        report = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort",
                                 "dso,symbol", "-v"], capture_output=True, text=True).stdout
    shares = collections.OrderedDict((name, 0.0) for name, _ in ROWS)
    shares[REST] = 0.0
    for line in report.splitlines():
        m = re.match(r"\s+([\d.]+)%\s+(\S+)\s+(0x[0-9a-f]+)\s+\S+\s+\[.\]\s+(\S+)", line)
        if not m:
            continue
        share, dso, addr, sym = float(m.group(1)), m.group(2), m.group(3), m.group(4)
        # only the bench's own functions have source files to look up
        f = source_file(binary, addr) if os.path.basename(dso) == "bench_train" else ""
        row = next((name for name, match in ROWS if match(sym, f)), REST)
        shares[row] += share
    print(f"# {binary} {preset} {steps} {threads}: share of perf samples")
    for name, share in shares.items():
        print(f"{name:44s} {share:5.1f} %")


if __name__ == "__main__":
    main()
