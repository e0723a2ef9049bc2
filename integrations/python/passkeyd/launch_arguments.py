"""The browsers' side of passkeyd for automation: the host installed for one daemon, and the extension.

`passkeyctl browser args --chromium --profile DIR --json` installs the native-messaging host into
that user data directory, bound to one daemon's socket and marked as unattended automation
(`browser install --automation`: ceremonies are approved without asking anyone, a chooser still
asks between several accounts, a PIN is still asked), and prints the arguments that load the
passkeyd extension. passkeyd.playwright and passkeyd.selenium launch Chromium with them.

Firefox reads host manifests only from ~/.mozilla/native-messaging-hosts and loads the extension
over WebDriver BiDi, not from arguments: `firefox_install` runs `passkeyctl browser install
--firefox --automation` with a HOME of the browser's own, and finds the extension as `browser
args` does. passkeyd.firefox launches Firefox with them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass


class LaunchError(RuntimeError):
    """passkeyctl, a browser, chromedriver or the extension could not be found or run; the message says which."""


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


def _passkeyctl_json(socket: str, arguments: list[str], passkeyctl: str | None, authenticator, timeout: float,
                     environment: dict[str, str] | None = None) -> dict:
    """`passkeyctl --socket SOCKET ARGUMENTS --json`'s reply; LaunchError with passkeyctl's own
    message when it fails."""
    command = [passkeyctl or passkeyctl_binary(authenticator), "--socket", socket, *arguments, "--json"]
    # The socket is named: a PASSKEYD_SOCKET of the test runner's must not be written instead.
    base = {k: v for k, v in os.environ.items() if k != "PASSKEYD_SOCKET"}
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              env={**base, **(environment or {})})
    except (OSError, subprocess.TimeoutExpired) as error:
        raise LaunchError(f"{command[0]} {' '.join(arguments[:2])}: {error}") from None
    try:
        reply = json.loads(done.stdout)
    except ValueError:
        reply = {}
    if done.returncode != 0 or "error" in reply:
        message = reply.get("error", {}).get("message") or done.stderr.strip() or f"exit {done.returncode}"
        raise LaunchError(f"passkeyctl {' '.join(arguments[:2])}: {message}")
    return reply


def browser_args(socket: str, profile: str, passkeyctl: str | None = None, authenticator=None,
                 timeout: float = 60.0) -> LaunchArguments:
    """Installs the host into `profile` for the daemon at `socket` and returns the arguments."""
    reply = _passkeyctl_json(socket, ["browser", "args", "--chromium", "--profile", os.path.abspath(profile)],
                             passkeyctl, authenticator, timeout)
    return LaunchArguments(
        profile=reply["profile"], extension=reply["extension"], extension_id=reply["extensionId"],
        arguments=list(reply["arguments"]), extension_arguments=list(reply["extensionArguments"]),
        automation=reply["automation"], host=reply["host"], socket=reply.get("socket"))


@dataclass(frozen=True)
class FirefoxInstall:
    home: str
    #: The unpacked extension Firefox installs as a temporary add-on (webExtension.install).
    extension: str
    #: The host manifest, under HOME/.mozilla/native-messaging-hosts.
    manifest: str
    automation: bool
    host: str
    socket: str | None
    #: HOME and the XDG folders under it, for Firefox (and the host it starts) as for the install.
    environment: dict[str, str]


def extension_folder(passkeyctl: str, explicit: str | None = None) -> str:
    """The unpacked passkeyd extension: `explicit`, else where `passkeyctl browser args` finds it
    (its InstallLayout.browserExtension): `<prefix>/share/passkeyd/browser-extension` beside
    passkeyctl's `<prefix>/bin`, else the source tree's integrations/browser/extension above the
    `.build` folder passkeyctl runs from."""
    if explicit is not None:
        if not os.path.isfile(os.path.join(explicit, "manifest.json")):
            raise LaunchError(f"{explicit} is not an unpacked extension (it has no manifest.json)")
        return os.path.abspath(explicit)
    bin_directory = os.path.dirname(os.path.realpath(passkeyctl))
    candidates = [os.path.join(os.path.dirname(bin_directory), "share", "passkeyd", "browser-extension")]
    folder = bin_directory
    while folder != os.path.dirname(folder):
        if os.path.basename(folder).startswith(".build"):
            candidates.append(os.path.join(os.path.dirname(folder), "integrations", "browser", "extension"))
            break
        folder = os.path.dirname(folder)
    for candidate in candidates:
        if os.path.isfile(os.path.join(candidate, "manifest.json")):
            return candidate
    raise LaunchError(f"the passkeyd extension is not installed beside {passkeyctl} "
                      "(share/passkeyd/browser-extension) and it runs from no source tree: pass its folder as extension=")


def firefox_install(socket: str, home: str, passkeyctl: str | None = None, authenticator=None, *,
                    extension: str | None = None, timeout: float = 60.0) -> FirefoxInstall:
    """`passkeyctl browser install --firefox --automation` for the daemon at `socket`, with `home`
    as HOME (and XDG_CONFIG_HOME, XDG_DATA_HOME under it, so that the host script is written
    there and not over the user's own), and the extension Firefox is to install."""
    passkeyctl = passkeyctl or passkeyctl_binary(authenticator)
    home = os.path.abspath(home)
    environment = {"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"),
                   "XDG_DATA_HOME": os.path.join(home, ".local", "share")}
    folder = extension_folder(passkeyctl, extension)
    reply = _passkeyctl_json(socket, ["browser", "install", "--firefox", "--automation"], passkeyctl, authenticator,
                             timeout, environment)
    [manifest] = [m["path"] for m in reply["manifests"] if m["browser"] == "firefox"]
    return FirefoxInstall(home=home, extension=folder, manifest=manifest, automation=reply["automation"],
                          host=reply["host"], socket=reply.get("socket"), environment=environment)
