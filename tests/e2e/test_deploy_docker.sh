#!/usr/bin/env bash
# Static checks of the Dockerfile and .dockerignore (the slow check that
# carries the Dockerfile out is `make docker-check`): two bookworm-slim
# stages; the build stage installs deploy/install-deps.sh's build list and
# builds with PORTABLE=1; the runtime stage installs its runtime list, which
# holds the package of every library the binaries link; non-root numeric
# USER, EXPOSE, HEALTHCHECK through the binary, VOLUME, ENTRYPOINT, ENV
# options that exist; tests/fresh/dockerfile.py understands every line.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
. tests/tap.sh
D=Dockerfile

# Logical lines (continuations joined, comments dropped).
lines=$(sed -e '/^[[:space:]]*#/d' "$D" | sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta')
froms=$(grep -E '^FROM ' <<<"$lines")
check "two stages, both FROM debian:bookworm-slim" \
  test "$(grep -c 'debian:bookworm-slim' <<<"$froms")" -eq 2 -a "$(wc -l <<<"$froms")" -eq 2
check "first stage named (COPY --from uses it)" grep -qE '^FROM debian:bookworm-slim AS [a-z]+' <<<"$froms"
stage1=$(awk '/^FROM /{n++} n==1' <<<"$lines")
stage2=$(awk '/^FROM /{n++} n==2' <<<"$lines")
apt_pkgs() { # packages named by apt-get install in the given text
  grep -oE 'apt-get install[^&]*' <<<"$1" | sed 's/apt-get install//' | tr ' ' '\n' |
    grep -vE '^(-.*|)$' | sort -u
}
dep_list() { # NAME: a list variable of deploy/install-deps.sh
  sed -n "s/^$1=\"\(.*\)\"/\1/p" deploy/install-deps.sh | tr ' ' '\n' | grep -v '^$' | sort -u
}
b_have=$(apt_pkgs "$stage1") b_want=$(dep_list build_pkgs)
r_have=$(apt_pkgs "$stage2") r_want=$(dep_list runtime_pkgs)
check "build stage installs install-deps.sh's build_pkgs (Dockerfile: $(echo $b_have); script: $(echo $b_want))" \
  test -n "$b_want" -a "$b_have" = "$b_want"
check "runtime stage installs install-deps.sh's runtime_pkgs (Dockerfile: $(echo $r_have); script: $(echo $r_want))" \
  test -n "$r_want" -a "$r_have" = "$r_want"
check "runtime stage installs no -dev package" test -z "$(grep -- '-dev$' <<<"$r_have")"
check "build runs make PORTABLE=1" grep -qE '^RUN .*make .*PORTABLE=1' <<<"$stage1"
check "runtime copies both binaries from the build stage" \
  grep -qE '^COPY --from=[a-z]+ .*electra-server .*electra-train' <<<"$stage2"
user=$(sed -n 's/^USER //p' <<<"$stage2" | tail -1)
check "USER is numeric and not root ($user)" \
  sh -c "echo '$user' | grep -qE '^[0-9]+(:[0-9]+)?$' && [ '${user%%:*}' != 0 ]"
check "EXPOSE 8080" grep -qE '^EXPOSE 8080$' <<<"$stage2"
check "VOLUME /models" grep -qE '^VOLUME \[?"?/models' <<<"$stage2"
check "HEALTHCHECK runs electra-server --healthcheck (exec form)" \
  grep -qE '^HEALTHCHECK .*CMD \["electra-server", *"--healthcheck"\]' <<<"$stage2"
check "ENTRYPOINT [\"electra-server\"]" grep -qE '^ENTRYPOINT \["electra-server"\]' <<<"$stage2"
envs=$(grep -E '^ENV ' <<<"$stage2" | sed 's/^ENV //' | tr ' ' '\n' | grep '=')
check "ENV ELECTRA_HOST=0.0.0.0" grep -qx 'ELECTRA_HOST=0.0.0.0' <<<"$envs"
check "ENV ELECTRA_LOG_FORMAT=json" grep -qx 'ELECTRA_LOG_FORMAT=json' <<<"$envs"
for pat in .git build models; do
  check ".dockerignore leaves out $pat" grep -qx "$pat" .dockerignore
done
if "$PYTHON" tests/fresh/dockerfile.py plan "$D" >/dev/null 2>/tmp/el-dockerfile-plan.$$; then
  ok "tests/fresh/dockerfile.py understands every instruction (make docker-check can run it)"
else
  nok "tests/fresh/dockerfile.py plan: $(cat /tmp/el-dockerfile-plan.$$)"
fi
rm -f /tmp/el-dockerfile-plan.$$

server=$BUILD/bin/electra-server
if [ -x "$server" ] && help=$("$server" --help 2>&1); then
  for kv in $(grep '^ELECTRA_' <<<"$envs"); do
    k=${kv%%=*}
    flag=--$(echo "${k#ELECTRA_}" | tr 'A-Z_' 'a-z-')
    check "ENV $k is $flag of electra-server --help" grep -q -- "$flag\b" <<<"$help"
  done
  owner() { # library path -> Debian package; dpkg knows one spelling of
    # the path (usr-merged /lib vs /usr/lib, alternatives' targets)
    local p r
    [ -n "$1" ] || return 0
    r=$(realpath "$1")
    for p in "$r" "$1" "${r#/usr}" "/usr$1"; do
      dpkg -S "$p" 2>/dev/null | head -1 | cut -d: -f1 | grep . && return 0
    done
    return 0
  }
  # Every library a binary links directly must come from a runtime package
  # (or from the base image: libc6, libgcc-s1, libstdc++6).
  for b in electra-server electra-train; do
    [ -x "$BUILD/bin/$b" ] || continue
    for lib in $(objdump -p "$BUILD/bin/$b" 2>/dev/null | awk '/NEEDED/ {print $2}'); do
      path=$(ldd "$BUILD/bin/$b" | awk -v l="$lib" '$1 == l {print $3}')
      pkg=$(owner "$path")
      if [ -z "$pkg" ]; then
        echo "ok - # SKIP $b links $lib: no Debian package found for it here"
        continue
      fi
      check "$b links $lib from $pkg, which the runtime stage installs" \
        grep -qxE "$pkg|libc6|libgcc-s1|libstdc\+\+6" <<<"$r_have"$'\n'libc6$'\n'libgcc-s1$'\n'libstdc++6
    done
  done
else
  echo "ok - # SKIP $server not built: ENV names and linked libraries not checked"
fi
exit $((fails > 0))
