#!/usr/bin/env bash
# Model copies inside one process (train/model/replicas.h): with --threads 2
# `pretrain` (ELECTRA and MLM) and `finetune` (ged, sst2) split each batch
# over two copies of the model, one per thread, and sum their gradients.
#  - the run says so, and ends within TOL of the one-thread run (the same
#    draws; float sums in another order), while another seed is far apart
#    (the check can fail);
#  - two --threads 2 runs are identical bit for bit (which thread computes a
#    copy never matters);
#  - a batch that two does not divide keeps one copy: bit-identical to
#    --threads 1 (the op pool's results do not depend on threads).
# ~40 s on 2 cores.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/bin/electra-train
T=$(mktemp -d /tmp/el_train_copies.XXXXXX)
trap 'rm -rf "$T"' EXIT
. tests/tap.sh
TOL=1e-4

[ -x "$BIN" ] || { bad "$BIN not built"; exit 1; }
"$PY" -c 'import numpy' 2>/dev/null || { echo "ok - # SKIP no numpy at $PY"; exit 0; }

"$PY" - "$T" <<'PYEOF'
import random, sys
d = sys.argv[1]; r = random.Random(7)
words = ("time person year way day thing man world life hand part child eye woman place work "
         "week case point government company number group problem fact be have do say get make "
         "go know take see come think look want give use find tell ask seem feel try leave call").split()
with open(d + "/text.txt", "w") as f:
    for _ in range(300):
        for _ in range(r.randint(1, 5)):
            f.write(" ".join(r.choice(words) for _ in range(r.randint(5, 15))) + " .\n")
        f.write("\n")
with open(d + "/train.tsv", "w") as f:
    f.write("sentence\tlabel\n")
    for i in range(48):
        f.write("the %s %s time\t%d\n" % (r.choice(["man", "woman", "child"]), "come" if i % 2 else "go", i % 2))
with open(d + "/ged.txt", "w") as f:
    for i in range(24):
        f.write("the\tc\n%s\t%s\ncall\tc\n\n" % (r.choice(words), "i" if i % 2 else "c"))
PYEOF
"$BIN" vocab --input "$T/text.txt" --vocab-size 100 --out "$T/vocab.txt" 2>/dev/null ||
  { bad "vocab failed"; exit 1; }

# within A B: the largest weight difference of two checkpoints is below TOL
within() {
  local out
  out=$("$PY" tests/e2e/weights_diff.py "$1/model.safetensors" "$2/model.safetensors") || return 1
  echo "#   $(basename "$1") vs $(basename "$2"): $out"
  "$PY" -c 'import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)' \
    "$(echo "$out" | awk '{print $2}')" "$TOL"
}
beyond() { [ -f "$1/model.safetensors" ] && [ -f "$2/model.safetensors" ] && ! within "$@"; }
same() { cmp -s "$1/model.safetensors" "$2/model.safetensors"; }

# ---- pretraining ----
# --precision fp32: the equivalences are of the fp32 math. Under bf16 a sum
# added in another order can round an operand to the next bf16 value (2^-9
# apart), which eight steps carry past TOL; the runs stay deterministic (the
# bf16 check after the loop).
PTB=(pretrain --input "$T/text.txt" --vocab "$T/vocab.txt" --max-steps 8 --seq-len 40
     --save-every 0 --val-every 0 --log-every 4)
