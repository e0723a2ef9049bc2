"""passkeydemo on a terminal: the feature list, flows the person answers, the success screen,
sign-out, and the courier app's account flows. Driven through a pseudo-terminal: keys are
written as a person types them and the screen is read back."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import time

import pytest

from test_demo import PASSKEYDEMO
from passkeyd_hid import REPO

PASSKEYCTL = os.environ.get("PASSKEYCTL_BIN", str(REPO / ".build" / "debug" / "passkeyctl"))
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
UP, DOWN, ENTER, ESC = "\x1b[A", "\x1b[B", "\r", "\x1b"


class Terminal:
    """passkeydemo with a pseudo-terminal as its standard input and output."""

    def __init__(self, *args: str, state_dir: str):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            env = {k: v for k, v in os.environ.items() if not k.startswith("PASSKEYD_")}
            env["TERM"] = "xterm"
            os.execve(PASSKEYDEMO, [PASSKEYDEMO, "--state-dir", state_dir, *args], env)
        self.screen = ""
        self.seen = 0

    def read_until(self, text: str, timeout: float = 60.0) -> str:
        """Everything shown since the last match, up to and including `text`."""
        deadline = time.monotonic() + timeout
        while True:
            plain = ANSI.sub("", self.screen)
            found = plain.find(text, self.seen)
            if found >= 0:
                shown = plain[self.seen : found + len(text)]
                self.seen = found + len(text)
                return shown
            left = deadline - time.monotonic()
            assert left > 0, f"never saw {text!r}; the screen since the last match:\n{plain[self.seen:]}"
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.5))
            if ready:
                try:
                    self.screen += os.read(self.fd, 4096).decode("utf-8", "replace")
                except OSError:
                    pass

    def type(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def wait(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            # Drain what it still writes, never blocking: a demo that does not exit must fail
            # this wait at its deadline, not hang the suite in a read.
            if select.select([self.fd], [], [], 0.05)[0]:
                try:
                    self.screen += os.read(self.fd, 4096).decode("utf-8", "replace")
                except OSError:
                    pass
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.05)
        os.kill(self.pid, signal.SIGKILL)
        raise AssertionError(f"passkeydemo did not exit; the screen since the last match:\n"
                             f"{ANSI.sub('', self.screen)[self.seen:]}")


@pytest.fixture
def terminal(tmp_path):
    started: list[Terminal] = []
    state = tmp_path / "state"

    def start(daemon, *args: str) -> Terminal:
        t = Terminal("--socket", daemon.socket, *args, state_dir=str(state))
        started.append(t)
        return t

    start.state = state
    yield start
    for t in started:
        try:
            os.kill(t.pid, signal.SIGKILL)
            os.waitpid(t.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def give_username(t: Terminal, name: str, site: str) -> None:
    """The username field, then the browser's "save a passkey?" question, answered yes."""
    t.read_until("Username: ")
    t.type(name + ENTER)
    t.read_until(f"Create a passkey for {name} on {site}? [Enter = yes, Esc = no]")
    t.type(ENTER)


def sign_out(t: Terminal, name: str, after: str) -> None:
    """The success screen (`after`), then sign-out and its confirmation."""
    t.read_until(after)
    t.type(ENTER)
    t.read_until(f"Signed out of {name}.")
    t.type(ENTER)


def quit_from_the_list(t: Terminal) -> None:
    t.read_until("q to quit")
    t.type("q")
    assert t.wait() == 0


