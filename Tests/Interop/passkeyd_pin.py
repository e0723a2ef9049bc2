"""Helpers for the PIN and credential-management suites: a user who types a PIN,
CredentialManagement sessions, and `passkeyctl list --json` read back as data."""

from __future__ import annotations

import base64
import json
import os
import subprocess

from fido2.client import UserInteraction
from fido2.ctap2 import Ctap2
from fido2.ctap2.credman import CredentialManagement
from fido2.ctap2.pin import ClientPin, PinProtocolV1, PinProtocolV2
from fido2.utils import sha256

from passkeyd_hid import REPO

PIN = "4826"
PROTOCOLS = [PinProtocolV1, PinProtocolV2]
PROTOCOL_IDS = ["pinUvAuthProtocol1", "pinUvAuthProtocol2"]

RESULT = CredentialManagement.RESULT


class PinInteraction(UserInteraction):
    """A user who types `pin` whenever the client asks, and refuses built-in UV."""

    def __init__(self, pin: str = PIN):
        self.pin = pin
        self.pin_requests: list[tuple[ClientPin.PERMISSION, str | None]] = []

    def prompt_up(self):
        pass

    def request_pin(self, permissions, rp_id):
        self.pin_requests.append((permissions, rp_id))
        return self.pin

    def request_uv(self, permissions, rp_id):
        return False


def credman(dev, protocol_cls=PinProtocolV2, pin: str = PIN, permissions=ClientPin.PERMISSION.CREDENTIAL_MGMT,
            rp_id: str | None = None) -> CredentialManagement:
    """A CredentialManagement session on a fresh pinUvAuthToken (CTAP 2.1 §6.8)."""
    ctap = Ctap2(dev)
    protocol = protocol_cls()
    token = ClientPin(ctap, protocol).get_pin_token(pin, permissions, rp_id)
    return CredentialManagement(ctap, protocol, token)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def fido2_view(cm: CredentialManagement) -> dict[str, dict[str, dict]]:
    """{rp id: {credential id (base64url): {userHandle, userName, displayName}}} as python-fido2 enumerates it."""
    view: dict[str, dict[str, dict]] = {}
    for rp in cm.enumerate_rps():
        rp_id = rp[RESULT.RP]["id"]
        assert rp[RESULT.RP_ID_HASH] == sha256(rp_id.encode()), f"rpIDHash of {rp_id} is not SHA-256(rpId)"
        creds = view.setdefault(rp_id, {})
        for c in cm.enumerate_creds(rp[RESULT.RP_ID_HASH]):
            u = c[RESULT.USER]
            creds[b64url(c[RESULT.CREDENTIAL_ID]["id"])] = {
                "userHandle": b64url(u["id"]),
                "userName": u.get("name"),
                "displayName": u.get("displayName"),
            }
    return view


# -- passkeyctl --------------------------------------------------------------


def passkeyctl_binary() -> str:
    return os.environ.get("PASSKEYCTL_BIN", str(REPO / ".build" / "debug" / "passkeyctl"))


def passkeyctl(socket: str, *args: str, pin: str | None = PIN, timeout: float = 60) -> subprocess.CompletedProcess:
    """`passkeyctl --socket SOCKET ARGS...` with the PIN in $PASSKEYCTL_PIN (never on the command line)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PASSKEYCTL_", "PASSKEYD_"))}
    if pin is not None:
        env["PASSKEYCTL_PIN"] = pin
    return subprocess.run([passkeyctl_binary(), "--socket", socket, *args], capture_output=True, text=True,
                          env=env, timeout=timeout, stdin=subprocess.DEVNULL)


def set_pin(socket: str, pin: str = PIN) -> None:
    """`passkeyctl pin set` on the daemon at `socket`, the new PIN in $PASSKEYCTL_NEW_PIN."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PASSKEYCTL_", "PASSKEYD_"))}
    done = subprocess.run([passkeyctl_binary(), "--socket", socket, "pin", "set"], capture_output=True, text=True,
                          env={**env, "PASSKEYCTL_NEW_PIN": pin}, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"passkeyctl pin set exited {done.returncode}: {done.stderr}"


def passkeyctl_has(subcommand: str) -> bool:
    """Whether the built passkeyctl knows `subcommand` (its help lists it)."""
    binary = passkeyctl_binary()
    if not os.access(binary, os.X_OK):
        return False
    out = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=30)
    return any(line.split()[:1] == [subcommand] for line in (out.stdout + out.stderr).splitlines())


def passkeyctl_view(socket: str, pin: str = PIN) -> dict[str, dict[str, dict]]:
    """`passkeyctl list --json` in fido2_view's shape."""
    result = passkeyctl(socket, "list", "--json", pin=pin)
    assert result.returncode == 0, f"passkeyctl list --json exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
    doc = json.loads(result.stdout)
    view: dict[str, dict[str, dict]] = {}
    for rp in doc["relyingParties"]:
        creds = view.setdefault(rp["id"], {})
        for c in rp["credentials"]:
            assert c["rpId"] == rp["id"]
            creds[c["credentialId"]] = {
                "userHandle": c["userHandle"],
                "userName": c["userName"],
                "displayName": c["displayName"],
            }
    return view
