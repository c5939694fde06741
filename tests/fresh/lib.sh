# Shared by tests/fresh/*.sh: Debian 12 roots made with debootstrap, cached
# under a scratch folder, and commands run inside them.
#
# Layout of the scratch folder ($FRESH_DIR):
#   cache/debs/               .debs debootstrap downloaded (reused by the next debootstrap)
#   cache/apt-archives/       .debs apt-get downloaded inside roots (bind-mounted there)
#   cache/bookworm-minbase/   pristine `debootstrap --variant=minbase bookworm` (copied, never used)
#   <name>/                   a root copied from it for one check (replaced on each run)
#
# Commands run in a root under unshare: own mount and PID namespaces (every
# mount made for the root disappears with the command, nothing leaks onto the
# host, and no process survives), optionally an own network namespace with
# only a loopback interface, so a server inside can use its default port and
# no network is reachable. Needs root.

fresh_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
fresh_die() { fresh_log "FAILED: $*"; exit 1; }

FRESH_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

fresh_need_root() {
  [ "$(id -u)" -eq 0 ] || fresh_die "run as root (debootstrap, chroot and unshare need it)"
  if ! command -v debootstrap >/dev/null; then
    if grep -q -- '--deploy-tools' "$FRESH_REPO/deploy/install-deps.sh"; then
      "$FRESH_REPO/deploy/install-deps.sh" --deploy-tools >&2
    else
      fresh_log "installing debootstrap"
      DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >&2
    fi
  fi
  for t in debootstrap unshare chroot; do
    command -v "$t" >/dev/null || fresh_die "$t missing: apt-get install debootstrap util-linux coreutils"
  done
}

# The Debian mirror this machine's apt uses (first deb URI that is not the
# security archive), so the roots fetch from where the host does.
fresh_mirror() {
  local u
  u=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | sed -n 's/^URIs:[[:space:]]*//p' |
    tr ' ' '\n' | grep -E '/debian/?$' | head -1)
  [ -n "$u" ] || u=$(sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*\/debian\/\?\)[[:space:]].*/\2/p' \
    /etc/apt/sources.list 2>/dev/null | head -1)
  echo "${u:-http://deb.debian.org/debian}"
}
fresh_security_mirror() {
  local u
  u=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
    grep -v '^[[:space:]]*#' | grep -oE '[a-z]+://[^[:space:]]*/debian-security/?' | head -1)
  echo "${u:-http://deb.debian.org/debian-security}"
}

# fresh_base: makes (once) and prints the path of the pristine minbase root.
fresh_base() {
  local base=$FRESH_DIR/cache/bookworm-minbase
  if [ ! -f "$base/.fresh-complete" ]; then
    local mirror t0=$SECONDS
    mirror=$(fresh_mirror)
    fresh_log "debootstrap --variant=minbase bookworm from $mirror (cached in $FRESH_DIR/cache)"
    rm -rf "$base" "$base.tmp"
    mkdir -p "$FRESH_DIR/cache/debs"
    debootstrap --variant=minbase --cache-dir="$(cd "$FRESH_DIR/cache/debs" && pwd)" \
      bookworm "$base.tmp" "$mirror" >"$FRESH_DIR/cache/debootstrap.log" 2>&1 ||
      { tail -20 "$FRESH_DIR/cache/debootstrap.log" >&2; fresh_die "debootstrap"; }
    # apt sources as on a Debian 12 install: main, updates, security.
    cat >"$base.tmp/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $(fresh_security_mirror) bookworm-security main
EOF
    rm -rf "$base.tmp/var/cache/apt/archives/"*.deb
    touch "$base.tmp/.fresh-complete"
    mv "$base.tmp" "$base"
    fresh_log "debootstrap done in $((SECONDS - t0)) s"
  fi
  echo "$base"
}

# fresh_new_root NAME: a fresh copy of the pristine root at $FRESH_DIR/NAME.
fresh_new_root() {
  local base root=$FRESH_DIR/$1
  base=$(fresh_base) || exit 1
  fresh_remove_root "$root"
  cp -a "$base" "$root"
  rm -f "$root/.fresh-complete"
  mkdir -p "$FRESH_DIR/cache/apt-archives/partial"
  echo "$root"
}

