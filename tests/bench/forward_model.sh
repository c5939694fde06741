# Sourced by bench_forward.sh, bench_ort.sh and bench_int8.sh: the random ELECTRA-Small-shaped
# discriminator both benchmarks time (12 layers, hidden 256, 4 heads, FFN 1024,
# embedding 128, vocab 30522, seed 1) and the mixed-length batch.
#   el_bench_model DIR   writes DIR/vocab.txt and the checkpoint DIR/small
#   el_bench_mixed       prints the mixed batch: 32 lengths of 8..128 (mean 68)
el_bench_model() {
  local dir=$1
  # A 30522-entry vocabulary (the built-in test words, then [unusedN]); only its size matters.
  "$PYTHON" - "$dir/vocab.txt" <<'PY'
import sys
sys.path.insert(0, "tests/reference")
import make_checkpoint as mc
v = mc.builtin_vocab()
v += ["[unused%d]" % i for i in range(30522 - len(v))]
open(sys.argv[1], "w").write("".join(t + "\n" for t in v))
PY
  "$PYTHON" tests/reference/make_checkpoint.py --arch pretraining --out "$dir/small" \
    --hidden 256 --layers 12 --heads 4 --intermediate 1024 --embedding 128 \
    --vocab "$dir/vocab.txt" --max-position 512 --std 0.02 --seed 1
}

el_bench_mixed() {
  "$PYTHON" -c 'print(",".join(str(8 + (i * 37) % 121) for i in range(32)))'
}
