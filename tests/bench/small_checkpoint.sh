# Sourced by the forward benchmarks (bench_forward.sh, bench_int8.sh):
#   make_small_checkpoint DIR   writes DIR/vocab.txt and DIR/small/, a random
#   ELECTRA-Small-shaped discriminator (12 layers, hidden 256, 4 heads, FFN 1024,
#   embedding 128, vocab 30522, std 0.02);
#   mixed_lengths               prints 32 sequence lengths of 8..128 (mean 68).
# Needs $PYTHON with torch.
make_small_checkpoint() {
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

mixed_lengths() {
  "$PYTHON" -c 'print(",".join(str(8 + (i * 37) % 121) for i in range(32)))'
}