def test_the_feature_list_registration_with_a_visible_touch_and_sign_out(daemon_factory, terminal):
    # Without built-in UV the touch is the one thing the authenticator waits for.
    daemon = daemon_factory("--presence", "prompt", "--uv", "off")
    t = terminal(daemon)
    listing = t.read_until("q to quit")
    for title in ("Registration", "Passkey-only sign-in", "Passkey or password", "AutoFill", "Immediate",
                  "AutoFill hybrid", "Courier: create an account with a passkey", "Courier: sign in"):
        assert title in listing, listing
    assert "› 1. Registration" in listing
    # The arrow keys move the marker; Enter runs what it marks.
    t.type(DOWN)
    assert "› 2. Passkey-only" in t.read_until("q to quit")
    t.type(UP + ENTER)
    give_username(t, "alice", "shop.passkeyd.test")
    t.read_until("Touch your authenticator… (Enter approves, Esc refuses)")
    t.type(ENTER)
    sign_out(t, "alice", after="✓ Signed in as alice, verified by the server")
    # The demo's Enter named the prompt it answered, and the daemon logged who answered.
    approvals = [line for line in daemon.log().splitlines() if "prompt approved" in line]
    assert approvals and all("named=true" in a and "(passkeydemo)" in a for a in approvals), daemon.log()
    # A number runs its item directly: the passkey-only sign-in finds alice's passkey.
    t.read_until("q to quit")
    t.type("2")
    t.read_until("Touch your authenticator")
    t.type(ENTER)
    sign_out(t, "alice", after="✓ Signed in as alice, verified by the server")
    quit_from_the_list(t)


def test_the_other_scenarios_with_the_person_choosing(daemon_factory, terminal):
    daemon = daemon_factory("--presence", "auto", "--uv", "auto")
    t = terminal(daemon)
    t.read_until("q to quit")
    t.type("1")
    give_username(t, "alice", "shop.passkeyd.test")
    sign_out(t, "alice", after="✓ Signed in as alice")
    # Passkey or password: one picker with both; the saved password goes to the server.
    t.read_until("q to quit")
    t.type("3")
    picker = t.read_until("Esc to cancel")
    # Each entry says what it is before it is chosen.
    assert "1. alice — passkey" in picker and "2. carol@shop.passkeyd.test — saved password" in picker, picker
    t.type(DOWN + ENTER)
    sign_out(t, "carol@shop.passkeyd.test (with the saved password)",
             after="✓ Signed in as carol@shop.passkeyd.test (with the saved password), verified by the server")
    # AutoFill: the suggestions under a username field the person types in; Enter fills one in.
    t.read_until("q to quit")
    t.type("4")
    assert "1. alice — passkey" in t.read_until("Esc to leave the page")
    t.type("x")
    assert "(no suggestion starts with “x”)" in t.read_until("Esc to leave the page"), "typing filters"
    t.type("\x7f" + "al")
    t.read_until("Username: al▏")
    assert "1. alice — passkey" in t.read_until("Esc to leave the page")
    t.type(ENTER)
    sign_out(t, "alice", after="✓ Signed in as alice")
    # Esc leaves the AutoFill page: its request is aborted and the list comes back, no error.
    t.read_until("q to quit")
    t.type("4")
    t.read_until("Esc to leave the page")
    t.type(ESC)
    assert "✗" not in t.read_until("q to quit"), "leaving the page is not a failure"
    # Immediate: a passkey is right here, so it signs in like a modal request.
    t.type("5")
    sign_out(t, "alice", after="✓ Signed in as alice")
    # AutoFill hybrid: the button beside the field (Tab) cancels AutoFill; the modal request follows.
    t.read_until("q to quit")
    t.type("6")
    screen = t.read_until("Esc to leave the page")
    assert "[ Sign in with a passkey ]" in screen and "Tab for “Sign in with a passkey”" in screen, screen
    t.type("\t")
    t.read_until("“Sign in with a passkey”: AutoFill is cancelled and the modal request runs.")
    sign_out(t, "alice", after="✓ Signed in as alice")
    # Esc on the hybrid page leaves it, as on the AutoFill page.
    t.read_until("q to quit")
    t.type("6")
    t.read_until("Esc to leave the page")
    t.type(ESC)
    assert "✗" not in t.read_until("q to quit")
    t.type("q")
    assert t.wait() == 0


