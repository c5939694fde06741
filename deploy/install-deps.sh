#!/usr/bin/env bash
# Installs exactly the Debian 12 packages electra.c needs to build, run and test.
# Idempotent: packages already present are not touched, and apt is not called at all
# when nothing is missing. Run as root or with sudo available.
#   deploy/install-deps.sh            build + run + test dependencies
#   deploy/install-deps.sh --runtime  only what the binaries need at run time
#   deploy/install-deps.sh --deploy-tools  what make fresh-test / make docker-check need, and systemd-analyze
#   deploy/install-deps.sh --fuzz     what make fuzz / make fuzz-smoke need (clang, its
#                                     libFuzzer and sanitizer runtimes, LLVM's OpenMP)
#   deploy/install-deps.sh --check    exit 1 (listing them) if anything is missing
set -euo pipefail

# libdnnl-dev (oneDNN 2.6): the int8 matmul of --dtype int8; optional (the build
# detects it, make DNNL=0 leaves it out), installed by default.
# libhunspell-dev + hunspell-en-gb/-en-us: the spelling dictionaries the GED
# score and the checker's spelling suggestions read (lang/dict.h).
# libsphinxbase-dev + pocketsphinx-en-us: CMU Sphinx's English trigram model,
# read beside hunspell by GED models built with --ngram (lang/ngram.h).
build_pkgs="build-essential pkg-config libopenblas-dev libmicrohttpd-dev libcjson-dev libuv1-dev libutf8proc-dev libdnnl-dev libhunspell-dev hunspell-en-gb hunspell-en-us libsphinxbase-dev pocketsphinx-en-us"
# -fopenmp links libgomp.so.1: without libgomp1 the binaries do not start.
runtime_pkgs="libopenblas0-pthread libgomp1 libmicrohttpd12 libcjson1 libuv1 libutf8proc2 libdnnl2 libhunspell-1.7-0 hunspell-en-gb hunspell-en-us libsphinxbase3 pocketsphinx-en-us"
# python3-torch is the independent reference the tests check the engine against;
# curl drives the end-to-end server tests; fortunes(-min) + wordnet are the English text
# the default model of `make run` is pretrained on, with trans-de-en's example sentences; wamerican + wbritish are the word lists
# the synthetic GED stage derives British spellings from (lang/text_variants.h); chromium renders the
# server's page in the browser test; python3-yaml reads the Kubernetes manifests;
# python3-jsonschema checks every server answer against its /openapi.json.
# time (/usr/bin/time): scripts/ged_table.sh times its runs with it (test_ged_table).
# man-db (man, with groff-base): test_install_lib.sh renders the installed man pages.
# libopenmpi-dev + openmpi-bin: the data-parallel trainer (make MPI=1) and its
# mpirun tests (tests/e2e/test_train_mpi.sh); the build stays MPI-free without them.
# iproute2 (ip, tc): test_train_mpi_hosts.sh builds its hosts as network namespaces.
# nodejs + npm: test_server_ltapi.sh runs npm's languagetool-api client against
# /v2/check (a node and npm already on the PATH, e.g. NodeSource's, count as
# installed: Debian's npm package would conflict with them).
# python3-onnx: tests/bench/export_onnx.py --int8 writes ONNX Runtime's dynamic-int8 peer
# of the int8 engine for `make bench` (bench_ort.sh).
test_pkgs="python3 python3-torch python3-numpy python3-yaml python3-jsonschema python3-onnx curl fortunes-min fortunes wordnet-base wamerican wbritish trans-de-en chromium libopenmpi-dev openmpi-bin iproute2 time man-db nodejs npm"
# make fresh-test / make docker-check: debootstrap builds Debian roots, git clones the repo
# into them; systemd brings systemd-analyze (absent in containers and minimal roots).
deploy_pkgs="debootstrap git systemd"
# make fuzz: clang's -fsanitize=fuzzer links compiler-rt's libFuzzer
# (libclang-rt-14-dev; libfuzzer-14-dev's separate copy is not needed), and
# clang's -fopenmp needs libomp. Not in the default install: about 300 MB.
fuzz_pkgs="clang libclang-rt-14-dev libomp-14-dev"

mode=all
case "${1:-}" in
  --runtime) mode=runtime ;;
  --check) mode=check ;;
  --deploy-tools) mode=deploy ;;
  --fuzz) mode=fuzz ;;
  "") ;;
  *) echo "usage: $0 [--runtime|--deploy-tools|--fuzz|--check]" >&2; exit 2 ;;
esac

if [ "$mode" = runtime ]; then wanted="$runtime_pkgs"
elif [ "$mode" = deploy ]; then wanted="$deploy_pkgs"
elif [ "$mode" = fuzz ]; then wanted="$fuzz_pkgs"
else wanted="$build_pkgs $test_pkgs"; fi

missing=""
for p in $wanted; do
  case $p in # a command that is there, whoever installed it
    nodejs) command -v node >/dev/null 2>&1 && continue ;;
    npm) command -v npm >/dev/null 2>&1 && continue ;;
  esac
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -z "$missing" ]; then
  [ "$mode" = check ] || echo "install-deps: all dependencies present"
  exit 0
fi
if [ "$mode" = check ]; then
  echo "install-deps: missing:$missing" >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install:$missing" >&2; exit 1; }
  SUDO=sudo
fi
echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
