"""The release packages and the clean Debian 12 root they are checked in (test_dist.py,
test_ci_example.py): the packages from $PASSKEYD_DIST_DIR (dist/out), made by `make dist` when
missing; the root made once by scripts/debian-root.sh and never written, as each check mounts an
overlay over it."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

from passkeyd_hid import REPO

VERSION = ".".join(re.findall(r"static let (?:major|minor|build): UInt8 = (\d+)",
                              (REPO / "Sources/PasskeydLocal/PasskeydVersion.swift").read_text()))
ARCH = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
MULTIARCH = subprocess.run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"], capture_output=True, text=True).stdout.strip()
LIBDIR = f"/usr/lib/{MULTIARCH}/passkeyd"
DIST = Path(os.environ.get("PASSKEYD_DIST_DIR", REPO / "dist" / "out"))
DEB_NAME = f"passkeyd_{VERSION}_{ARCH}.deb"
TARBALL_NAME = f"passkeyd-{VERSION}-linux-{ARCH}.tar.gz"
EXECUTABLES = ("passkeyd", "passkeyctl", "passkeydemo")
# The user's session inside the root.
USER_ENV = {"HOME": "/root", "XDG_RUNTIME_DIR": "/run/user/0", "LANG": "C.UTF-8",
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
SOCKET = "/run/user/0/passkeyd/ctaphid.sock"
SWIFT_LIBRARY = re.compile(r"libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|libXCTest")


def make_env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    env.update(extra)
    return env


def make_dist(out: Path) -> subprocess.CompletedProcess:
    done = subprocess.run(["make", "--no-print-directory", "-C", str(REPO), "dist"], env=make_env(DIST_OUT=str(out)),
                          capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return done


def built_packages() -> tuple[Path, Path]:
    """The .deb and the tarball, made now if they are not there yet."""
    deb, tarball = DIST / DEB_NAME, DIST / TARBALL_NAME
    if not (deb.is_file() and tarball.is_file()):
        make_dist(DIST)
    return deb, tarball


def clean_debian_root() -> Path:
    """The cached clean root (made first when missing or of an older recipe)."""
    done = subprocess.run([str(REPO / "scripts" / "debian-root.sh")], capture_output=True, text=True, timeout=1800,
                          cwd=REPO)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return REPO / ".build-dist" / "debian-12"


class Root:
    """A throw-away Debian root: an overlay over the cached one, /proc mounted, commands chrooted
    with a clean environment. Closing stops every process still running inside and unmounts."""

    def __init__(self, base: Path, work: Path):
        self.base = base
        self.upper, self.scratch, self.path = work / "upper", work / "work", work / "root"
        for d in (self.upper, self.scratch, self.path):
            d.mkdir(parents=True)
        subprocess.run(["mount", "-t", "overlay", "overlay", "-o",
                        f"lowerdir={base},upperdir={self.upper},workdir={self.scratch}", str(self.path)], check=True)
        subprocess.run(["mount", "-t", "proc", "proc", str(self.path / "proc")], check=True)
        (self.path / "run/user/0").mkdir(parents=True, mode=0o700, exist_ok=True)

    def run(self, *command: str, check: bool = True, timeout: float = 600, **env: str) -> subprocess.CompletedProcess:
        done = subprocess.run(["chroot", str(self.path), "env", "-i", *(f"{k}={v}" for k, v in {**USER_ENV, **env}.items()),
                               *command], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        if check:
            assert done.returncode == 0, f"{command} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done

    def sh(self, script: str, **kwargs) -> subprocess.CompletedProcess:
        return self.run("bash", "-e", "-o", "pipefail", "-c", script, **kwargs)

    def apt_install(self, *what: str) -> str:
        self.run("apt-get", "update", "-qq", timeout=900)
        return self.run("apt-get", "install", "-y", "--no-install-recommends", *what, DEBIAN_FRONTEND="noninteractive",
                        timeout=900).stdout

    def put(self, source: Path, inside: str) -> str:
        shutil.copy(source, self.path / inside.lstrip("/"))
        return inside

    def processes(self) -> list[int]:
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if os.readlink(entry / "root") == str(self.path):
                        found.append(int(entry.name))
                except OSError:
                    pass
        return found

    def close(self) -> None:
        for attempt in range(50):
            left = self.processes()
            if not left:
                break
            for pid in left:
                try:
                    os.kill(pid, signal.SIGTERM if attempt < 25 else signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.2)
        subprocess.run(["umount", str(self.path / "proc")], check=False)
        subprocess.run(["umount", str(self.path)], check=True)

    def owned_paths(self) -> set[str]:
        """Every path some installed package's file list names (dpkg's own database)."""
        owned: set[str] = set()
        for listing in (self.path / "var/lib/dpkg/info").glob("*.list"):
            owned.update(line for line in listing.read_text().splitlines() if line)
        return owned
