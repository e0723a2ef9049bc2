"""Chromium's launch arguments for passkeyd, as `passkeyctl browser args` gives them.

`passkeyctl browser args --chromium --profile DIR --json` installs the native-messaging host into
that user data directory, bound to one daemon's socket and marked as unattended automation
(`browser install --automation`: ceremonies are approved without asking anyone, a chooser still
asks between several accounts, a PIN is still asked), and prints the arguments that load the
passkeyd extension. passkeyd.playwright and passkeyd.selenium launch Chromium with them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass


class LaunchError(RuntimeError):
    """passkeyctl, Chromium or chromedriver could not be found or run; the message says which."""


@dataclass(frozen=True)
class LaunchArguments:
    profile: str
    extension: str
    extension_id: str
    #: Every argument: --user-data-dir, the two extension arguments, --no-sandbox as root.
    arguments: list[str]
    #: Only --load-extension and --disable-extensions-except, for a framework that manages the
    #: profile and the headless mode itself (Playwright).
    extension_arguments: list[str]
    automation: bool
    host: str
    socket: str | None

    @property
    def extension_origin(self) -> str:
        return f"chrome-extension://{self.extension_id}/"


def passkeyctl_binary(authenticator=None) -> str:
    """`$PASSKEYCTL_BIN`, else the passkeyctl beside the authenticator's passkeyd, else PATH's."""
    explicit = os.environ.get("PASSKEYCTL_BIN")
    if explicit:
        return explicit
    daemon = getattr(authenticator, "daemon", None)
    binary = getattr(daemon, "binary", None) or os.environ.get("PASSKEYD_BIN")
    if binary:
        beside = os.path.join(os.path.dirname(os.path.abspath(binary)), "passkeyctl")
        if os.access(beside, os.X_OK):
            return beside
    found = shutil.which("passkeyctl")
    if not found:
        raise LaunchError("passkeyctl is not on PATH (install passkeyd) and PASSKEYCTL_BIN is not set")
    return found


def chromium_binary() -> str:
    """`$PASSKEYD_CHROMIUM`, else `chromium` (Debian's) or `chromium-browser` on PATH. Google
    Chrome's branded builds ignore --load-extension since version 137; Chromium and Chrome for
    Testing load it."""
    explicit = os.environ.get("PASSKEYD_CHROMIUM")
    if explicit:
        return explicit
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    raise LaunchError("Chromium is not installed (apt-get install chromium) and PASSKEYD_CHROMIUM is not set")


def browser_args(socket: str, profile: str, passkeyctl: str | None = None, authenticator=None,
                 timeout: float = 60.0) -> LaunchArguments:
    """Installs the host into `profile` for the daemon at `socket` and returns the arguments."""
    command = [passkeyctl or passkeyctl_binary(authenticator), "--socket", socket, "browser", "args", "--chromium",
               "--profile", os.path.abspath(profile), "--json"]
    # The socket is named: a PASSKEYD_SOCKET of the test runner's must not be written instead.
    environment = {k: v for k, v in os.environ.items() if k != "PASSKEYD_SOCKET"}
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=environment)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise LaunchError(f"{command[0]} browser args: {error}") from None
    try:
        reply = json.loads(done.stdout)
    except ValueError:
        reply = {}
    if done.returncode != 0 or "error" in reply:
        message = reply.get("error", {}).get("message") or done.stderr.strip() or f"exit {done.returncode}"
        raise LaunchError(f"passkeyctl browser args: {message}")
    return LaunchArguments(
        profile=reply["profile"], extension=reply["extension"], extension_id=reply["extensionId"],
        arguments=list(reply["arguments"]), extension_arguments=list(reply["extensionArguments"]),
        automation=reply["automation"], host=reply["host"], socket=reply.get("socket"))