# Removes a root. Mounts for a root live only in the namespace of the
# command that made them, so nothing under it is mounted here; refuse
# anyway if something is.
fresh_remove_root() {
  local root=$1
  [ -e "$root" ] || return 0
  if grep -q " $(realpath "$root")[/ ]" /proc/self/mountinfo; then
    fresh_die "$root has mounts on the host; not removing it"
  fi
  rm -rf "$root"
}

# fresh_in_root ROOT [--isolated-net] [--user UID:GID] [--ro] [--env K=V]... [--cwd DIR] -- CMD...
# Runs CMD in ROOT (as root unless --user) with /proc, /dev, /sys and the
# apt archive cache mounted. --isolated-net: own network namespace, loopback
# only. --ro: the root read-only with a tmpfs on /tmp (as Kubernetes'
# readOnlyRootFilesystem with an emptyDir at /tmp). --env: a clean
# environment with these variables (default: a login-like environment).
fresh_in_root() {
  local root=$1; shift
  local net="" user="" ro=0 cwd=/ envs=()
  while [ $# -gt 0 ]; do
    case $1 in
      --isolated-net) net=--net ;;
      --user) user=$2; shift ;;
      --ro) ro=1 ;;
      --env) envs+=("$2"); shift ;;
      --cwd) cwd=$2; shift ;;
      --) shift; break ;;
      *) fresh_die "fresh_in_root: unknown option $1" ;;
    esac
    shift
  done
  [ ${#envs[@]} -gt 0 ] || envs=(HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
  local archives
  archives=$(cd "$FRESH_DIR/cache/apt-archives" && pwd)
  # shellcheck disable=SC2016
  # setsid: no controlling terminal, so nothing inside writes to ours.
  NET_ISOLATED=$net setsid -w unshare --mount --pid --fork --kill-child $net bash -c '
    set -e
    root=$1 archives=$2 ro=$3 user=$4 cwd=$5 nenv=$6; shift 6
    envs=("${@:1:$nenv}"); shift "$nenv"
    [ -z "$NET_ISOLATED" ] || ip link set lo up
    mount --make-rprivate /
    if [ "$ro" = 1 ]; then mount --bind "$root" "$root"; fi
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount --rbind /sys "$root/sys"
    mkdir -p "$root/var/cache/apt/archives"
    mount --bind "$archives" "$root/var/cache/apt/archives"
    [ -f /etc/resolv.conf ] && cat /etc/resolv.conf >"$root/etc/resolv.conf" 2>/dev/null || true
    if [ "$ro" = 1 ]; then
      mount -t tmpfs -o size=64m,mode=1777 tmpfs "$root/tmp"
      mount -o remount,bind,ro "$root"
    fi
    spec=()
    [ -n "$user" ] && spec=(--userspec="$user")
    exec chroot "${spec[@]}" "$root" /usr/bin/env -i "${envs[@]}" /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$cwd" "$@"
  ' _ "$root" "$archives" "$ro" "$user" "$cwd" "${#envs[@]}" "${envs[@]}" "$@"
}

# All descendants of PID (children, grandchildren, ...), one per line.
fresh_descendants() {
  local p
  for p in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
    echo "$p"
    fresh_descendants "$p"
  done
}

# The first descendant of PID whose command name is NAME.
fresh_find_child() {
  local p
  for p in $(fresh_descendants "$1"); do
    [ "$(cat /proc/"$p"/comm 2>/dev/null)" = "$2" ] && { echo "$p"; return 0; }
  done
  return 1
}

# Ends a backgrounded fresh_in_root (its PID from $!): killing the unshare
# process kills its PID namespace, so nothing started inside survives.
fresh_kill() {
  local p
  for p in $(fresh_descendants "$1"); do
    [ "$(cat /proc/"$p"/comm 2>/dev/null)" = unshare ] && kill "$p" 2>/dev/null
  done
  kill "$1" 2>/dev/null
  wait "$1" 2>/dev/null
  return 0
}

# A free TCP port on 127.0.0.1 (for servers sharing the host's network).
fresh_free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
