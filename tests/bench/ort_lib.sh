# Sourced by bench_ort.sh and bench_large.sh: ONNX Runtime for the benchmarks.
# onnxruntime-node (npm; its package bundles the Linux x64/arm64 runtime, so it is
# installed with --ignore-scripts and nothing but the npm registry is needed),
# cached in $ORT_DIR.
#   ort_install   installs onnxruntime-node $ORT_VERSION under $ORT_DIR once, checks that it
#                 loads; on failure prints why (for the table) and returns 1.
#                 Writes its logs into $dir.
ORT_VERSION=${ORT_VERSION:-1.30.0}
ORT_DIR=${ORT_DIR:-${BUILD:-build}/onnxruntime}

ort_install() {
  command -v node >/dev/null && command -v npm >/dev/null ||
    { echo "node and npm not found (Debian: apt-get install nodejs npm)"; return 1; }
  local have
  have=$(NODE_PATH="$ORT_DIR/node_modules" node -e \
    'process.stdout.write(require("onnxruntime-node/package.json").version)' 2>/dev/null) || have=""
  if [ "$have" != "$ORT_VERSION" ]; then
    mkdir -p "$ORT_DIR"
    timeout 600 npm install --prefix "$ORT_DIR" --ignore-scripts --no-audit --no-fund \
      "onnxruntime-node@$ORT_VERSION" >"$dir/npm.log" 2>&1 ||
      { echo "npm install onnxruntime-node@$ORT_VERSION failed: $(tail -n 1 "$dir/npm.log")"; return 1; }
  fi
  NODE_PATH="$ORT_DIR/node_modules" node -e 'require("onnxruntime-node")' >"$dir/node.log" 2>&1 ||
    { echo "onnxruntime-node does not load: $(head -n 1 "$dir/node.log")"; return 1; }
}
