"""`passkeyctl browser install|uninstall` and `doctor`'s look at the host: the manifests are where
Chromium and Firefox look, name only the passkeyd extension, and start a host that reaches the
daemon; what install writes, uninstall takes away."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import pathlib
import subprocess

import pytest

from native_host import EXTENSION_ORIGIN, PASSKEYCTL, NativeHost

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
EXTENSION = REPO / "integrations" / "browser" / "extension"


def environment(home: pathlib.Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "PASSKEYD_SOCKET")}
    env["HOME"] = str(home)
    return env


def passkeyctl(home, *args) -> subprocess.CompletedProcess:
    return subprocess.run([PASSKEYCTL, *args], capture_output=True, timeout=60, env=environment(home))


def doctor(home, socket) -> dict:
    done = passkeyctl(home, "--socket", socket, "doctor", "--json")
    checks = json.loads(done.stdout)["checks"]
    return {c["check"]: c for c in checks if c["check"].startswith("browser host")}


def test_install_writes_each_browsers_manifest_and_a_host_that_reaches_the_daemon(daemon, tmp_path):
    done = passkeyctl(tmp_path, "--socket", daemon.socket, "browser", "install", "--json")
    assert done.returncode == 0, done.stderr.decode()
    report = json.loads(done.stdout)
    wrapper = tmp_path / ".local/share/passkeyd/browser-host"
    assert report["host"] == str(wrapper) and report["socket"] == daemon.socket

    chromium = json.loads((tmp_path / ".config/chromium/NativeMessagingHosts/dev.passkeyd.host.json").read_text())
    firefox = json.loads((tmp_path / ".mozilla/native-messaging-hosts/dev.passkeyd.host.json").read_text())
    assert chromium == {"name": "dev.passkeyd.host", "description": chromium["description"], "path": str(wrapper),
                        "type": "stdio", "allowed_origins": [EXTENSION_ORIGIN]}
    # Firefox refuses a manifest that has allowed_origins: each browser gets only its own key.
    assert firefox == {"name": "dev.passkeyd.host", "description": firefox["description"], "path": str(wrapper),
                       "type": "stdio", "allowed_extensions": ["passkeyd@passkeyd.dev"]}
    assert os.access(wrapper, os.X_OK) and wrapper.stat().st_mode & 0o022 == 0

    # Started as Firefox starts it (manifest path, add-on id), with no socket in the environment.
    host = NativeHost(None, command=[str(wrapper), str(tmp_path / ".mozilla/native-messaging-hosts/dev.passkeyd.host.json"),
                                     "passkeyd@passkeyd.dev"], env=environment(tmp_path))
    try:
        assert host.call("ping")["daemon"] is True
    finally:
        host.close()

    found = doctor(tmp_path, daemon.socket)
    assert found["browser host (Chromium)"]["verdict"] == "ok" and str(wrapper) in found["browser host (Chromium)"]["found"]
    assert found["browser host (Firefox)"]["verdict"] == "ok"


def test_automation_is_an_explicit_install_option_the_host_reports(daemon, tmp_path):
    """A default install asks the person (no --automation in the script, ping says false); an
    install with --automation starts `browser host --automation`, and says so in --json and ping."""
    profile = tmp_path / "profile"
    for automation in (False, True):
        done = passkeyctl(tmp_path, "--socket", daemon.socket, "browser", "install", "--chromium", "--profile",
                          str(profile), "--json", *(["--automation"] if automation else []))
        assert done.returncode == 0, done.stderr.decode()
        report = json.loads(done.stdout)
        assert report["automation"] is automation, report
        script = pathlib.Path(report["host"]).read_text()
        assert ("browser host --automation" in script) is automation, script
        host = NativeHost(None, command=[report["host"], EXTENSION_ORIGIN], env=environment(tmp_path))
        try:
            assert host.call("ping")["automation"] is automation
        finally:
            host.close()
    plain = passkeyctl(tmp_path, "--socket", daemon.socket, "browser", "install", "--chromium", "--profile",
                       str(profile), "--automation")
    assert b"unattended automation" in plain.stdout, plain.stdout


def test_uninstall_removes_the_manifests_and_then_the_host(daemon, tmp_path):
    assert passkeyctl(tmp_path, "--socket", daemon.socket, "browser", "install").returncode == 0
    wrapper = tmp_path / ".local/share/passkeyd/browser-host"
    done = passkeyctl(tmp_path, "browser", "uninstall", "--chromium")
    assert done.returncode == 0, done.stderr.decode()
    assert not (tmp_path / ".config/chromium/NativeMessagingHosts/dev.passkeyd.host.json").exists()
    assert wrapper.exists(), "Firefox's manifest still names the host"
    found = doctor(tmp_path, daemon.socket)
    assert found["browser host (Chromium)"]["verdict"] == "note" and "not installed" in found["browser host (Chromium)"]["found"]
    assert found["browser host (Firefox)"]["verdict"] == "ok"

    done = passkeyctl(tmp_path, "browser", "uninstall", "--json")
    assert json.loads(done.stdout)["removed"] == [str(tmp_path / ".mozilla/native-messaging-hosts/dev.passkeyd.host.json"), str(wrapper)]
    assert not wrapper.exists()
    assert b"Nothing to remove" in passkeyctl(tmp_path, "browser", "uninstall").stdout


def test_a_chromium_profile_gets_its_own_manifest_and_host(daemon, tmp_path):
    profile = tmp_path / "profile"
    done = passkeyctl(tmp_path, "--socket", daemon.socket, "browser", "install", "--chromium", "--profile", str(profile))
    assert done.returncode == 0, done.stderr.decode()
    manifest = json.loads((profile / "NativeMessagingHosts/dev.passkeyd.host.json").read_text())
    assert manifest["path"] == str(profile / "NativeMessagingHosts/passkeyd-browser-host")
    assert b"--user-data-dir=" + str(profile).encode() in done.stdout
    assert not (tmp_path / ".config").exists() and not (tmp_path / ".mozilla").exists()
    host = NativeHost(None, command=[manifest["path"], EXTENSION_ORIGIN], env=environment(tmp_path))
    try:
        assert host.call("ping")["daemon"] is True
    finally:
        host.close()
    assert passkeyctl(tmp_path, "browser", "uninstall", "--profile", str(profile)).returncode == 0
    assert list((profile / "NativeMessagingHosts").iterdir()) == []


def test_without_a_socket_the_host_follows_passkeyd_socket_at_run_time(daemon, tmp_path):
    assert passkeyctl(tmp_path, "browser", "install", "--firefox").returncode == 0
    wrapper = tmp_path / ".local/share/passkeyd/browser-host"
    assert "--socket" not in wrapper.read_text()
    env = environment(tmp_path) | {"PASSKEYD_SOCKET": daemon.socket}
    host = NativeHost(None, command=[str(wrapper), "manifest", "passkeyd@passkeyd.dev"], env=env)
    try:
        assert host.call("ping")["daemon"] is True
    finally:
        host.close()


def test_a_broken_install_is_a_doctor_problem(daemon, tmp_path):
    assert passkeyctl(tmp_path, "--socket", daemon.socket, "browser", "install", "--chromium").returncode == 0
    (tmp_path / ".local/share/passkeyd/browser-host").unlink()
    check = doctor(tmp_path, daemon.socket)["browser host (Chromium)"]
    assert check["verdict"] == "problem" and "missing or not executable" in check["found"]
    assert "passkeyctl browser install --chromium" in check["advice"]


def test_install_refuses_folders_others_can_write_and_firefox_profiles(tmp_path):
    folder = tmp_path / ".mozilla/native-messaging-hosts"
    folder.mkdir(parents=True)
    os.chmod(folder, 0o777)
    done = passkeyctl(tmp_path, "browser", "install", "--firefox")
    assert done.returncode == 8
    assert f"{folder} can be written by other users".encode() in done.stderr
    assert list(folder.iterdir()) == []
    done = passkeyctl(tmp_path, "browser", "install", "--firefox", "--profile", str(tmp_path / "p"))
    assert done.returncode == 1 and b"Firefox reads host manifests only from" in done.stderr


def test_install_replaces_a_symlink_instead_of_following_it(tmp_path):
    folder = tmp_path / ".config/chromium/NativeMessagingHosts"
    folder.mkdir(parents=True, mode=0o700)
    victim = tmp_path / "victim"
    victim.write_text("untouched")
    (folder / "dev.passkeyd.host.json").symlink_to(victim)
    assert passkeyctl(tmp_path, "browser", "install", "--chromium").returncode == 0
    assert victim.read_text() == "untouched"
    assert json.loads((folder / "dev.passkeyd.host.json").read_text())["name"] == "dev.passkeyd.host"


@pytest.mark.skipif(not (EXTENSION / "manifest.json").exists(), reason="the extension (integrations/browser/extension) is not in this tree yet")
def test_the_installed_origin_is_the_extensions_id(tmp_path):
    """Chromium derives the id from the manifest's `key` (SHA-256 of the DER public key, first
    32 hex digits mapped 0-f → a-p): EXTENSION_ID, the key and the host's constant must agree."""
    key = json.loads((EXTENSION / "manifest.json").read_text())["key"]
    derived = "".join(chr(ord("a") + int(c, 16)) for c in hashlib.sha256(base64.b64decode(key)).hexdigest()[:32])
    assert (EXTENSION / "EXTENSION_ID").read_text().strip() == derived
    assert passkeyctl(tmp_path, "browser", "install", "--chromium").returncode == 0
    manifest = json.loads((tmp_path / ".config/chromium/NativeMessagingHosts/dev.passkeyd.host.json").read_text())
    assert manifest["allowed_origins"] == [f"chrome-extension://{derived}/"]
