"""Presence the person answers where they are (issue 43 item 1, issue 40 item 3's daemon part):
`--presence prompt` asks whatever `--uv` says, and each prompt is also a desktop notification
with Allow / Deny on the session bus (Desktop Notifications Specification), answered by a
stand-in notification service (notification_server.py) on a private `dbus-daemon --session`.
`passkeyctl approve` in a terminal answers too; the first answer wins.

Real programs throughout: python-fido2, Debian's ssh-keygen / ssh / sshd with the provider,
pamu2fcfg / pamtester with the preload, and Debian's notify-send run by the daemon."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from fido2.client import ClientError
from fido2.server import Fido2Server

from conftest import ApprovingInteraction, make_client
from passkeyd_pin import passkeyctl
from passkeyd_ssh import OpenSSH, Sshd, provider, public_key
from test_ssh import failed, login, ok

HERE = Path(__file__).resolve().parent
RP_ID = "desktop.example.net"
ORIGIN = f"https://{RP_ID}"
# Two busy cores: a prompt, a child process and a bus round trip or two.
PATIENCE = 60.0

pytestmark = pytest.mark.skipif(
    not (shutil.which("dbus-daemon") and shutil.which("notify-send")),
    reason="needs dbus-daemon and notify-send (make deps)")


def poll(condition, what: str, timeout: float = PATIENCE):
    """condition()'s first truthy value, polled until `timeout` seconds have passed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


class Notifications:
    """The stand-in notification service: what it was asked, and what the person will answer."""

    def __init__(self, folder: Path, address: str):
        self.log = folder / "calls.jsonl"
        self.answer_file = folder / "answer"
        self.answer("none")
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "notification_server.py"), "--address", address, "--log", str(self.log),
             "--answer-file", str(self.answer_file)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.proc.stdout.readline()
        assert line.strip() == "ready", f"the notification stand-in did not start: {line}{self.proc.stdout.read()}"

    def answer(self, what: str) -> None:
        """allow, deny, dismiss or none: what the person does with the next notification."""
        self.answer_file.write_text(what + "\n")

    def calls(self) -> list[dict]:
        try:
            return [json.loads(line) for line in self.log.read_text().splitlines() if line]
        except FileNotFoundError:
            return []

    def take(self) -> list[dict]:
        calls = self.calls()
        self.log.unlink(missing_ok=True)
        return calls

    def notified(self) -> list[dict]:
        return [c for c in self.calls() if c["call"] == "Notify"]

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def bus(tmp_path_factory):
    """A private session bus and the stand-in notification service on it."""
    folder = tmp_path_factory.mktemp("desktop")
    proc = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1"],
                            stdout=subprocess.PIPE, text=True)
    address = proc.stdout.readline().strip()
    assert address.startswith("unix:"), address
    service = Notifications(folder, address)
    yield address, service
    service.stop()
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def notifications(bus) -> Notifications:
    _, service = bus
    service.take()
    service.answer("none")
    return service


@pytest.fixture(scope="module")
def desktop_daemon(daemon_factory, bus):
    """Starts a passkeyd whose session has the private bus."""
    address, _ = bus

    def start(*flags: str, data_dir: str | None = None):
        with pytest.MonkeyPatch.context() as env:
            env.setenv("DBUS_SESSION_BUS_ADDRESS", address)
            return daemon_factory(*flags, data_dir=data_dir)

    return start


def status(d) -> dict:
    done = passkeyctl(d.socket, "status", "--json", pin=None)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def register_in_background(d):
    """A python-fido2 registration that asks for UV, run in a thread: (thread, result holder)."""
    server = Fido2Server({"id": RP_ID, "name": "Desktop"})
    options, state = server.register_begin(
        {"id": os.urandom(16), "name": "alice@desktop.example.net", "displayName": "Alice"},
        resident_key_requirement="required", user_verification="required")
    outcome: dict = {}
    dev = d.device()

    def run():
        try:
            result = make_client(dev, ORIGIN, ApprovingInteraction()).make_credential(options.public_key)
            outcome["auth_data"] = server.register_complete(state, result)
        except Exception as error:  # noqa: BLE001  (the test reads it)
            outcome["error"] = error
        finally:
            dev.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def sign_in(d):
    server = Fido2Server({"id": RP_ID, "name": "Desktop"})
    options, _ = server.authenticate_begin(user_verification="required")
    dev = d.device()
    try:
        return make_client(dev, ORIGIN, ApprovingInteraction()).get_assertion(options.public_key).get_response(0)
    finally:
        dev.close()


