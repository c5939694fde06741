# The TAP helpers of the shell tests (tests/run.sh reads their output), sourced
# after the test has changed to the repository root: `. tests/tap.sh`.
# ok/nok (bad is the same) print a result, nok counting it in fails; skip
# prints a skipped check; check MSG CMD... runs CMD and reports MSG by its
# exit status. A test ends with `exit $((fails > 0))`.
fails=0
ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; fails=$((fails + 1)); }
bad() { nok "$@"; }
skip() { echo "ok - # SKIP $*"; }
check() { local msg=$1; shift; if "$@"; then ok "$msg"; else nok "$msg"; fi; }
