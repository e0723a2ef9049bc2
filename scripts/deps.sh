#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks to build and test passkeyd.
# Idempotent, and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# Debian packages: SQLite for the keystore, libfido2 and libcbor for interop,
# the public suffix list for RP ID checks, libsecp256k1 for ES256K (docs/algorithms.md),
# and a C toolchain for the interop program; the real programs `make test` drives against
# the daemon (docs/integrations.md): the browsers, OpenSSH, libfido2's tools, pam_u2f.
apt_packages=(libsqlite3-dev zlib1g-dev libfido2-dev libcbor-dev publicsuffix pkg-config gcc make python3-venv libsecp256k1-dev
  chromium chromium-driver firefox-esr openssh-client openssh-server fido2-tools libpam-u2f pamtester man-db
  debootstrap dbus-daemon libnotify-bin dpkg-dev)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "deps: swift is at /opt/swift/usr/bin; the Makefile adds it to PATH"
  else
    echo "deps: Swift 6.x is required (https://swift.org/install); none found" >&2
    exit 1
  fi
fi

# Python host stacks for the interop suites, pinned to what the project tests against.
venv=.venv
stamp="$venv/.deps-stamp"
want="fido2==2.2.1 webauthn==3.0.1"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "deps: creating $venv with $want"
  python3 -m venv "$venv" 2>/dev/null || { rm -rf "$venv"; python3 -m venv --without-pip "$venv"; }
  "$venv/bin/python" -m pip --version >/dev/null 2>&1 || "$venv/bin/python" -m ensurepip -q
  "$venv/bin/python" -m pip install -q --disable-pip-version-check $want pytest
  echo "$want" > "$stamp"
fi

# The browser-test frameworks the passkeyd package's fixtures drive (passkeyd.playwright,
# passkeyd.selenium): Playwright's Python client drives Debian's chromium by executable_path
# (its own browser download is not reachable), Selenium drives Debian's chromium-driver.
web_stamp="$venv/.deps-web-stamp"
web_want="playwright==1.65.2 selenium==4.51.0"
if [ ! -f "$web_stamp" ] || [ "$(cat "$web_stamp")" != "$web_want" ]; then
  echo "deps: installing $web_want into $venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check $web_want
  echo "$web_want" > "$web_stamp"
fi

# A CTAP 2.1-PRE-era host in a venv of its own (test_fido2_09_host.py): python-fido2 0.9, which
# manages credentials on a FIDO_2_1_PRE key with the prototype command 0x41 and getPinToken.
old_venv=Tests/Interop/.venv-fido2-09
old_stamp="$old_venv/.deps-stamp"
old_want="fido2==0.9.3"
if [ ! -f "$old_stamp" ] || [ "$(cat "$old_stamp")" != "$old_want" ]; then
  echo "deps: creating $old_venv with $old_want"
  rm -rf "$old_venv"
  python3 -m venv "$old_venv"
  "$old_venv/bin/python" -m pip install -q --disable-pip-version-check $old_want
  echo "$old_want" > "$old_stamp"
fi

# The shipped Python package `passkeyd` (integrations/python: the python-fido2 transport, its
# alias passkeyd_fido2, passkeyd.testing), editable so the interop suites always use the tree's
# copy; its pytest plugin gives them the passkeyd_device fixture. setuptools and wheel build it
# without fetching anything (test_integration_python.py builds the wheel). The package's earlier
# distribution, passkeyd-fido2, registered the same pytest plugin name: it goes first.
if "$venv/bin/python" -m pip show -q passkeyd-fido2 >/dev/null 2>&1; then
  "$venv/bin/python" -m pip uninstall -y -q passkeyd-fido2
fi
if ! "$venv/bin/python" -c 'import passkeyd.testing, passkeyd_fido2, setuptools, wheel' 2>/dev/null; then
  echo "deps: installing integrations/python into $venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check 'setuptools>=64' wheel
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation -e ./integrations/python
fi