def test_uv_auto_still_waits_for_the_person_under_presence_prompt(daemon_factory):
    """Before: the token from simulated built-in UV carried presence, so no prompt ever came."""
    d = daemon_factory("--presence", "prompt", "--uv", "auto", "--desktop-prompt", "off")
    thread, outcome = register_in_background(d)
    pending = poll(lambda: (s := status(d))["pending"] != "none" and s, "the prompt")
    assert pending["pending"] == "presence"
    time.sleep(1.0)
    assert thread.is_alive() and not outcome, "the registration went on without the person"
    done = passkeyctl(d.socket, "approve", pin=None)
    assert done.returncode == 0, done.stderr
    thread.join(PATIENCE)
    assert "error" not in outcome, outcome
    flags = outcome["auth_data"].flags
    assert flags & 0x01 and flags & 0x04, "user present and verified"
    assert status(d)["pending"] == "none"


def test_uv_auto_and_a_denied_touch_registers_nothing(daemon_factory):
    d = daemon_factory("--presence", "prompt", "--uv", "auto", "--desktop-prompt", "off")
    thread, outcome = register_in_background(d)
    poll(lambda: status(d)["pending"] == "presence", "the prompt")
    assert passkeyctl(d.socket, "deny", pin=None).returncode == 0
    thread.join(PATIENCE)
    assert isinstance(outcome.get("error"), ClientError), outcome
    # A refused touch is no failed match: built-in UV is not closer to blocking.
    dev = d.device()
    try:
        from fido2.ctap2 import ClientPin, Ctap2
        assert ClientPin(Ctap2(dev)).get_uv_retries() == 8
    finally:
        dev.close()


def test_allow_on_the_desktop_registers_and_signs_in(desktop_daemon, notifications):
    d = desktop_daemon("--presence", "prompt", "--uv", "auto")
    notifications.answer("allow")
    thread, outcome = register_in_background(d)
    thread.join(PATIENCE)
    assert "error" not in outcome, f"{outcome}\n{d.log()}"
    shown = notifications.notified()
    assert len(shown) == 1, shown
    note = shown[0]
    assert note["app_name"] == "passkeyd"
    assert note["actions"] == {"allow": "Allow", "deny": "Deny"}
    assert RP_ID in note["summary"] + note["body"]
    assert note["hints"].get("urgency") == 2, "critical: a server keeps it until it is answered"
    assert 0 < note["expire_timeout"] <= 30_000
    assert sign_in(d).response.authenticator_data.flags & 0x05 == 0x05
    assert len(notifications.notified()) == 2
    assert "prompt approved" in d.log() and "desktop notification" in d.log()


def test_deny_on_the_desktop_refuses(desktop_daemon, notifications):
    d = desktop_daemon("--presence", "prompt", "--uv", "auto")
    notifications.answer("deny")
    thread, outcome = register_in_background(d)
    thread.join(PATIENCE)
    assert isinstance(outcome.get("error"), ClientError), outcome
    assert len(notifications.notified()) == 1
    assert status(d)["pending"] == "none"


def test_the_terminal_answers_too_and_takes_the_notification_down(desktop_daemon, notifications):
    d = desktop_daemon("--presence", "prompt", "--uv", "auto")
    thread, outcome = register_in_background(d)
    note = poll(lambda: notifications.notified(), "the notification")[0]
    assert thread.is_alive()
    assert passkeyctl(d.socket, "approve", pin=None).returncode == 0
    thread.join(PATIENCE)
    assert "error" not in outcome, outcome
    # notify-send closes it on SIGINT (CloseNotification): nothing is left on screen.
    poll(lambda: any(c["call"] == "CloseNotification" and c["id"] == note["id"] for c in notifications.calls()),
         "CloseNotification")


def test_a_dismissed_notification_leaves_the_terminal_to_answer(desktop_daemon, notifications):
    d = desktop_daemon("--presence", "prompt", "--uv", "auto")
    notifications.answer("dismiss")
    thread, outcome = register_in_background(d)
    poll(lambda: any(c["call"] == "answered" for c in notifications.calls()), "the dismissal")
    time.sleep(0.5)
    assert thread.is_alive() and status(d)["pending"] == "presence"
    assert passkeyctl(d.socket, "deny", pin=None).returncode == 0
    thread.join(PATIENCE)
    assert isinstance(outcome.get("error"), ClientError), outcome


