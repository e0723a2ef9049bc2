#!/usr/bin/env bash
# `make dist` (docs/packaging.md): the release packages, built from products already made by
# `make release-build` (a release build with the Swift runtime linked in) and the C integrations:
#
#   dist/out/passkeyd_VERSION_ARCH.deb            for `apt install ./passkeyd_….deb`
#   dist/out/passkeyd-VERSION-linux-ARCH.tar.gz   the same tree under passkeyd-VERSION/, with install.sh
#
# Reproducible: the same commit, build machine and SOURCE_DATE_EPOCH (default: the commit's time)
# give byte-identical files — every mtime is SOURCE_DATE_EPOCH, owners are root:root, the tar
# entries are sorted, gzip writes no name or time, and dpkg-deb reads SOURCE_DATE_EPOCH itself.
#
#   RELEASE_DIR=.build-release/release   where the release products are
#   DIST_OUT=dist/out                    where the packages go
#   PYTHON=python3                       builds the wheel (needs setuptools and wheel)
set -euo pipefail
cd "$(dirname "$0")/.."

RELEASE_DIR="${RELEASE_DIR:-.build-release/release}"
DIST_OUT="${DIST_OUT:-dist/out}"
PYTHON="${PYTHON:-python3}"
for tool in dpkg-architecture dpkg-shlibdeps dpkg-deb strip; do
  command -v "$tool" >/dev/null || { echo "dist: $tool is missing (Debian: apt install dpkg-dev binutils)" >&2; exit 1; }
done
"$PYTHON" -c 'import setuptools, wheel' 2>/dev/null ||
  { echo "dist: $PYTHON lacks setuptools or wheel (Debian: apt install python3-setuptools python3-wheel)" >&2; exit 1; }
VERSION="$(sed -n 's/.*static let \(major\|minor\|build\): UInt8 = \([0-9]*\).*/\2/p' Sources/PasskeydLocal/PasskeydVersion.swift | paste -sd.)"
ARCH="$(dpkg --print-architecture)"
MULTIARCH="$(dpkg-architecture -qDEB_HOST_MULTIARCH)"
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
  SOURCE_DATE_EPOCH="$(git log -1 --format=%ct 2>/dev/null || echo 0)"
fi
export SOURCE_DATE_EPOCH
# Locale and umask decide sort order and modes; fix both.
export LC_ALL=C TZ=UTC
umask 022

EXECUTABLES=(passkeyd passkeyctl passkeydemo)
for e in "${EXECUTABLES[@]}"; do
  [ -x "$RELEASE_DIR/$e" ] || { echo "dist: $RELEASE_DIR/$e is missing: run make release-build first" >&2; exit 1; }
done
for f in integrations/ssh/build/libpasskeyd-sk.so integrations/preload/build/libpasskeyd-preload.so \
  integrations/c/build/libpasskeyd-libfido2.a; do
  [ -f "$f" ] || { echo "dist: $f is missing: run make release-build first" >&2; exit 1; }
done
MAN_DIR="${MAN_DIR:-$(dirname "$RELEASE_DIR")/plugins/GenerateManual/outputs}"

work="$(mktemp -d "${TMPDIR:-/tmp}/passkeyd-dist.XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/root"
LIBDIR="usr/lib/$MULTIARCH/passkeyd"

# The tree as Debian lays it out (Filesystem Hierarchy Standard, Debian Policy §9 and §12).
install -d "$root/usr/bin" "$root/$LIBDIR" "$root/usr/lib/$MULTIARCH/pkgconfig" "$root/usr/include" \
  "$root/usr/lib/systemd/user" "$root/usr/share/man/man1" "$root/usr/share/passkeyd/browser-extension" \
  "$root/usr/share/passkeyd/python" "$root/usr/share/bash-completion/completions" \
  "$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d" \
  "$root/usr/share/doc/passkeyd/examples"

for e in "${EXECUTABLES[@]}"; do
  # Debug information stripped as Debian's dh_strip does; the symbol table stays for backtraces.
  install -m 755 "$RELEASE_DIR/$e" "$root/usr/bin/$e"
  strip --strip-debug --remove-section=.comment "$root/usr/bin/$e"
  "$RELEASE_DIR/$e" --generate-completion-script bash >"$root/usr/share/bash-completion/completions/$e"
  "$RELEASE_DIR/$e" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_$e"
  "$RELEASE_DIR/$e" --generate-completion-script fish >"$root/usr/share/fish/vendor_completions.d/$e.fish"
  [ -f "$MAN_DIR/$e/$e.1" ] || { echo "dist: $MAN_DIR/$e/$e.1 is missing: run make release-build first" >&2; exit 1; }
  gzip -9n <"$MAN_DIR/$e/$e.1" >"$root/usr/share/man/man1/$e.1.gz"
done

install -m 644 integrations/ssh/build/libpasskeyd-sk.so "$root/$LIBDIR/libpasskeyd-sk.so"
install -m 644 integrations/preload/build/libpasskeyd-preload.so "$root/$LIBDIR/libpasskeyd-preload.so"
install -m 644 integrations/c/build/libpasskeyd-libfido2.a "$root/$LIBDIR/libpasskeyd-libfido2.a"
strip --strip-debug "$root/$LIBDIR/libpasskeyd-sk.so" "$root/$LIBDIR/libpasskeyd-preload.so"
install -m 644 integrations/c/passkeyd-libfido2.h "$root/usr/include/passkeyd-libfido2.h"
# On pkg-config's own search path; the library itself stays in passkeyd's folder.
sed -e 's|@PREFIX@|/usr|' -e 's|@VERSION@|'"$VERSION"'|' \
  -e 's|^libdir=.*|libdir=${prefix}/lib/'"$MULTIARCH"'/passkeyd|' integrations/c/passkeyd-libfido2.pc.in \
  >"$root/usr/lib/$MULTIARCH/pkgconfig/passkeyd-libfido2.pc"

