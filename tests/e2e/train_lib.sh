# Helpers of the trainer's end-to-end tests (test_train_resume.sh,
# test_train_mpi.sh, test_train_mpi_hosts.sh), sourced after tests/tap.sh
# with BIN (electra-train), PY (python3) and T (the test's scratch folder)
# set; the weight comparisons also read TOL.

# tiny_corpus: $T/text.txt, 300 documents of 1-5 sentences drawn (seeded)
# from 60 common words, and its 100-token $T/vocab.txt
tiny_corpus() {
  "$PY" - "$T/text.txt" <<'EOF' || return 1
import random, sys
r = random.Random(7)
words = ("time person year way day thing man world life hand part child eye woman place work "
         "week case point government company number group problem fact be have do say get make "
         "go know take see come think look want give use find tell ask seem feel try leave call").split()
with open(sys.argv[1], "w") as f:
    for _ in range(300):
        for _ in range(r.randint(1, 5)):
            f.write(" ".join(r.choice(words) for _ in range(r.randint(5, 15))) + " .\n")
        f.write("\n")
EOF
  "$BIN" vocab --input "$T/text.txt" --vocab-size 100 --out "$T/vocab.txt" 2>/dev/null
}

# until_saved LOG PID: wait (up to 30 s) until the run PID has reported a
# checkpoint in LOG ("saved step N", printed once state.bin is in place) or
# has ended
until_saved() {
  for _ in $(seq 1 600); do
    grep -q "^saved step" "$1" 2>/dev/null && break
    kill -0 "$2" 2>/dev/null || break
    sleep 0.05
  done
}

# within A B: the largest weight difference of two checkpoints is below TOL
within() {
  local out
  out=$("$PY" tests/e2e/weights_diff.py "$1/model.safetensors" "$2/model.safetensors") || return 1
  echo "#   $(basename "$(dirname "$1")")/$(basename "$1") vs $(basename "$(dirname "$2")"): $out"
  "$PY" -c 'import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)' \
    "$(echo "$out" | awk '{print $2}')" "$TOL"
}
beyond() { ! within "$@"; }

# check_resume A B HOW LAUNCH OTHER OTHERHOW: the pretraining run $T/B (its
# stderr in $T/B.log) was killed after a checkpoint; $T/A is the same run
# uninterrupted, both started by the command prefix in the array named
# LAUNCH. --resume under LAUNCH must end bit-identical to A. Another split
# resumes equivalently (the same data, draws and schedule, sums in another
# order); over many steps a generator sample whose Gumbel scores nearly tie
# flips and the runs drift apart, so 4 resumed steps under the array named
# OTHER are compared with the same 4 under LAUNCH, within TOL.
check_resume() {
  local -n launch=$4 other=$5
  local a=$T/$1 b=$T/$2 how=$3 otherhow=$6 at rc m
  check "the run had not finished" sh -c "! grep -q '^finished' '$b.log'"
  at=$(grep -o "^saved step [0-9]*" "$b.log" | tail -1 | awk '{print $3}')
  cp -r "$b" "$b-other"
  cp -r "$b" "$b-four"
  "${launch[@]}" "$BIN" pretrain --out "$b" --resume >/dev/null 2>"$b-resumed.log"
  rc=$?
  check "--resume $how exits 0 (rc $rc)" [ $rc -eq 0 ]
  check "... from the saved step $at" grep -q "resuming after step $at" "$b-resumed.log"
  for m in discriminator generator; do
    check "resumed $how: $m identical to the uninterrupted run (cmp)" \
      cmp "$a/$m/model.safetensors" "$b/$m/model.safetensors"
  done
  "${other[@]}" "$BIN" pretrain --out "$b-other" --resume --max-steps $((at + 4)) \
    >/dev/null 2>"$b-other.log"
  rc=$?
  check "--resume $otherhow exits 0 (rc $rc)" [ $rc -eq 0 ]
  "${launch[@]}" "$BIN" pretrain --out "$b-four" --resume --max-steps $((at + 4)) \
    >/dev/null 2>"$b-four.log"
  for m in discriminator generator; do
    check "4 resumed steps: $otherhow within $TOL of $how ($m; equivalent, not bit-exact)" \
      within "$b-four/$m" "$b-other/$m"
  done
}