def test_without_a_session_bus_nothing_is_shown(daemon_factory, bus):
    """The same daemon with no DBUS_SESSION_BUS_ADDRESS: the terminal alone answers."""
    _, service = bus
    service.take()
    with pytest.MonkeyPatch.context() as env:
        env.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
        env.delenv("XDG_RUNTIME_DIR", raising=False)
        d = daemon_factory("--presence", "prompt", "--uv", "auto")
    thread, outcome = register_in_background(d)
    poll(lambda: status(d)["pending"] == "presence", "the prompt")
    assert passkeyctl(d.socket, "approve", pin=None).returncode == 0
    thread.join(PATIENCE)
    assert "error" not in outcome
    assert service.notified() == []


# -- OpenSSH: a -sk key whose every touch is a desktop question ----------------------------


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    server = Sshd(tmp_path_factory.mktemp("desktop-sshd")).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def ssh_key(desktop_daemon, bus, tmp_path_factory):
    """An ed25519-sk key enrolled on a --presence prompt daemon: the registration itself was allowed
    on the desktop."""
    _, service = bus
    folder = tmp_path_factory.mktemp("desktop-ssh")
    folder.chmod(0o700)
    d = desktop_daemon("--presence", "prompt", "--uv", "auto")
    tools = OpenSSH(folder, d.socket)
    key = folder / "id_ed25519_sk"
    service.answer("allow")
    ok(tools.keygen("ed25519-sk", key), "ssh-keygen under a desktop prompt", d.log())
    return d, tools, key


def test_ssh_login_waits_for_allow_on_the_desktop(ssh_key, sshd, notifications):
    d, tools, key = ssh_key
    sshd.authorize(public_key(key))
    notifications.answer("allow")
    out = ok(login(tools, sshd, f"IdentityFile={key}", "IdentityAgent=none"), "ssh", sshd.log(), d.log())
    assert out.strip() == "logged-in"
    shown = notifications.notified()
    assert len(shown) == 1, shown
    assert "ssh:" in shown[0]["summary"] + shown[0]["body"], "the prompt names the ssh application"


def test_ssh_login_fails_on_deny_with_sshs_own_message(ssh_key, sshd, notifications):
    d, tools, key = ssh_key
    sshd.authorize(public_key(key))
    notifications.answer("deny")
    err = failed(login(tools, sshd, f"IdentityFile={key}", "IdentityAgent=none"), "ssh denied on the desktop")
    assert "Permission denied (publickey)" in err
    assert f'signing failed for ED25519-SK "{key}"' in err
    assert len(notifications.notified()) == 1


def test_the_prompt_names_the_program_that_asks(ssh_key, sshd, notifications):
    d, tools, key = ssh_key
    sshd.authorize(public_key(key))
    notifications.answer("allow")
    ok(login(tools, sshd, f"IdentityFile={key}", "IdentityAgent=none"), "ssh", sshd.log())
    body = notifications.notified()[0]["body"]
    assert body.startswith("ssh-sk-helper (ssh "), body


# -- pam_u2f through the preload ---------------------------------------------------------------


@pytest.fixture(scope="module")
def pam(desktop_daemon, bus, tmp_path_factory):
    if os.getuid() != 0:
        pytest.skip("the PAM service file goes in /etc/pam.d, which needs root")
    from test_libfido2_tools import ok as tool_ok, under_exec
    import pwd
    _, service = bus
    user = pwd.getpwuid(os.getuid()).pw_name
    origin = "pam://passkeyd-desktop"
    d = desktop_daemon("--presence", "prompt", "--uv", "auto", "--attestation", "x5c")
    service.answer("allow")
    line = tool_ok(under_exec(d.socket, "pamu2fcfg", "-u", user, "-o", origin, "-i", origin), d).strip()
    folder = tmp_path_factory.mktemp("desktop-pam")
    authfile = folder / "u2f_keys"  # a file of its own: never ~/.config/Yubico/u2f_keys
    authfile.write_text(line + "\n")
    name = f"passkeyd-desktop-{uuid.uuid4().hex[:8]}"
    path = f"/etc/pam.d/{name}"
    with open(path, "x") as f:
        f.write(f"auth required pam_u2f.so authfile={authfile} cue origin={origin} appid={origin}\n")
    try:
        yield d, lambda: under_exec(d.socket, "pamtester", name, user, "authenticate")
    finally:
        os.unlink(path)


