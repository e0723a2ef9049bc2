#!/bin/sh
# Installs this unpacked passkeyd tarball (docs/packaging.md) under a prefix:
#   ./install.sh [--prefix /usr/local] [--destdir DIR]   (default prefix: /usr/local, or ~/.local when not root)
#   ./install.sh --prefix P --uninstall                  removes what an install under P put there
# The tree keeps Debian's layout below the prefix (bin, lib/<multiarch>/passkeyd, share/...);
# the systemd units and the pkg-config file are rewritten to name the prefix. Needs Debian's
# libsqlite3-0, libsecp256k1-1, libfido2-1 and publicsuffix (what the .deb's Depends names);
# it says which are missing and installs nothing else.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
if [ "$(id -u)" -eq 0 ]; then prefix=/usr/local; else prefix="$HOME/.local"; fi
destdir=
uninstall=no
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --prefix=*) prefix="${1#--prefix=}"; shift ;;
    --destdir) destdir="$2"; shift 2 ;;
    --destdir=*) destdir="${1#--destdir=}"; shift ;;
    --uninstall) uninstall=yes; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$prefix" in /*) ;; *) echo "install.sh: --prefix must be absolute" >&2; exit 2 ;; esac
target="$destdir$prefix"
record="$target/share/passkeyd/installed-files"

if [ "$uninstall" = yes ]; then
  [ -f "$record" ] || { echo "install.sh: nothing recorded at $record" >&2; exit 1; }
  while IFS= read -r f; do
    rm -f "$target/$f"
    # Folders the install made and left empty now, up to the prefix.
    d="$(dirname "$f")"
    while [ "$d" != . ] && rmdir "$target/$d" 2>/dev/null; do d="$(dirname "$d")"; done
  done <"$record"
  rm -f "$record"
  rmdir "$target/share/passkeyd" 2>/dev/null || true
  echo "removed passkeyd from $target"
  exit 0
fi

# Debian's libraries the binaries link against (ldd names any that is missing).
missing="$(for f in "$here"/usr/bin/* "$here"/usr/lib/*/passkeyd/*.so; do ldd "$f" 2>/dev/null; done | sed -n 's/^[[:space:]]*\([^ ]*\) => not found$/\1/p' | sort -u)"
if [ -n "$missing" ]; then
  echo "install.sh: missing libraries: $(echo $missing); on Debian: apt install libsqlite3-0 libsecp256k1-1 libfido2-1 publicsuffix" >&2
  exit 1
fi
[ -f /usr/share/publicsuffix/public_suffix_list.dat ] ||
  echo "install.sh: warning: /usr/share/publicsuffix is missing (apt install publicsuffix); passkeyd needs it for RP ID checks" >&2

# systemd looks for user units in <prefix>/share/systemd/user under /usr/local and ~/.local alike
# (systemd.unit(5)), so they go there rather than to Debian's lib/systemd/user.
place() {
  case "$1" in
    lib/systemd/user/*) echo "share/systemd/user/${1#lib/systemd/user/}" ;;
    *) echo "$1" ;;
  esac
}
list="$(mktemp)"
trap 'rm -f "$list"' EXIT
cd "$here/usr"
find . -type f | sed 's|^\./||' | sort | while IFS= read -r f; do
  to="$(place "$f")"
  mkdir -p "$(dirname "$target/$to")"
  case "$f" in
    lib/systemd/user/*.service) sed "s|^ExecStart=/usr/bin/|ExecStart=$prefix/bin/|" "$f" >"$target/$to"; chmod 644 "$target/$to" ;;
    lib/*/pkgconfig/*.pc) sed "s|^prefix=.*|prefix=$prefix|" "$f" >"$target/$to"; chmod 644 "$target/$to" ;;
    *) cp -p "$f" "$target/$to" ;;
  esac
  echo "$to" >>"$list"
done
mkdir -p "$target/share/passkeyd"
cp "$list" "$record"
echo "installed passkeyd under $target; with systemd: systemctl --user daemon-reload && systemctl --user enable --now passkeyd.socket"
