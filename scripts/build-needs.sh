#!/usr/bin/env bash
# What building passkeyd (`make install`, `make release`, `make dist`) needs, checked and never
# installed: it names what is missing and the Debian packages that bring it, and exits 1.
# `make deps` (scripts/deps.sh) is the test setup, which does install things.
set -uo pipefail
export PATH="/opt/swift/usr/bin:$PATH"
missing=()
packages=()
command -v "${SWIFT:-swift}" >/dev/null 2>&1 || missing+=("a Swift 6.x toolchain (https://swift.org/install)")
command -v cc >/dev/null 2>&1 || { missing+=("a C compiler"); packages+=(gcc); }
command -v make >/dev/null 2>&1 || { missing+=("make"); packages+=(make); }
if ! command -v pkg-config >/dev/null 2>&1; then
  missing+=("pkg-config")
  packages+=(pkg-config libsqlite3-dev libsecp256k1-dev libfido2-dev libssl-dev zlib1g-dev)
else
  # pkg-config module → the Debian package with its headers.
  for pair in sqlite3:libsqlite3-dev libsecp256k1:libsecp256k1-dev libfido2:libfido2-dev libcrypto:libssl-dev zlib:zlib1g-dev; do
    pkg-config --exists "${pair%%:*}" || { missing+=("${pair%%:*} (pkg-config)"); packages+=("${pair#*:}"); }
  done
fi
if [ ${#missing[@]} -gt 0 ]; then
  printf 'build-needs: missing: %s\n' "$(IFS=,; echo "${missing[*]}" | sed 's/,/, /g')" >&2
  [ ${#packages[@]} -eq 0 ] || printf 'build-needs: on Debian: sudo apt install %s\n' "${packages[*]}" >&2
  exit 1
fi