def test_pamtester_succeeds_on_allow(pam, notifications):
    d, authenticate = pam
    notifications.answer("allow")
    done = authenticate()
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}\n{d.log()}"
    assert "successfully authenticated" in done.stdout + done.stderr
    assert len(notifications.notified()) == 1


def test_pamtester_fails_on_deny(pam, notifications):
    d, authenticate = pam
    notifications.answer("deny")
    done = authenticate()
    out = done.stdout + done.stderr
    assert done.returncode != 0
    assert "Authentication failure" in out and "successfully authenticated" not in out
    assert len(notifications.notified()) == 1


# -- the modes, visible ------------------------------------------------------------------------


def test_info_status_and_doctor_show_the_modes_and_doctor_warns_about_auto(daemon_factory):
    auto = daemon_factory("--presence", "auto", "--uv", "auto")
    info = json.loads(passkeyctl(auto.socket, "info", "--json", pin=None).stdout)
    assert info["modes"] == {"presence": "auto", "uv": "auto", "desktopPrompt": False}
    assert status(auto)["presence"] == "auto" and status(auto)["uv"] == "auto"
    checks = json.loads(passkeyctl(auto.socket, "doctor", "--json", pin=None).stdout)["checks"]
    modes = next(c for c in checks if c["check"] == "modes")
    assert modes["verdict"] == "note"
    assert "approves every request on its own" in modes["found"]
    assert "fine for tests; for everyday use run passkeyd --presence prompt" in modes["advice"]

    asking = daemon_factory("--presence", "prompt", "--uv", "auto", "--desktop-prompt", "off")
    checks = json.loads(passkeyctl(asking.socket, "doctor", "--json", pin=None).stdout)["checks"]
    modes = next(c for c in checks if c["check"] == "modes")
    assert modes["verdict"] == "ok" and "presence prompt" in modes["found"]
    text = passkeyctl(asking.socket, "status", pin=None).stdout
    assert "modes: presence prompt, uv auto (asked by passkeyctl approve)" in text


def test_passkeyd_help_says_each_modes_default():
    from passkeyd_hid import daemon_binary
    text = subprocess.run([daemon_binary(), "--help"], capture_output=True, text=True, timeout=60).stdout
    flat = " ".join(text.split())
    for flag, default in (("--presence", "auto (default"), ("--uv", "auto (default"),
                          ("--desktop-prompt", "auto (default"), ("--profile", "default fido2.1"),
                          ("--counter", "per-credential (default)"), ("--attestation", "self (default")):
        assert flag in flat
        assert default in flat, f"{flag}: {default}"


def test_doctor_checks_profile_manifests_and_says_which_hosts_run_unattended(daemon_factory, tmp_path):
    """A manifest written with --profile is checked when doctor is told the profile; a host installed
    with --automation is a note (nobody is asked), the default install is ok."""
    from passkeyd_pin import passkeyctl_binary
    d = daemon_factory("--presence", "auto", "--uv", "auto")
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "PASSKEYD_SOCKET")}
    env["HOME"] = str(home)

    def ctl(*args):
        return subprocess.run([passkeyctl_binary(), "--socket", d.socket, *args], capture_output=True, text=True,
                              timeout=60, env=env)

    profile = tmp_path / "ci-profile"
    assert ctl("browser", "install", "--chromium").returncode == 0
    assert ctl("browser", "install", "--chromium", "--profile", str(profile), "--automation").returncode == 0
    checks = {c["check"]: c for c in json.loads(ctl("doctor", "--json", "--browser-profile", str(profile)).stdout)["checks"]}
    assert checks["browser host mode (Chromium)"]["verdict"] == "ok"
    assert checks[f"browser host (Chromium profile {profile})"]["verdict"] == "ok"
    automation = checks[f"browser host mode (Chromium profile {profile})"]
    assert automation["verdict"] == "note" and "approved without asking" in automation["found"]
    # Without --browser-profile the profile's manifest is not looked at; a missing one is a note.
    missing = tmp_path / "never-installed"
    checks = {c["check"]: c for c in json.loads(ctl("doctor", "--json", "--browser-profile", str(missing)).stdout)["checks"]}
    assert checks[f"browser host (Chromium profile {missing})"]["verdict"] == "note"