def test_hybrid_explanation_stays_on_the_picker_and_immediate_tells_a_closed_picker(daemon_factory, terminal):
    daemon = daemon_factory("--presence", "auto", "--uv", "auto")
    t = terminal(daemon)
    for name in ("ann", "bob"):
        t.read_until("q to quit")
        t.type("1")
        give_username(t, name, "shop.passkeyd.test")
        sign_out(t, name, after=f"✓ Signed in as {name}")
    # Two accounts: the modal picker after the button still says why it is there.
    t.read_until("q to quit")
    t.type("6")
    t.read_until("Esc to leave the page")
    t.type("\t")
    picker = t.read_until("Esc to cancel")
    assert "“Sign in with a passkey”: AutoFill is cancelled and the modal request runs." in picker.split("Sign in to")[-2], picker
    first = re.search(r"1\. (\w+) — passkey", picker).group(1)
    t.type(ENTER)
    sign_out(t, first, after=f"✓ Signed in as {first}")
    # Immediate with a picker shown and closed: it does not claim nothing was shown.
    t.read_until("q to quit")
    t.type("5")
    t.read_until("Esc to cancel")
    t.type(ESC)
    said = t.read_until("Enter to go back")
    assert "You closed the account picker" in said and "nothing was shown" not in said, said
    t.type(ENTER)
    quit_from_the_list(t)


def test_courier_account_session_restore_and_sign_out(daemon_factory, terminal):
    daemon = daemon_factory("--presence", "auto", "--uv", "auto")
    t = terminal(daemon)
    t.read_until("q to quit")
    t.type("7")
    give_username(t, "dana", "courier.passkeyd.test")
    t.read_until("✓ Account created: signed in as dana")
    t.type(ESC)  # back to the list, still signed in
    quit_from_the_list(t)
    session = json.loads((terminal.state / "courier-session.json").read_text())
    assert session["username"] == "dana"
    assert oct((terminal.state / "courier-session.json").stat().st_mode & 0o777) == "0o600"

    # The next start restores the session after the server has checked its token.
    t = terminal(daemon)
    sign_out(t, "dana", after="✓ Welcome back, dana (session restored, checked by the server)")
    quit_from_the_list(t)
    assert not (terminal.state / "courier-session.json").exists()

    # Signed out on the server too: the old token restores nothing.
    (terminal.state / "courier-session.json").write_text(json.dumps(session))
    t = terminal(daemon)
    t.read_until("Your session has ended. Sign in again.")
    t.type(ENTER)
    quit_from_the_list(t)

    # Signing in again with the passkey opens the account.
    t = terminal(daemon)
    t.read_until("q to quit")
    t.type("8")
    sign_out(t, "dana", after="✓ Signed in as dana")
    quit_from_the_list(t)

    log = (terminal.state / "courier.log").read_text()
    for event in ("account-created user=dana", "session-restored user=dana", "signed-out user=dana", "session-expired user=dana",
                  "signed-in user=dana"):
        assert event in log, log
    assert session["token"] not in log, "a session token never reaches the log"


def test_courier_offline_opens_a_restored_session_read_only(daemon_factory, terminal):
    daemon = daemon_factory("--presence", "auto", "--uv", "auto")
    t = terminal(daemon)
    t.read_until("q to quit")
    t.type("7")
    give_username(t, "erin", "courier.passkeyd.test")
    t.read_until("signed in as erin")
    t.type(ESC)
    quit_from_the_list(t)

    t = terminal(daemon, "--offline")
    screen = t.read_until("sign-out needs the connection")
    assert "✓ Signed in as erin" in screen
    assert "Unable to connect. Please check your internet connection and try again." in screen
    assert "read-only" in screen
    assert "Deliveries: not shown while offline." in screen and "none on the way" not in screen, screen
    t.type(ESC)
    # Signing in needs the server: the fixed sentence, and after three failures, support.
    t.read_until("q to quit")
    t.type("8")
    for attempt in range(3):
        screen = t.read_until("r to retry, Esc to go back")
        assert "Unable to connect. Please check your internet connection and try again." in screen
        assert "Courier: sign in with a passkey" in screen, "the sentence stands under the sign-in screen, not the list"
        assert "Choose a feature" not in screen, screen
        assert ("contact support" in screen) == (attempt == 2), screen
        t.type("r" if attempt < 2 else ESC)
    # Another flow starts its own count: the first failure of create-account brings no support advice.
    t.read_until("q to quit")
    t.type("7")
    t.read_until("Username: ")
    t.type("ivy" + ENTER)
    screen = t.read_until("r to retry, Esc to go back")
    assert "Unable to connect" in screen and "contact support" not in screen, screen
    t.type(ESC)
    quit_from_the_list(t)
    assert (terminal.state / "courier-session.json").exists(), "offline keeps the session"
    assert "sign-in-failed reason=unreachable" in (terminal.state / "courier.log").read_text()


