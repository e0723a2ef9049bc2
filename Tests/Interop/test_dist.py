"""The release packages of `make dist` (docs/packaging.md), each installed in a clean Debian 12
root made for the test (scripts/debian-root.sh: debootstrap minbase plus the programs the check
drives, no Swift toolchain and no build tree) and used there as a user would: apt installs the
.deb's dependencies, passkeyd runs, python-fido2 registers and signs in through the shipped
wheel, ssh-keygen makes a key through the installed provider, libfido2's fido2-token sees
passkeyd under `passkeyctl exec`, systemd accepts the units, `passkeyctl browser install` finds
the installed extension, and `dpkg -r` leaves only the user's data. The tarball's install.sh
the same under a prefix. Two `make dist` runs give the same bytes.

Each check mounts an overlay over the cached root (which is never written), so every run starts
from the same clean Debian; the packages come from $PASSKEYD_DIST_DIR (dist/out), made by
`make dist` when missing."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import tarfile
import time
from pathlib import Path

import pytest

from debian_root import (DEB_NAME, EXECUTABLES, LIBDIR, MULTIARCH, SOCKET, SWIFT_LIBRARY, TARBALL_NAME, VERSION, Root,
                         built_packages, clean_debian_root, make_dist)
from passkeyd_hid import REPO

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting and chroot need root (CI runs as root)")


@pytest.fixture(scope="module")
def packages() -> tuple[Path, Path]:
    return built_packages()


@pytest.fixture(scope="module")
def debian_root() -> Path:
    return clean_debian_root()


def start_daemon(root: Root) -> None:
    # Presence and built-in UV approved by the daemon, as the shipped pytest fixture starts it.
    done = root.run("passkeyd", "--detach", "--presence", "auto", "--uv", "auto", timeout=120)
    assert SOCKET in done.stdout, done.stdout


def stop_daemon(root: Root) -> None:
    status = root.run("passkeyctl", "status", "--json", check=False, timeout=60)
    if status.returncode == 0:
        os.kill(json.loads(status.stdout)["pid"], signal.SIGTERM)
        for _ in range(100):
            if not root.run("sh", "-c", f"test -S {SOCKET}", check=False).returncode == 0:
                break
            time.sleep(0.1)


def depends_of(deb: Path) -> list[str]:
    field = subprocess.run(["dpkg-deb", "-f", str(deb), "Depends"], capture_output=True, text=True, check=True).stdout
    return [part.strip().split(" ")[0] for part in field.split(",") if part.strip()]


@pytest.fixture(scope="module")
def deb_root(packages, debian_root, tmp_path_factory):
    """The clean root with `apt-get install ./passkeyd_….deb` done (apt brings the Depends), then
    libfido2's tools for the exec check; passkeyd running as the user's daemon."""
    deb, _ = packages
    root = Root(debian_root, tmp_path_factory.mktemp("deb-root"))
    try:
        before = {p for p in depends_of(deb) if root.run("dpkg-query", "-W", "-f=${Status}", p, check=False).stdout
                  == "install ok installed"}
        root.put(deb, f"/tmp/{DEB_NAME}")
        root.apt_install(f"/tmp/{DEB_NAME}")
        root.installed_by_apt = [p for p in depends_of(deb) if p not in before]
        root.apt_install("fido2-tools")
        start_daemon(root)
        yield root
    finally:
        root.close()


def test_the_executables_link_no_swift_library(packages, tmp_path):
    """--static-swift-stdlib: the Swift runtime and Foundation are inside the executables."""
    deb, _ = packages
    subprocess.run(["dpkg-deb", "-x", str(deb), str(tmp_path)], check=True)
    sizes = []
    for e in EXECUTABLES:
        binary = tmp_path / "usr/bin" / e
        linked = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=True).stdout
        assert not SWIFT_LIBRARY.search(linked), f"{e} links a Swift library:\n{linked}"
        assert "not found" not in linked, linked
        sizes.append(f"{e} {binary.stat().st_size}")
    print("sizes:", ", ".join(sizes), f"; .deb {deb.stat().st_size}")


def test_the_deb_is_laid_out_as_debian_expects_and_names_its_depends(packages):
    deb, _ = packages
    listed = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True).stdout
    paths = {line.split()[-1].lstrip(".") for line in listed.splitlines()}
    owners = {line.split()[1] for line in listed.splitlines()}
    assert owners == {"root/root"}
    for path in [*(f"/usr/bin/{e}" for e in EXECUTABLES), f"{LIBDIR}/libpasskeyd-sk.so",
                 f"{LIBDIR}/libpasskeyd-preload.so", f"{LIBDIR}/libpasskeyd-libfido2.a",
                 f"/usr/lib/{MULTIARCH}/pkgconfig/passkeyd-libfido2.pc", "/usr/include/passkeyd-libfido2.h",
                 "/usr/lib/systemd/user/passkeyd.socket", "/usr/lib/systemd/user/passkeyd.service",
                 "/usr/lib/systemd/user/passkeyd-standalone.service", "/usr/share/man/man1/passkeyctl.1.gz",
                 "/usr/share/passkeyd/browser-extension/manifest.json", "/usr/share/bash-completion/completions/passkeyctl",
                 "/usr/share/zsh/vendor-completions/_passkeyctl", "/usr/share/fish/vendor_completions.d/passkeyctl.fish",
                 "/usr/share/doc/passkeyd/README.md", "/usr/share/doc/passkeyd/copyright"]:
        assert path in paths, f"{path} is not in the .deb"
    assert any(re.fullmatch(r"/usr/share/passkeyd/python/passkeyd-[\d.]+-py3-none-any\.whl", p) for p in paths)
    depends = depends_of(deb)
    for package in ("libc6", "libsqlite3-0", "libsecp256k1-1", "libfido2-1", "publicsuffix"):
        assert package in depends, depends
    assert not any("swift" in p for p in depends)


def test_apt_installs_the_deb_with_its_depends(deb_root, packages):
    deb, _ = packages
    # The clean root's python3 already brings libsqlite3-0 and its OpenSSH client libfido2-1;
    # the rest came with the .deb.
    assert {"libsecp256k1-1", "publicsuffix"} <= set(deb_root.installed_by_apt), deb_root.installed_by_apt
    for package in depends_of(deb):
        assert deb_root.run("dpkg-query", "-W", "-f=${Status}", package).stdout == "install ok installed", package
    for e in ("passkeyd", "passkeyctl"):
        assert deb_root.run(e, "--version").stdout.strip() == VERSION
    assert not (deb_root.path / "opt/swift").exists() and not deb_root.run("sh", "-c", "command -v swift",
                                                                           check=False).stdout


def test_python_fido2_registers_and_signs_in_through_the_shipped_wheel(deb_root):
    deb_root.sh("/opt/fido2/bin/pip install -q --no-index /usr/share/passkeyd/python/passkeyd-*.whl")
    shown = deb_root.run("/opt/fido2/bin/pip", "show", "passkeyd").stdout
    assert "Location: /opt/fido2/lib/" in shown
    # No __pycache__ beside the shipped example: dpkg -r must find its folder as it left it.
    done = deb_root.run("/opt/fido2/bin/pytest", "-q", "-p", "no:cacheprovider",
                        "/usr/share/doc/passkeyd/examples/test_passkey.py", timeout=300, PYTHONDONTWRITEBYTECODE="1")
    assert "1 passed" in done.stdout, done.stdout


def test_ssh_keygen_makes_a_key_through_the_installed_provider(deb_root):
    deb_root.run("ssh-keygen", "-q", "-t", "ed25519-sk", "-w", f"{LIBDIR}/libpasskeyd-sk.so", "-N", "",
                 "-f", "/root/id_ed25519_sk", timeout=120)
    public = (deb_root.path / "root/id_ed25519_sk.pub").read_text()
    assert public.startswith("sk-ssh-ed25519@openssh.com ")


def test_passkeyctl_exec_lets_fido2_token_list_passkeyd(deb_root):
    listed = deb_root.run("passkeyctl", "exec", "--", "fido2-token", "-L", timeout=120).stdout
    assert any(line.startswith(f"passkeyd:{SOCKET}: vendor=0x0000, product=0x0000") for line in listed.splitlines()), listed
    preload = deb_root.run("passkeyctl", "exec", "--", "sh", "-c", 'echo "$LD_PRELOAD"').stdout
    assert preload == f"{LIBDIR}/libpasskeyd-preload.so\n"


def test_systemd_accepts_the_installed_units(deb_root):
    units = [f"/usr/lib/systemd/user/{u}" for u in ("passkeyd.socket", "passkeyd.service", "passkeyd-standalone.service")]
    for u in units[1:]:
        assert "ExecStart=/usr/bin/passkeyd\n" in (deb_root.path / u.lstrip("/")).read_text()
    if deb_root.run("sh", "-c", "command -v systemd-analyze", check=False).returncode != 0:
        pytest.skip("no systemd-analyze in the root")
    done = deb_root.run("systemd-analyze", "verify", "--man=no", "--user", *units, check=False)
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr


def test_browser_install_finds_the_installed_extension(deb_root):
    done = deb_root.run("passkeyctl", "browser", "install", "--chromium", "--profile", "/root/chromium-profile",
                        "--json")
    installed = json.loads(done.stdout)
    manifest_path = next(m["path"] for m in installed["manifests"] if m["browser"] == "chromium")
    manifest = json.loads((deb_root.path / manifest_path.lstrip("/")).read_text())
    # The host manifest names the installed extension by its ID, and starts the installed passkeyctl.
    extension = deb_root.path / "usr/share/passkeyd/browser-extension"
    extension_id = (extension / "EXTENSION_ID").read_text().strip()
    assert manifest["allowed_origins"] == [f"chrome-extension://{extension_id}/"]
    assert installed["passkeyctl"] == "/usr/bin/passkeyctl"
    assert "/usr/bin/passkeyctl" in (deb_root.path / manifest["path"].lstrip("/")).read_text()
    shipped = json.loads((extension / "manifest.json").read_text())
    assert shipped["manifest_version"] == 3
    assert sorted(p.name for p in extension.iterdir()) == sorted(
        p.name for p in (REPO / "integrations/browser/extension").iterdir())


def test_dpkg_remove_leaves_nothing_but_the_users_data(deb_root):
    """Run last in this module: the package goes, and with it every file it brought."""
    packaged = [p for p in deb_root.run("dpkg", "-L", "passkeyd").stdout.splitlines() if p]
    stop_daemon(deb_root)
    deb_root.run("dpkg", "-r", "passkeyd")
    assert deb_root.run("dpkg-query", "-W", "-f=${Status}", "passkeyd", check=False).stdout in ("", "unknown ok not-installed",
                                                                                                  "deinstall ok config-files")
    for path in packaged:
        inside = deb_root.path / path.lstrip("/")
        assert not inside.is_file(), f"{path} is left after dpkg -r"
    for folder in (LIBDIR, "/usr/share/passkeyd", "/usr/share/doc/passkeyd"):
        assert not (deb_root.path / folder.lstrip("/")).exists(), folder
    # Nothing else the install made: every file the overlay holds beyond the clean root belongs
    # to an installed package, or is the package manager's, the user's, or the test's own.
    owned = deb_root.owned_paths()
    allowed = re.compile(r"/(root|tmp|run|opt/fido2|proc)(/|$)|/var/(lib/(dpkg|apt|systemd)|cache|log)/|/etc/ld\.so\.cache$"
                         r"|/etc/alternatives/|/__pycache__/|\.pyc$|/etc/(passwd|group|shadow|gshadow)-?$")
    stray = []
    for item in deb_root.upper.rglob("*"):
        path = "/" + str(item.relative_to(deb_root.upper))
        if item.is_dir() or item.is_char_device() or allowed.search(path) or path in owned:
            continue
        stray.append(path)
    assert stray == [], f"left by the package: {stray}"
    # The user's keystore is theirs: dpkg -r does not touch it.
    assert (deb_root.path / "root/.local/share/passkeyd").is_dir()
    assert any((deb_root.path / "root/.local/share/passkeyd").iterdir())


def test_the_tarball_installs_under_a_prefix_and_uninstalls(packages, debian_root, tmp_path):
    _, tarball = packages
    with tarfile.open(tarball) as t:
        top = {m.name.split("/")[0] for m in t.getmembers()}
    assert top == {f"passkeyd-{VERSION}"}
    root = Root(debian_root, tmp_path)
    try:
        root.put(tarball, f"/tmp/{TARBALL_NAME}")
        root.run("tar", "-xzf", f"/tmp/{TARBALL_NAME}", "-C", "/tmp")
        install = f"/tmp/passkeyd-{VERSION}/install.sh"
        # Without Debian's libraries it says what is missing and installs nothing.
        refused = root.run(install, "--prefix", "/opt/passkeyd", check=False)
        assert refused.returncode == 1 and "libsecp256k1.so.1" in refused.stderr and "apt install" in refused.stderr
        assert not (root.path / "opt/passkeyd").exists()
        root.apt_install("libsecp256k1-1", "libfido2-1", "publicsuffix")
        done = root.run(install, "--prefix", "/opt/passkeyd")
        assert "installed passkeyd under /opt/passkeyd" in done.stdout
        prefix = root.path / "opt/passkeyd"
        assert root.run("/opt/passkeyd/bin/passkeyd", "--version").stdout.strip() == VERSION
        preload = root.run("/opt/passkeyd/bin/passkeyctl", "exec", "--", "sh", "-c", 'echo "$LD_PRELOAD"').stdout
        assert preload == f"/opt/passkeyd/lib/{MULTIARCH}/passkeyd/libpasskeyd-preload.so\n"
        assert "ExecStart=/opt/passkeyd/bin/passkeyd\n" in (prefix / "share/systemd/user/passkeyd.service").read_text()
        assert "prefix=/opt/passkeyd\n" in (prefix / f"lib/{MULTIARCH}/pkgconfig/passkeyd-libfido2.pc").read_text()
        root.run("/opt/passkeyd/bin/passkeyd", "--detach", "--presence", "auto", "--uv", "off", timeout=120)
        root.run("ssh-keygen", "-q", "-t", "ed25519-sk", "-w", f"/opt/passkeyd/lib/{MULTIARCH}/passkeyd/libpasskeyd-sk.so",
                 "-N", "", "-f", "/root/id_sk", timeout=120)
        assert (root.path / "root/id_sk.pub").read_text().startswith("sk-ssh-ed25519@openssh.com ")
        status = root.run("/opt/passkeyd/bin/passkeyctl", "status", "--json")
        os.kill(json.loads(status.stdout)["pid"], signal.SIGTERM)
        root.run(install, "--prefix", "/opt/passkeyd", "--uninstall")
        assert [str(p) for p in prefix.rglob("*") if not p.is_dir()] == []
    finally:
        root.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_two_make_dist_runs_give_identical_bytes(packages, tmp_path):
    """Same commit, same SOURCE_DATE_EPOCH (the commit's time): byte-identical .deb and tarball,
    every entry root's and dated SOURCE_DATE_EPOCH. The first run is `make test`'s dist stage (the
    packages every other check here installs), the second one is made now."""
    first, second = packages[0].parent, tmp_path / "b"
    make_dist(second)
    for name in (DEB_NAME, TARBALL_NAME):
        assert digest(first / name) == digest(second / name), f"{name} differs between two make dist runs"
    epoch = int(subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%ct"], capture_output=True, text=True,
                               check=True).stdout)
    with tarfile.open(first / TARBALL_NAME) as t:
        members = t.getmembers()
    assert all(m.mtime == epoch and m.uid == 0 and m.gid == 0 for m in members)
    data = subprocess.run(f"dpkg-deb --fsys-tarfile {first / DEB_NAME} | tar -tv --full-time", shell=True,
                          capture_output=True, text=True, check=True, env={**os.environ, "TZ": "UTC"}).stdout
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(epoch))
    assert all(stamp in line and "root/root" in line for line in data.splitlines()), data[:2000]
