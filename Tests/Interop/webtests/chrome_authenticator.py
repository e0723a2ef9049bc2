"""Chromium's own virtual authenticator (the DevTools protocol's `WebAuthn` domain), in the same
Python spelling as `passkeyd.testing.VirtualAuthenticator`, so that one suite runs on either.

This is what a suite written for Chrome's virtual authenticator typically carries in its
conftest: `WebAuthn.enable`, `WebAuthn.addVirtualAuthenticator` with the options the test asks
for, and thin wrappers over `addCredential`, `getCredentials`, `setUserVerified`,
`setResponseOverrideBits`, `setCredentialProperties` and the `credentialAdded` /
`credentialAsserted` / `credentialDeleted` / `credentialUpdated` events
(https://chromedevtools.github.io/devtools-protocol/tot/WebAuthn/). Only the spelling is
Python's; every call is one CDP command on the page's session.
"""

from __future__ import annotations

import base64
import threading
import time
from dataclasses import dataclass

# Python's option names → the CDP `VirtualAuthenticatorOptions` members.
OPTION_NAMES = {
    "protocol": "protocol",
    "ctap2_version": "ctap2Version",
    "transport": "transport",
    "has_resident_key": "hasResidentKey",
    "has_user_verification": "hasUserVerification",
    "has_large_blob": "hasLargeBlob",
    "has_cred_blob": "hasCredBlob",
    "has_min_pin_length": "hasMinPinLength",
    "has_prf": "hasPrf",
    "automatic_presence_simulation": "automaticPresenceSimulation",
    "is_user_verified": "isUserVerified",
    "default_backup_eligibility": "defaultBackupEligibility",
    "default_backup_state": "defaultBackupState",
}

# CDP event names → the names passkeyd.testing uses.
EVENTS = {
    "WebAuthn.credentialAdded": "credential_added",
    "WebAuthn.credentialAsserted": "credential_asserted",
    "WebAuthn.credentialDeleted": "credential_deleted",
    "WebAuthn.credentialUpdated": "credential_updated",
}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Credential:
    """One credential as CDP's `WebAuthn.Credential` describes it."""

    credential_id: bytes
    rp_id: str
    user_handle: bytes | None
    sign_count: int
    is_resident_credential: bool
    backup_eligible: bool | None
    backup_state: bool | None
    user_name: str | None
    private_key: bytes | None

    @classmethod
    def from_cdp(cls, c: dict) -> "Credential":
        return cls(
            credential_id=unb64(c["credentialId"]), rp_id=c.get("rpId"),
            user_handle=unb64(c["userHandle"]) if c.get("userHandle") else None, sign_count=c.get("signCount", 0),
            is_resident_credential=c["isResidentCredential"], backup_eligible=c.get("backupEligibility"),
            backup_state=c.get("backupState"), user_name=c.get("userName"),
            private_key=unb64(c["privateKey"]) if c.get("privateKey") else None)


@dataclass
class Event:
    """What arrived, in passkeyd.testing.Event's members (CDP's `credentialDeleted` carries the
    ID only, the others the whole credential)."""

    kind: str
    time: float
    credential_id: bytes
    rp_id: str | None = None
    user_name: str | None = None
    sign_count: int | None = None


class ChromeVirtualAuthenticator:
    """A virtual authenticator added to one page's CDP session (Playwright's CDPSession)."""

    def __init__(self, cdp, **options):
        self.cdp = cdp
        self.arrived: list[Event] = []
        self.callbacks: dict[str, list] = {name: [] for name in EVENTS.values()}
        self.lock = threading.Lock()
        cdp.send("WebAuthn.enable", {"enableUI": False})
        cdp_options = {"protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
                       "hasUserVerification": True, "isUserVerified": True, "automaticPresenceSimulation": True}
        cdp_options.update({OPTION_NAMES[k]: v for k, v in options.items()})
        self.id = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": cdp_options})["authenticatorId"]
        for cdp_name, name in EVENTS.items():
            cdp.on(cdp_name, lambda params, name=name: self._arrived(name, params))

    def _arrived(self, name: str, params: dict) -> None:
        if params.get("authenticatorId") != self.id:
            return
        if "credential" in params:
            c = Credential.from_cdp(params["credential"])
            event = Event(name, time.time(), c.credential_id, c.rp_id, c.user_name, c.sign_count)
        else:
            event = Event(name, time.time(), unb64(params["credentialId"]))
        with self.lock:
            self.arrived.append(event)
            callbacks = list(self.callbacks[name])
        for callback in callbacks:
            callback(event)

    def _send(self, method: str, **params):
        return self.cdp.send(method, {"authenticatorId": self.id, **params})

    def add_credential(self, credential_id: bytes, rp_id: str, user_handle: bytes | None, private_key: bytes,
                       sign_count: int = 0, is_resident_credential: bool = True, backup_eligible: bool | None = None,
                       backup_state: bool | None = None, user_name: str | None = None,
                       user_display_name: str | None = None) -> None:
        credential = {"credentialId": b64(credential_id), "rpId": rp_id, "privateKey": b64(private_key),
                      "signCount": sign_count, "isResidentCredential": is_resident_credential}
        for key, value in (("userHandle", user_handle and b64(user_handle)), ("backupEligibility", backup_eligible),
                           ("backupState", backup_state), ("userName", user_name),
                           ("userDisplayName", user_display_name)):
            if value is not None:
                credential[key] = value
        self._send("WebAuthn.addCredential", credential=credential)

    def get_credentials(self) -> list[Credential]:
        return [Credential.from_cdp(c) for c in self._send("WebAuthn.getCredentials")["credentials"]]

    def get_credential(self, credential_id: bytes) -> Credential:
        return Credential.from_cdp(self._send("WebAuthn.getCredential", credentialId=b64(credential_id))["credential"])

    def remove_credential(self, credential_id: bytes) -> None:
        self._send("WebAuthn.removeCredential", credentialId=b64(credential_id))

    def remove_all_credentials(self) -> None:
        self._send("WebAuthn.clearCredentials")

    def set_user_verified(self, verified: bool) -> None:
        self._send("WebAuthn.setUserVerified", isUserVerified=verified)

    def set_automatic_presence_simulation(self, enabled: bool) -> None:
        self._send("WebAuthn.setAutomaticPresenceSimulation", enabled=enabled)

    def set_response_override_bits(self, is_bogus_signature: bool = False, is_bad_uv: bool = False,
                                   is_bad_up: bool = False) -> None:
        self._send("WebAuthn.setResponseOverrideBits", isBogusSignature=is_bogus_signature, isBadUV=is_bad_uv,
                   isBadUP=is_bad_up)

    def set_credential_properties(self, credential_id: bytes, backup_eligible: bool | None = None,
                                  backup_state: bool | None = None) -> None:
        properties = {k: v for k, v in (("backupEligibility", backup_eligible), ("backupState", backup_state))
                      if v is not None}
        self._send("WebAuthn.setCredentialProperties", credentialId=b64(credential_id), **properties)

    def on(self, name: str, callback) -> None:
        with self.lock:
            self.callbacks[name].append(callback)

    def events(self, kind: str | None = None) -> list[Event]:
        with self.lock:
            return [event for event in self.arrived if kind is None or event.kind == kind]

    def close(self) -> None:
        self._send("WebAuthn.removeVirtualAuthenticator")