PT0=("${PTB[@]}" --precision fp32)
PT=("${PT0[@]}" --batch-size 8)
for v in "discriminator:" "mlm:--objective mlm"; do
  m=${v%%:*}; read -r -a extra <<<"${v#*:}"
  "$BIN" "${PT[@]}" "${extra[@]}" --seed 5 --threads 1 --out "$T/p1" 2>"$T/p1.log" ||
    { bad "pretrain $m, 1 thread"; tail -3 "$T/p1.log"; }
  "$BIN" "${PT[@]}" "${extra[@]}" --seed 5 --threads 2 --out "$T/p2" 2>"$T/p2.log" ||
    { bad "pretrain $m, 2 threads"; tail -3 "$T/p2.log"; }
  "$BIN" "${PT[@]}" "${extra[@]}" --seed 5 --threads 2 --out "$T/p2b" 2>/dev/null || bad "pretrain $m, 2 threads again"
  check "pretrain $m, 2 threads: the run says it uses 2 model copies" \
    grep -q "data parallel: 1 rank(s) x 2 model copies x 1 accumulation step(s) x 4 sequences" "$T/p2.log"
  check "pretrain $m: 2 copies = 1 thread (max |diff| < $TOL)" within "$T/p1/$m" "$T/p2/$m"
  check "pretrain $m: two 2-thread runs are identical" same "$T/p2/$m" "$T/p2b/$m"
  if [ "$m" = discriminator ]; then
    check "pretrain generator: 2 copies = 1 thread" within "$T/p1/generator" "$T/p2/generator"
    "$BIN" "${PT[@]}" --seed 6 --threads 2 --out "$T/p2s" 2>/dev/null
    check "pretrain: another seed is far apart (the check can fail)" beyond "$T/p2/$m" "$T/p2s/$m"
    # --accumulate 2 with 2 copies: 4 micro-batches of 2 sequences
    "$BIN" "${PT[@]}" --seed 5 --threads 2 --accumulate 2 --out "$T/p2a" 2>"$T/p2a.log" ||
      bad "pretrain, 2 threads --accumulate 2"
    check "pretrain: 2 copies x --accumulate 2 = 1 thread" within "$T/p1/$m" "$T/p2a/$m"
    # a batch of 7: one copy, the 1-thread run bit for bit
    "$BIN" "${PT0[@]}" --seed 5 --threads 1 --batch-size 7 --out "$T/o1" 2>"$T/o1.log" ||
      { bad "batch 7, 1 thread"; sed 's/^/#   /' "$T/o1.log" | tail -3; }
    "$BIN" "${PT0[@]}" --seed 5 --threads 2 --batch-size 7 --out "$T/o2" 2>"$T/o2.log" || bad "batch 7, 2 threads"
    check "pretrain, batch 7 on 2 threads: one copy (no data-parallel line)" \
      bash -c 'grep -q "^finished" "$1" && ! grep -q "model copies" "$1"' _ "$T/o2.log"
    check "pretrain, batch 7: 2 threads = 1 thread bit for bit" same "$T/o1/$m" "$T/o2/$m"
    cp -r "$T/p1" "$T/init"
  fi
  rm -rf "$T/p1" "$T/p2" "$T/p2b"
done
if grep -qw avx512_bf16 /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo; then
  B16=("${PTB[@]}" --batch-size 8 --precision bf16 --seed 5 --threads 2)
  "$BIN" "${B16[@]}" --out "$T/b1" 2>"$T/b1.log" || bad "pretrain --precision bf16"
  "$BIN" "${B16[@]}" --out "$T/b2" 2>/dev/null || bad "pretrain --precision bf16 again"
  check "pretrain --precision bf16, 2 threads: products in bf16, two runs identical" \
    eval "grep -q ' products in bf16,' '$T/b1.log' && cmp -s '$T/b1/discriminator/model.safetensors' '$T/b2/discriminator/model.safetensors'"
else
  skip "pretrain --precision bf16: this CPU has no AVX512_BF16"
fi

# ---- fine-tuning (dropout on: the configs' 0.1) ----
for task in ged sst2; do
  data=$T/train.tsv; [ $task = ged ] && data=$T/ged.txt
  FT=(finetune --init "$T/init" --task $task --train "$data" --dev "$data" --batch-size 8
      --log-every 0 --epochs 2 --max-seq-len 32 --precision fp32)
  "$BIN" "${FT[@]}" --seed 3 --threads 1 --out "$T/f1-$task" 2>/dev/null || bad "finetune $task, 1 thread"
  "$BIN" "${FT[@]}" --seed 3 --threads 2 --out "$T/f2-$task" 2>"$T/f2-$task.log" || bad "finetune $task, 2 threads"
  "$BIN" "${FT[@]}" --seed 3 --threads 2 --out "$T/f2b-$task" 2>/dev/null || bad "finetune $task, 2 threads again"
  "$BIN" "${FT[@]}" --seed 4 --threads 2 --out "$T/f2s-$task" 2>/dev/null || bad "finetune $task, seed 4"
  check "finetune $task, 2 threads: the run says it uses 2 model copies" \
    grep -q "finetune: 2 model copies, one per thread, 4 sequences each" "$T/f2-$task.log"
  check "finetune $task: 2 copies = 1 thread (max |diff| < $TOL)" within "$T/f1-$task" "$T/f2-$task"
  check "finetune $task: two 2-thread runs are identical" same "$T/f2-$task" "$T/f2b-$task"
  check "finetune $task: another seed is far apart" beyond "$T/f2-$task" "$T/f2s-$task"
done
exit $((fails > 0))