def test_courier_without_a_passkey_suggests_creating_an_account(daemon_factory, terminal):
    daemon = daemon_factory("--presence", "auto", "--uv", "auto")
    t = terminal(daemon)
    t.read_until("q to quit")
    t.type("8")
    t.read_until("There is no passkey for Courier on this device. Create an account?")
    t.type(ENTER)
    give_username(t, "finn", "courier.passkeyd.test")
    sign_out(t, "finn", after="✓ Account created: signed in as finn")
    quit_from_the_list(t)


def test_courier_cancel_offers_a_retry(daemon_factory, terminal):
    daemon = daemon_factory("--presence", "prompt", "--uv", "off")
    t = terminal(daemon)
    t.read_until("q to quit")
    t.type("7")
    give_username(t, "gus", "courier.passkeyd.test")
    t.read_until("Touch your authenticator")
    t.type(ESC)  # refuse the touch
    t.read_until("That was cancelled.")
    t.read_until("r to retry, Esc to go back")
    t.type("r")
    t.read_until("Create a passkey for gus on courier.passkeyd.test?")
    t.type(ENTER)
    t.read_until("Touch your authenticator")
    t.type(ENTER)
    sign_out(t, "gus", after="✓ Account created: signed in as gus")
    quit_from_the_list(t)
    assert "account-create-failed reason=cancelled user=gus" in (terminal.state / "courier.log").read_text()


def test_courier_passkey_the_server_does_not_know(daemon_factory, terminal):
    daemon = daemon_factory("--presence", "auto", "--uv", "auto")
    t = terminal(daemon)
    t.read_until("q to quit")
    t.type("7")
    give_username(t, "hana", "courier.passkeyd.test")
    sign_out(t, "hana", after="signed in as hana")
    quit_from_the_list(t)
    # The server loses the account (deleted); the authenticator still holds the passkey.
    (terminal.state / "courier-server.json").unlink()
    t = terminal(daemon)
    t.read_until("q to quit")
    t.type("8")
    t.read_until("Passkey not recognized. Please try again or create a new account.")
    t.type(ESC)
    quit_from_the_list(t)


def test_courier_biometric_failure_falls_back_to_the_pin(daemon_factory, terminal):
    daemon = daemon_factory("--presence", "auto", "--uv", "deny")
    pin = "4711"
    env = {"PASSKEYD_SOCKET": daemon.socket, "PASSKEYCTL_NEW_PIN": pin, "PATH": os.environ["PATH"]}
    done = subprocess.run([PASSKEYCTL, "pin", "set"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    t = terminal(daemon)
    t.read_until("q to quit")
    t.type("7")
    give_username(t, "ivy", "courier.passkeyd.test")
    t.read_until("Your fingerprint or face was not recognized")
    t.read_until("Authenticator PIN (8 tries left): ")
    t.type(pin + ENTER)
    screen = t.read_until("✓ Account created: signed in as ivy")
    assert pin not in screen, "the PIN is not echoed"
    t.type(ENTER)
    t.read_until("Signed out of ivy.")
    t.type(ENTER)
    quit_from_the_list(t)
    assert pin not in (terminal.state / "courier.log").read_text()


def test_without_a_terminal_the_scenarios_run_as_before(daemon_factory):
    daemon = daemon_factory("--presence", "auto", "--uv", "auto")
    done = subprocess.run([PASSKEYDEMO, "--socket", daemon.socket], stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    assert done.returncode == 0
    assert done.stdout.decode().rstrip().endswith("all 6 scenarios passed")
