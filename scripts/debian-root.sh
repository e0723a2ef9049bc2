#!/usr/bin/env bash
# The clean Debian 12 root the release packages are checked in (Tests/Interop/test_dist.py):
# `debootstrap --variant=minbase bookworm` from this machine's configured Debian mirror, plus only
# the programs the check drives (python3-venv with python-fido2 and pytest, OpenSSH's client,
# systemd for systemd-analyze; python-fido2's wheels in /var/cache/passkeyd-test/wheels). No Swift toolchain and no build tree: what the packages need
# comes from their Depends, installed by apt during the check. The check never writes into this
# root (it mounts an overlay over it), so it is made once and kept until its recipe changes.
#
#   DEBIAN_ROOT=.build-dist/debian-12   where the root is kept
#   DEBIAN_MIRROR=...                   the mirror (default: the first Debian URI in /etc/apt/sources.list*)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="${DEBIAN_ROOT:-.build-dist/debian-12}"
TOOLS=(python3-venv openssh-client systemd)
PYTHON_PACKAGES=(fido2==2.2.1 pytest)
recipe="bookworm minbase; ${TOOLS[*]}; ${PYTHON_PACKAGES[*]}, wheels kept"
if [ -f "$ROOT/.made-for" ] && [ "$(cat "$ROOT/.made-for")" = "$recipe" ]; then
  echo "debian-root: $ROOT is ready"
  exit 0
fi

mirror="${DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
  mirror="$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ && $2 ~ /\/debian\/?$/ { print $2; exit }')"
fi
if [ -z "$mirror" ]; then
  mirror="$(cat /etc/apt/sources.list 2>/dev/null | awk '$1 == "deb" && $3 ~ /^bookworm/ { print $2; exit }')"
fi
mirror="${mirror:-http://deb.debian.org/debian}"
command -v debootstrap >/dev/null || { echo "debian-root: debootstrap is missing (make deps installs it)" >&2; exit 1; }

start=$SECONDS
new="$ROOT.new"
# A run stopped half-way may have left /proc mounted there.
umount "$new/proc" 2>/dev/null || true
rm -rf "$new"
mkdir -p "$(dirname "$ROOT")"
echo "debian-root: debootstrap bookworm from $mirror into $new"
debootstrap --variant=minbase bookworm "$new" "$mirror" >"$new.log" 2>&1 || {
  tail -20 "$new.log" >&2
  exit 1
}
# The same suites as this machine (updates, security), so apt finds what the host's mirror has.
if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1 && grep -q bookworm /etc/apt/sources.list.d/*.sources; then
  rm -f "$new/etc/apt/sources.list"
  for f in /etc/apt/sources.list.d/*.sources; do grep -q bookworm "$f" && cp "$f" "$new/etc/apt/sources.list.d/"; done
fi
cp /etc/resolv.conf "$new/etc/resolv.conf"
mount -t proc proc "$new/proc"
trap 'umount "$new/proc" 2>/dev/null || true' EXIT
in_root() { chroot "$new" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
in_root apt-get update -qq
in_root apt-get install -y -qq --no-install-recommends "${TOOLS[@]}" >/dev/null
# python-fido2 for the registration through the shipped wheel, from PyPI through this machine's
# pip (its index and certificates), then installed offline in the root.
wheels="$(mktemp -d)"
pip_python="${PY:-$PWD/.venv/bin/python}"
[ -x "$pip_python" ] || pip_python=python3
"$pip_python" -m pip download -q --only-binary=:all: -d "$wheels" "${PYTHON_PACKAGES[@]}"
# Kept in the root: a check that makes a venv of its own (the CI example's steps) installs from them.
kept=/var/cache/passkeyd-test/wheels
mkdir -p "$new$kept"
cp "$wheels"/*.whl "$new$kept/"
rm -rf "$wheels"
in_root python3 -m venv /opt/fido2
in_root /opt/fido2/bin/pip install -q --no-index --find-links "$kept" "${PYTHON_PACKAGES[@]}"
in_root apt-get clean
umount "$new/proc"
trap - EXIT
echo "$recipe" >"$new/.made-for"
rm -rf "$ROOT"
mv "$new" "$ROOT"
mv "$new.log" "$ROOT.debootstrap.log"
echo "debian-root: $ROOT made in $((SECONDS - start)) s"