install -m 644 dist/systemd/passkeyd.socket "$root/usr/lib/systemd/user/passkeyd.socket"
for u in passkeyd.service passkeyd-standalone.service; do
  sed 's|@BINDIR@|/usr/bin|' "dist/systemd/$u.in" >"$root/usr/lib/systemd/user/$u"
done

install -m 644 integrations/browser/extension/* "$root/usr/share/passkeyd/browser-extension/"

# The python-fido2 adapter as a wheel, built from a copy so nothing in the tree changes.
cp -r integrations/python "$work/python"
rm -rf "$work/python/build" "$work/python"/*.egg-info
"$PYTHON" -m pip wheel -q --no-deps --no-build-isolation --disable-pip-version-check -w "$work/wheel" "$work/python" >&2
install -m 644 "$work"/wheel/*.whl "$root/usr/share/passkeyd/python/"
install -m 644 integrations/python/examples/test_passkey.py "$root/usr/share/doc/passkeyd/examples/test_passkey.py"

install -m 644 README.md "$root/usr/share/doc/passkeyd/README.md"
install -m 644 dist/debian/copyright "$root/usr/share/doc/passkeyd/copyright"
gzip -9n <dist/debian/changelog >"$root/usr/share/doc/passkeyd/changelog.Debian.gz"

# What the binaries need from Debian, the way dpkg-shlibdeps tells every Debian package, and the
# public suffix list passkeyd reads for RP ID checks (a data file, so no library says it).
mkdir -p "$work/shlibs/debian"
printf 'Source: passkeyd\n\nPackage: passkeyd\nArchitecture: any\n' >"$work/shlibs/debian/control"
elves=("${EXECUTABLES[@]/#/$root/usr/bin/}" "$root/$LIBDIR/libpasskeyd-sk.so" "$root/$LIBDIR/libpasskeyd-preload.so")
shlibs="$(cd "$work/shlibs" && dpkg-shlibdeps -O "${elves[@]}" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')"
[ -n "$shlibs" ] || { echo "dist: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
depends="$shlibs, publicsuffix"

# Every file and folder: root's, SOURCE_DATE_EPOCH old, modes as installed.
find "$root" -type d -exec chmod 755 {} +
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

mkdir -p "$DIST_OUT"
# The output folder is a build product: it keeps itself out of git.
[ -f "$DIST_OUT/.gitignore" ] || echo '*' >"$DIST_OUT/.gitignore"

# The .deb (deb(5)): control archive from dist/debian/control, data archive from the tree.
deb_root="$work/deb"
cp -a "$root" "$deb_root"
install -d "$deb_root/DEBIAN"
installed_size="$(find "$deb_root" -path "$deb_root/DEBIAN" -prune -o -type f -printf '%s\n' |
  awk '{ k += int(($1 + 1023) / 1024) } END { print k }')"
sed -e "s|@VERSION@|$VERSION|" -e "s|@ARCH@|$ARCH|" -e "s|@DEPENDS@|$depends|" \
  -e "s|@INSTALLED_SIZE@|$installed_size|" dist/debian/control >"$deb_root/DEBIAN/control"
(cd "$deb_root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$deb_root/DEBIAN/md5sums"
chmod 644 "$deb_root/DEBIAN/control" "$deb_root/DEBIAN/md5sums"
find "$deb_root/DEBIAN" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
deb="$DIST_OUT/passkeyd_${VERSION}_${ARCH}.deb"
# xz at level 1: level 6 (dpkg's default) takes 84 CPU seconds per 98 MB executable, level 1 takes
# 23, for a .deb 16 % larger; make test builds the packages twice (the reproducibility check).
dpkg-deb --root-owner-group -Zxz -z1 --build "$deb_root" "$deb" >/dev/null

# The tarball: the same tree under passkeyd-VERSION/, and install.sh to put it under a prefix.
name="passkeyd-$VERSION"
tar_root="$work/tar/$name"
mkdir -p "$work/tar"
cp -a "$root" "$tar_root"
install -m 755 dist/install.sh "$tar_root/install.sh"
printf '%s\n' "$MULTIARCH" >"$tar_root/MULTIARCH"
chmod 644 "$tar_root/MULTIARCH"
touch -h -d "@$SOURCE_DATE_EPOCH" "$tar_root" "$tar_root/install.sh" "$tar_root/MULTIARCH"
tarball="$DIST_OUT/$name-linux-$ARCH.tar.gz"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" --format=gnu \
  -C "$work/tar" -cf - "$name" | gzip -6n >"$tarball" # -9: three times the CPU for 0.5 % less

for f in "$deb" "$tarball"; do
  printf 'dist: %s (%s bytes, sha256 %s)\n' "$f" "$(stat -c %s "$f")" "$(sha256sum "$f" | cut -d' ' -f1)"
done
