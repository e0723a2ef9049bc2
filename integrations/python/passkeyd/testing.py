"""Chrome's virtual-authenticator vocabulary, in Python's spelling, on a real passkeyd.

A suite written against Chrome's virtual authenticator (the DevTools Protocol's `WebAuthn`
domain, or WebDriver's Virtual Authenticator commands that Selenium wraps) moves here by
swapping its fixture::

    from passkeyd.testing import VirtualAuthenticator

    with VirtualAuthenticator(transport="internal") as authenticator:
        authenticator.add_credential(credential_id, "example.com", user_handle, pkcs8_der)
        ...  # the browser, python-fido2 or any CTAP host signs in with it

Every call travels over the daemon's own socket (docs/vendor-commands.md): the run-time
controls are the CONTROLS vendor command, credentials the authenticated vendor CTAP2 commands
0xB0–0xB4, events the WATCH stream. No subprocess runs per call.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import secrets
import socket as socket_module
import struct
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from fido2 import cbor
from fido2.ctap import CtapError
from fido2.hid import CTAPHID

from . import (
    CMD_CONTROLS,
    CMD_FAULT,
    CMD_PRESENCE,
    CMD_STATUS,
    CMD_WATCH,
    REPORT_SIZE,
    Daemon,
    SocketHidConnection,
    open_device,
    vendor_call,
)

__all__ = [
    "VirtualAuthenticator",
    "Credential",
    "Event",
    "PasskeydError",
    "InvalidCredential",
    "UnsupportedKey",
    "InvalidRpId",
    "DuplicateCredential",
    "CredentialNotFound",
    "UnsupportedOption",
    "AuthenticatorGone",
    "CommandFailed",
    "MAX_CREDENTIAL_ID_LENGTH",
]

#: WebAuthn L3 §4 "Credential ID": at most 1023 bytes.
MAX_CREDENTIAL_ID_LENGTH = 1023
#: WebAuthn L3 §5.4.3 "user.id": at most 64 bytes.
MAX_USER_HANDLE_LENGTH = 64


# -- errors -------------------------------------------------------------------


class PasskeydError(Exception):
    """Something passkeyd.testing could not do; the message says what and why."""


class InvalidCredential(PasskeydError, ValueError):
    """add_credential's input is not a credential passkeyd can hold; nothing was stored."""


class UnsupportedKey(InvalidCredential):
    """The private key is of a kind passkeyd does not sign with (an unsupported curve, an RSA
    key that is not 2048-bit with e = 65537, bytes that are no key)."""


class InvalidRpId(InvalidCredential):
    """The RP ID is not a domain (WebAuthn L3 §5.1.2: an RP ID is a valid domain string)."""


class DuplicateCredential(InvalidCredential):
    """A credential with this ID is already stored; two credentials never share an ID."""


class CredentialNotFound(PasskeydError, KeyError):
    """No credential with this ID."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class UnsupportedOption(PasskeydError, ValueError):
    """An option passkeyd cannot give the way it was asked for."""


class AuthenticatorGone(PasskeydError, ConnectionError):
    """The daemon is not there any more (it exited, or its socket went away)."""


class CommandFailed(PasskeydError):
    """The daemon answered a control with an error status."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


# -- what the calls return ------------------------------------------------------


#: COSE algorithm identifiers (WebAuthn L3 §5.8.5) by the names Chrome and python-fido2 use.
ALGORITHM_NAMES = {
    -7: "ES256",
    -35: "ES384",
    -36: "ES512",
    -8: "EdDSA",
    -47: "ES256K",
    -257: "RS256",
    -37: "PS256",
    -48: "ML-DSA-44",
    -49: "ML-DSA-65",
    -50: "ML-DSA-87",
}


@dataclass(frozen=True)
class Credential:
    """A stored credential, as Chrome's `WebAuthn.getCredentials` describes one."""

    credential_id: bytes
    #: None for a credential a U2F registration made (protocol='u2f', or U2F_REGISTER on a CTAP2
    #: key): U2F gives the authenticator the RP ID's hash alone, and Chrome lists none either.
    rp_id: str | None
    user_handle: bytes | None
    sign_count: int
    is_resident_credential: bool
    backup_eligible: bool
    backup_state: bool
    user_name: str | None
    user_display_name: str | None
    #: The COSE algorithm identifier (-7 ES256, -8 EdDSA, …); `algorithm_name` spells it.
    algorithm: int
    #: PKCS#8 DER, where the daemon lets private keys out (a VirtualAuthenticator's own
    #: daemon does; another only under --allow-private-key-export); else None.
    private_key: bytes | None = field(repr=False, default=None)
    created_at: int | None = None

    @property
    def algorithm_name(self) -> str:
        return ALGORITHM_NAMES.get(self.algorithm, str(self.algorithm))


@dataclass(frozen=True)
class Event:
    """One device event from the daemon's WATCH stream (docs/vendor-commands.md)."""

    #: credential_added, credential_asserted, credential_deleted, credential_updated,
    #: prompt_pending, prompt_answered, pin_set, pin_changed, reset, fault_fired
    kind: str
    time: float
    rp_id: str | None = None
    credential_id: bytes | None = None
    user_name: str | None = None
    sign_count: int | None = None
    detail: str | None = None
    dropped: int = 0


EVENT_KINDS = (
    "credential_added",
    "credential_asserted",
    "credential_deleted",
    "credential_updated",
    "prompt_pending",
    "prompt_answered",
    "pin_set",
    "pin_changed",
    "reset",
    "fault_fired",
)


# -- input checks -----------------------------------------------------------------


def _bytes(value: bytes | bytearray | memoryview | str, what: str) -> bytes:
    """Bytes as given, or decoded from base64 / base64url text (padded or not), as Chrome's
    CDP and WebDriver carry binary members."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            if "-" in text or "_" in text:
                return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
            return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
        except (binascii.Error, ValueError) as error:
            raise InvalidCredential(f"{what} is text but not base64 or base64url: {error}") from None
    raise InvalidCredential(f"{what} must be bytes or base64 text, not {type(value).__name__}")


_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


def check_rp_id(rp_id: str) -> str:
    """An RP ID is a valid domain string (WebAuthn L3 §5.1.2, URL Standard): labels of letters,
    digits and hyphens (an internationalised name in its A-label form, or converted to it), no
    IP address, no scheme, port or path. Returns it lower-cased."""
    if not isinstance(rp_id, str) or not rp_id:
        raise InvalidRpId(f"RP ID {rp_id!r} is not a domain: it must be a non-empty string such as 'example.com'")
    try:
        ascii_form = rp_id.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise InvalidRpId(f"RP ID {rp_id!r} is not a domain: it is not a valid (internationalised) host name") from None
    if len(ascii_form) > 253 or not all(_LABEL.match(label) for label in ascii_form.split(".")):
        raise InvalidRpId(
            f"RP ID {rp_id!r} is not a domain: a domain is dot-separated labels of letters, digits and hyphens "
            "(no scheme, port, path or spaces), e.g. 'example.com'")
    if all(label.isdigit() for label in ascii_form.split(".")):
        raise InvalidRpId(f"RP ID {rp_id!r} is not a domain: it is an IP address, which cannot be an RP ID")
    return ascii_form


#: ML-DSA PKCS#8 with the seed choice (draft-ietf-lamps-dilithium-certificates), as passkeyd
#: exports it: this prefix (the last OID arc differs), then the 32-byte seed.
def _mldsa_prefix(last_arc: int) -> bytes:
    return bytes([0x30, 0x34, 0x02, 0x01, 0x00, 0x30, 0x0B, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04,
                  0x03, last_arc, 0x04, 0x22, 0x80, 0x20])


_MLDSA = {-48: _mldsa_prefix(0x11), -49: _mldsa_prefix(0x12), -50: _mldsa_prefix(0x13)}
_CURVES = {"secp256r1": (-7, 32), "secp384r1": (-35, 48), "secp521r1": (-36, 66), "secp256k1": (-47, 32)}
_RSA_BYTES = 256


def raw_private_key(private_key: bytes | str, algorithm: str | int | None = None) -> tuple[int, bytes]:
    """(COSE algorithm, passkeyd's raw form) of a PKCS#8 private key (DER bytes, base64 of
    them, or PEM): the EC scalar, the Ed25519 or ML-DSA seed, or an RSA key's n ‖ d.

    `algorithm` chooses between algorithms one key serves (an RSA key: RS256, the default, or
    PS256); otherwise it must agree with the key."""
    if isinstance(private_key, (bytes, bytearray)) and bytes(private_key).lstrip().startswith(b"-----BEGIN"):
        der = None
        try:
            key = serialization.load_pem_private_key(bytes(private_key), password=None)
        except (ValueError, TypeError) as error:
            raise UnsupportedKey(f"private_key is PEM but not a readable unencrypted private key: {error}") from None
    else:
        der = _bytes(private_key, "private_key")
        for cose, prefix in _MLDSA.items():
            if len(der) == len(prefix) + 32 and der.startswith(prefix):
                return _agree(cose, algorithm), der[len(prefix):]
        try:
            key = serialization.load_der_private_key(der, password=None)
        except (ValueError, TypeError) as error:
            raise UnsupportedKey(
                f"private_key is not a PKCS#8 private key passkeyd can read ({error}); passkeyd takes P-256, P-384, "
                "P-521, secp256k1, Ed25519, ML-DSA (seed form) and 2048-bit RSA keys") from None
    if isinstance(key, ec.EllipticCurvePrivateKey):
        curve = key.curve.name
        if curve not in _CURVES:
            raise UnsupportedKey(
                f"private_key is an EC key on curve {curve}, which passkeyd does not sign with; "
                f"its curves are {', '.join(sorted(_CURVES))}")
        cose, size = _CURVES[curve]
        return _agree(cose, algorithm), key.private_numbers().private_value.to_bytes(size, "big")
    if isinstance(key, ed25519.Ed25519PrivateKey):
        raw = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                serialization.NoEncryption())
        return _agree(-8, algorithm), raw
    if isinstance(key, rsa.RSAPrivateKey):
        numbers = key.private_numbers()
        if key.key_size != 2048 or numbers.public_numbers.e != 65537:
            raise UnsupportedKey(
                f"private_key is a {key.key_size}-bit RSA key with e = {numbers.public_numbers.e}; passkeyd signs "
                "RS256 and PS256 with 2048-bit keys whose e is 65537")
        cose = _agree(-257, algorithm, choices=(-257, -37))
        return cose, numbers.public_numbers.n.to_bytes(_RSA_BYTES, "big") + numbers.d.to_bytes(_RSA_BYTES, "big")
    raise UnsupportedKey(f"private_key is a {type(key).__name__}, which passkeyd does not sign with")


def _cose(algorithm: str | int) -> int:
    if isinstance(algorithm, int):
        return algorithm
    for cose, name in ALGORITHM_NAMES.items():
        if name.lower() == str(algorithm).lower():
            return cose
    raise UnsupportedKey(f"unknown algorithm {algorithm!r}; one of {', '.join(ALGORITHM_NAMES.values())}")


def _agree(default: int, algorithm: str | int | None, choices: Iterable[int] | None = None) -> int:
    if algorithm is None:
        return default
    wanted = _cose(algorithm)
    if wanted not in (choices or (default,)):
        raise UnsupportedKey(
            f"private_key is a {ALGORITHM_NAMES.get(default, default)} key, not one for {ALGORITHM_NAMES.get(wanted, wanted)}")
    return wanted


def pkcs8_private_key(raw: bytes, algorithm: int) -> bytes | None:
    """PKCS#8 DER of passkeyd's raw form of a key; None for an algorithm it cannot express."""
    encoding, form, none = serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    curves = {-7: ec.SECP256R1(), -35: ec.SECP384R1(), -36: ec.SECP521R1(), -47: ec.SECP256K1()}
    if algorithm in curves:
        return ec.derive_private_key(int.from_bytes(raw, "big"), curves[algorithm]).private_bytes(encoding, form, none)
    if algorithm == -8:
        return ed25519.Ed25519PrivateKey.from_private_bytes(raw).private_bytes(encoding, form, none)
    if algorithm in _MLDSA:
        return _MLDSA[algorithm] + raw
    if algorithm in (-257, -37) and len(raw) == 2 * _RSA_BYTES:
        n, d, e = int.from_bytes(raw[:_RSA_BYTES], "big"), int.from_bytes(raw[_RSA_BYTES:], "big"), 65537
        p, q = rsa.rsa_recover_prime_factors(n, e, d)
        numbers = rsa.RSAPrivateNumbers(
            p=p, q=q, d=d, dmp1=rsa.rsa_crt_dmp1(d, p), dmq1=rsa.rsa_crt_dmq1(d, q), iqmp=rsa.rsa_crt_iqmp(p, q),
            public_numbers=rsa.RSAPublicNumbers(e, n))
        return numbers.private_key().private_bytes(encoding, form, none)
    return None


# -- the WATCH stream -----------------------------------------------------------------


class _EventStream(threading.Thread):
    """A connection of its own in WATCH mode: raw CTAPHID (CTAP 2.1 §11.2.4), since every
    message after the first reply is one the daemon sends unasked."""

    def __init__(self, path: str, deliver: Callable[[Event], None]):
        super().__init__(name=f"passkeyd-events {path}", daemon=True)
        self.connection = SocketHidConnection(path, timeout=None)
        self.deliver = deliver
        self.closed = threading.Event()
        self.cid = self._init()
        self._send(CMD_WATCH, b"")
        command, payload = self._read_message()
        if command != CMD_WATCH:
            raise CommandFailed(f"WATCH was answered with CTAPHID command 0x{command:02x} {payload.hex()}", 0)

    def _init(self) -> bytes:
        nonce = os.urandom(8)
        self.cid = b"\xff\xff\xff\xff"
        self._send(CTAPHID.INIT, nonce)
        while True:
            command, payload = self._read_message()
            if command == CTAPHID.INIT and payload[:8] == nonce:
                return payload[8:12]

    def _send(self, command: int, data: bytes) -> None:
        first = self.cid + struct.pack(">BH", 0x80 | command, len(data)) + data[:REPORT_SIZE - 7]
        self.connection.write_packet(first.ljust(REPORT_SIZE, b"\0"))
        rest, seq = data[REPORT_SIZE - 7:], 0
        while rest:
            self.connection.write_packet((self.cid + bytes([seq]) + rest[:REPORT_SIZE - 5]).ljust(REPORT_SIZE, b"\0"))
            rest, seq = rest[REPORT_SIZE - 5:], seq + 1

    def _read_message(self) -> tuple[int, bytes]:
        while True:
            packet = self.connection.read_packet()
            if packet[:4] != self.cid or not packet[4] & 0x80:
                continue
            command, length = packet[4] & 0x7F, struct.unpack(">H", packet[5:7])[0]
            data = packet[7:7 + length]
            while len(data) < length:
                packet = self.connection.read_packet()
                data += packet[5:5 + length - len(data)]
            return command, data

    def run(self) -> None:
        try:
            while not self.closed.is_set():
                command, payload = self._read_message()
                if command == CMD_WATCH:
                    self.deliver(_event(cbor.decode(payload)))
        except (OSError, ConnectionError, ValueError):
            pass  # closed, or the daemon went away: the stream ends

    def close(self) -> None:
        self.closed.set()
        try:
            self.connection.sock.shutdown(socket_module.SHUT_RDWR)
        except OSError:
            pass
        self.connection.close()


def _event(message: dict) -> Event:
    return Event(
        kind=str(message.get("kind", "")).replace(".", "_"),
        time=message.get("time", 0) / 1000.0,
        rp_id=message.get("rpId"),
        credential_id=message.get("credentialId"),
        user_name=message.get("userName"),
        sign_count=message.get("signCount"),
        detail=message.get("detail"),
        dropped=message.get("dropped", 0),
    )


# -- the authenticator --------------------------------------------------------------


#: CTAP status codes the controls answer with (CTAP 2.1 §8.2), by what they mean here.
_STATUS_NAMES = {
    0x02: "CTAP1_ERR_INVALID_PARAMETER",
    0x11: "CTAP2_ERR_CBOR_UNEXPECTED_TYPE",
    0x14: "CTAP2_ERR_MISSING_PARAMETER",
    0x19: "CTAP2_ERR_CREDENTIAL_EXCLUDED",
    0x26: "CTAP2_ERR_UNSUPPORTED_ALGORITHM",
    0x27: "CTAP2_ERR_OPERATION_DENIED",
    0x28: "CTAP2_ERR_KEY_STORE_FULL",
    0x2B: "CTAP2_ERR_UNSUPPORTED_OPTION",
    0x2E: "CTAP2_ERR_NO_CREDENTIALS",
    0x33: "CTAP2_ERR_PIN_AUTH_INVALID",
    0x36: "CTAP2_ERR_PUAT_REQUIRED",
    0x40: "CTAP2_ERR_UNAUTHORIZED_PERMISSION",
}

_EXPORT, _IMPORT, _FLAGS, _DELETE = 0xB0, 0xB1, 0xB2, 0xB4
_PROFILES = {"ctap2_0": "fido2.0", "ctap2_1": "fido2.1", "ctap2_2": "fido2.2"}
_TRANSPORTS = {"usb": "usb", "nfc": "nfc", "ble": "ble", "cable": "hybrid", "hybrid": "hybrid",
               "internal": "internal", "smart-card": "smart-card"}


class VirtualAuthenticator:
    """A throw-away passkeyd configured as Chrome's `WebAuthn.addVirtualAuthenticator`
    options say, or (`connect`) a running one; a context manager.

    The daemon gets a temporary socket and data folder (or `data_dir`), is started with
    `--open-test-controls` (its credential controls need no PIN/UV token) and
    `--allow-private-key-export` (get_credentials returns private keys, as Chrome's does), and
    is stopped and removed by `close()`. Its binary is `binary`, else `$PASSKEYD_BIN`, else
    `passkeyd` on PATH."""

    def __init__(
        self,
        protocol: str = "ctap2",
        ctap2_version: str = "ctap2_1",
        transport: str = "usb",
        has_resident_key: bool = True,
        has_user_verification: bool = True,
        is_user_verified: bool = True,
        automatic_presence_simulation: bool = True,
        default_backup_eligibility: bool = False,
        default_backup_state: bool = False,
        has_large_blob: bool | None = None,
        has_cred_blob: bool | None = None,
        has_min_pin_length: bool | None = None,
        has_prf: bool | None = None,
        binary: str | None = None,
        data_dir: str | None = None,
        extra_flags: Iterable[str] = (),
        start_timeout: float = 30.0,
    ):
        flags = self.flags_for(
            protocol=protocol, ctap2_version=ctap2_version, transport=transport, has_resident_key=has_resident_key,
            has_user_verification=has_user_verification, is_user_verified=is_user_verified,
            automatic_presence_simulation=automatic_presence_simulation,
            default_backup_eligibility=default_backup_eligibility, default_backup_state=default_backup_state,
            has_large_blob=has_large_blob, has_cred_blob=has_cred_blob, has_min_pin_length=has_min_pin_length,
            has_prf=has_prf)
        self.protocol = protocol
        self.transport = transport
        self.has_resident_key = has_resident_key
        self.default_backup_eligibility = default_backup_eligibility
        self.default_backup_state = default_backup_state
        self._daemon: Daemon | None = Daemon(*flags, *extra_flags, data_dir=data_dir, binary=binary)
        self._daemon.start(timeout=start_timeout)
        try:
            self._attach(self._daemon.socket, pin=None)
        except BaseException:
            self._daemon.kill()
            self._daemon.remove()
            raise

    @staticmethod
    def flags_for(*, protocol="ctap2", ctap2_version="ctap2_1", transport="usb", has_resident_key=True,
                  has_user_verification=True, is_user_verified=True, automatic_presence_simulation=True,
                  default_backup_eligibility=False, default_backup_state=False, has_large_blob=None,
                  has_cred_blob=None, has_min_pin_length=None, has_prf=None) -> list[str]:
        """The passkeyd flags that give these options (docs/testing-your-relying-party.md)."""
        if protocol == "u2f":
            profile = "u2f"
        elif protocol == "ctap2":
            if ctap2_version not in _PROFILES:
                raise UnsupportedOption(f"ctap2_version must be one of {', '.join(_PROFILES)}, not {ctap2_version!r}")
            profile = _PROFILES[ctap2_version]
        else:
            raise UnsupportedOption(f"protocol must be 'ctap2' or 'u2f', not {protocol!r}")
        if transport not in _TRANSPORTS:
            raise UnsupportedOption(f"transport must be one of {', '.join(_TRANSPORTS)}, not {transport!r}")
        if default_backup_state and not default_backup_eligibility:
            raise UnsupportedOption(
                "default_backup_state=True needs default_backup_eligibility=True: "
                "a credential that is not eligible for backup cannot be backed up (WebAuthn L3 §6.1)")
        flags = ["--profile", profile, "--transport", _TRANSPORTS[transport],
                 "--presence", "auto" if automatic_presence_simulation else "prompt",
                 "--uv", ("auto" if is_user_verified else "deny") if has_user_verification else "off",
                 "--open-test-controls", "--allow-private-key-export"]
        if not has_resident_key:
            flags.append("--no-resident-keys")
        if default_backup_eligibility:
            flags.append("--backup-eligible")
        if default_backup_state:
            flags.append("--backup-state")
        # What each profile offers (docs/profiles.md): only those can be taken away.
        offered = {"u2f": set(), "fido2.0": {"hmac-secret"}}.get(
            profile, {"largeBlobKey", "credBlob", "minPinLength", "hmac-secret", "hmac-secret-mc"})
        wanted = {"largeBlobKey": has_large_blob, "credBlob": has_cred_blob, "minPinLength": has_min_pin_length,
                  "hmac-secret": has_prf, "hmac-secret-mc": has_prf}
        for extension, want in wanted.items():
            if want is None:
                continue
            if want and extension not in offered:
                raise UnsupportedOption(f"the {profile} profile does not offer {extension} (docs/profiles.md)")
            if not want and extension in offered:
                flags += ["--without-extension", extension]
        return flags

    @classmethod
    def connect(cls, socket: str | None = None, pin: str | None = None) -> "VirtualAuthenticator":
        """Attaches to a running passkeyd (default: its default socket). Its credential controls
        need a token unless it runs with --open-test-controls: one is obtained with `pin`, else by
        built-in UV. `close()` leaves that daemon running."""
        from . import default_socket_path

        self = cls.__new__(cls)
        self.protocol = None
        self.transport = None
        self.has_resident_key = None
        self.default_backup_eligibility = False
        self.default_backup_state = False
        self._daemon = None
        self._attach(socket or default_socket_path(), pin=pin)
        return self

    def _attach(self, path: str, pin: str | None) -> None:
        self.socket = path
        self._pin = pin
        self._token = None
        self._lock = threading.RLock()
        self._closed = False
        self._events: list[Event] = []
        self._callbacks: dict[str, list[Callable[[Event], None]]] = {}
        self._events_changed = threading.Condition()
        try:
            self._device = open_device(path)
        except OSError as error:
            raise AuthenticatorGone(f"no passkeyd answers at {path}: {error}") from None
        self._stream = _EventStream(path, self._deliver)
        self._stream.start()

    # -- lifetime --------------------------------------------------------------------

    def close(self) -> None:
        """Stops the event stream and, for one this object started, the daemon (SIGTERM), and
        removes its temporary folder."""
        if self._closed:
            return
        self._closed = True
        self._stream.close()
        try:
            self._device.close()
        except OSError:
            pass
        if self._daemon is not None:
            try:
                if self._daemon.alive():
                    self._daemon.stop()
            finally:
                self._daemon.remove()

    def __enter__(self) -> "VirtualAuthenticator":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def alive(self) -> bool:
        """Whether the daemon still runs (for one attached with connect: whether its socket answers)."""
        if self._daemon is not None:
            return self._daemon.alive()
        try:
            self.status()
            return True
        except AuthenticatorGone:
            return False

    @property
    def daemon(self) -> Daemon | None:
        """The passkeyd process this object started (None after connect)."""
        return self._daemon

    def device(self):
        """A python-fido2 CtapHidDevice on this authenticator, on a connection of its own."""
        return open_device(self.socket)

    # -- transport -------------------------------------------------------------------

    def _gone(self, error: BaseException | None = None) -> AuthenticatorGone:
        if self._closed:
            return AuthenticatorGone(f"this VirtualAuthenticator was closed (socket {self.socket})")
        why = f": {error}" if error else ""
        if self._daemon is not None and not self._daemon.alive():
            code = self._daemon.proc.returncode if self._daemon.proc is not None else "unknown"
            return AuthenticatorGone(f"passkeyd at {self.socket} is gone (exit status {code}){why}")
        return AuthenticatorGone(f"passkeyd at {self.socket} does not answer{why}")

    def _call(self, command: int, payload: bytes) -> bytes:
        """A CTAPHID request on the control connection."""
        if self._closed or (self._daemon is not None and not self._daemon.alive()):
            raise self._gone()
        with self._lock:
            try:
                if command >= 0x50:
                    return vendor_call(self._device, command, payload)
                return self._device.call(command, payload)
            except (OSError, ConnectionError) as error:
                raise self._gone(error) from None
            except CtapError as error:
                if self._daemon is not None and not self._daemon.alive():
                    raise self._gone(error) from None
                raise CommandFailed(f"passkeyd refused CTAPHID command 0x{command:02x}: {error}", int(error.code))

    def _vendor_ctap2(self, command: int, parameters: dict, what: str) -> dict:
        """An authenticated vendor CTAP2 command (docs/vendor-commands.md): `{1: parameters}`,
        with a pinUvAuthParam when the daemon wants one."""
        request = {1: parameters}
        if self._token is not None:
            request.update(self._authenticate(command, parameters))
        status, body = self._ctap2(command, request)
        if status == 0x36 and self._token is None:  # CTAP2_ERR_PUAT_REQUIRED: not an open daemon
            self._token = self._obtain_token()
            request.update(self._authenticate(command, parameters))
            status, body = self._ctap2(command, request)
        if status != 0:
            name = _STATUS_NAMES.get(status, f"0x{status:02x}")
            raise CommandFailed(f"{what}: passkeyd answered {name}", status)
        return cbor.decode(body) if body else {}

    def _ctap2(self, command: int, request: dict) -> tuple[int, bytes]:
        reply = self._call(CTAPHID.CBOR, bytes([command]) + cbor.encode(request))
        if not reply:
            raise CommandFailed("an empty CTAP2 reply", 0x01)
        return reply[0], reply[1:]

    def _obtain_token(self):
        from fido2.ctap2 import ClientPin, Ctap2

        with self._lock:
            ctap2 = Ctap2(self._device)
            client_pin = ClientPin(ctap2)
            permissions = ClientPin.PERMISSION.CREDENTIAL_MGMT
            try:
                if self._pin is not None:
                    token = client_pin.get_pin_token(self._pin, permissions)
                else:
                    token = client_pin.get_uv_token(permissions)
            except CtapError as error:
                raise UnsupportedOption(
                    f"passkeyd at {self.socket} wants a PIN/UV token for its credential controls and none could "
                    f"be had ({error}): start it with --open-test-controls, or connect with pin=") from None
            return client_pin.protocol, token

    def _authenticate(self, command: int, parameters: dict) -> dict:
        protocol, token = self._token
        message = bytes([command]) + cbor.encode(parameters)
        return {2: protocol.VERSION, 3: protocol.authenticate(token, message)}

    def _controls(self, request: dict) -> dict:
        reply = self._call(CMD_CONTROLS, cbor.encode(request))
        if not reply or reply[0] != 0:
            status = reply[0] if reply else 0x01
            raise CommandFailed(f"CONTROLS {request.get('op')}: passkeyd answered 0x{status:02x}", status)
        return cbor.decode(reply[1:])

    # -- credentials ------------------------------------------------------------------

    def add_credential(
        self,
        credential_id: bytes | str,
        rp_id: str,
        user_handle: bytes | str | None,
        private_key: bytes | str,
        sign_count: int = 0,
        is_resident_credential: bool = True,
        backup_eligible: bool | None = None,
        backup_state: bool | None = None,
        large_blob: bytes | str | None = None,
        user_name: str | None = None,
        user_display_name: str | None = None,
        algorithm: str | int | None = None,
    ) -> Credential:
        """Stores a credential with a known key, as Chrome's `WebAuthn.addCredential`.

        `private_key` is PKCS#8 DER (or base64 of it, or PEM) of any key passkeyd signs with;
        `credential_id` (bytes or base64/base64url) may be up to 1023 bytes. A non-resident
        credential answers requests whose allowCredentials name its ID and is never offered by
        discovery; it lives in the daemon's memory (a restart forgets it). Bad input raises an
        InvalidCredential (UnsupportedKey, InvalidRpId, DuplicateCredential) and stores nothing."""
        if self.protocol == "u2f" and is_resident_credential:
            raise UnsupportedOption(
                "add_credential: a protocol='u2f' authenticator keeps no resident credential (U2F has none); "
                "pass is_resident_credential=False, or use protocol='ctap2'")
        if is_resident_credential and self.has_resident_key is False:
            raise UnsupportedOption(
                "add_credential: this authenticator has has_resident_key=False, so it keeps no resident "
                "credential; pass is_resident_credential=False")
        credential_id = _bytes(credential_id, "credential_id")
        if not 1 <= len(credential_id) <= MAX_CREDENTIAL_ID_LENGTH:
            raise InvalidCredential(
                f"credential_id is {len(credential_id)} bytes; WebAuthn allows 1 to {MAX_CREDENTIAL_ID_LENGTH}")
        rp = check_rp_id(rp_id)
        handle = b"" if user_handle is None else _bytes(user_handle, "user_handle")
        if len(handle) > MAX_USER_HANDLE_LENGTH:
            raise InvalidCredential(f"user_handle is {len(handle)} bytes; WebAuthn allows at most 64")
        if is_resident_credential and not handle:
            raise InvalidCredential("a resident credential needs a user_handle (WebAuthn L3 §5.4.3: 1 to 64 bytes)")
        cose, raw = raw_private_key(private_key, algorithm)
        if self.protocol == "u2f" and cose != -7:
            raise UnsupportedKey(f"a protocol='u2f' authenticator signs with ES256 alone (FIDO U2F), not "
                                 f"{ALGORITHM_NAMES.get(cose, cose)}")
        if not isinstance(sign_count, int) or not 0 <= sign_count <= 0xFFFFFFFF:
            raise InvalidCredential(f"sign_count must be a whole number from 0 to 2^32-1, not {sign_count!r}")
        eligible = self.default_backup_eligibility if backup_eligible is None else bool(backup_eligible)
        backed_up = self.default_backup_state if backup_state is None else bool(backup_state)
        if backed_up and not eligible:
            raise InvalidCredential("backup_state=True needs backup_eligible=True (WebAuthn L3 §6.1: BS implies BE)")
        blob = None if large_blob is None else _bytes(large_blob, "large_blob")
        if blob is not None and not is_resident_credential:
            raise InvalidCredential("a large blob belongs to a resident credential (CTAP 2.1 §12.3)")
        if self.get_credential(credential_id, missing_ok=True) is not None:
            raise DuplicateCredential(f"a credential with ID {_b64(credential_id)} is already stored")
        user = {"id": handle}
        if user_name is not None:
            user["name"] = user_name
        if user_display_name is not None:
            user["displayName"] = user_display_name
        record = {1: credential_id, 2: {"id": rp}, 3: user, 4: cose, 5: sign_count, 6: raw, 8: eligible,
                  9: backed_up}
        large_blob_key = secrets.token_bytes(32) if blob is not None else None
        if large_blob_key is not None:
            record[12] = large_blob_key
        if not is_resident_credential:
            record[13] = False
        try:
            self._vendor_ctap2(_IMPORT, {1: record}, "add_credential")
        except CommandFailed as error:
            raise self._import_error(error, credential_id, rp, cose) from None
        if blob is not None:
            try:
                self._write_large_blob(large_blob_key, blob)
            except BaseException:
                self.remove_credential(credential_id)
                raise
        return self.get_credential(credential_id)

    @staticmethod
    def _import_error(error: CommandFailed, credential_id: bytes, rp_id: str, cose: int) -> PasskeydError:
        if error.status == 0x19:
            return DuplicateCredential(f"a credential with ID {_b64(credential_id)} is already stored")
        if error.status == 0x26:
            return UnsupportedKey(f"passkeyd does not offer algorithm {ALGORITHM_NAMES.get(cose, cose)}")
        if error.status == 0x02:
            return InvalidCredential(
                f"passkeyd refused the credential for {rp_id} (the key is not a valid "
                f"{ALGORITHM_NAMES.get(cose, cose)} key, or a length or flag is out of range)")
        if error.status == 0x28:
            return InvalidCredential("passkeyd's credential store is full")
        return error

    def _write_large_blob(self, key: bytes, blob: bytes) -> None:
        from fido2.ctap2 import ClientPin, Ctap2
        from fido2.ctap2.blob import LargeBlobs

        with self._lock:
            ctap2 = Ctap2(self._device)
            if not ctap2.info.options.get("largeBlobs"):
                raise UnsupportedOption("large_blob: this profile has no large-blob storage (CTAP 2.1 §6.10)")
            client_pin = ClientPin(ctap2)
            try:
                if self._pin is not None:
                    token = client_pin.get_pin_token(self._pin, ClientPin.PERMISSION.LARGE_BLOB_WRITE)
                else:
                    token = client_pin.get_uv_token(ClientPin.PERMISSION.LARGE_BLOB_WRITE)
            except CtapError as error:
                raise UnsupportedOption(
                    f"large_blob is written with a PIN/UV token (CTAP 2.1 §6.10.2) and none could be had ({error}): "
                    "it needs has_user_verification=True and is_user_verified=True, or a PIN") from None
            LargeBlobs(ctap2, client_pin.protocol, token).put_blob(key, blob)

    def get_credentials(self, rp_id: str | None = None) -> list[Credential]:
        """Every stored credential (of `rp_id`), resident and not."""
        return self._export({} if rp_id is None else {1: rp_id})

    def _export(self, selection: dict) -> list[Credential]:
        records: list[dict] = []
        with_keys = True
        while True:
            parameters = dict(selection)
            if records:
                parameters[3] = len(records)
            if with_keys:
                parameters[2] = True
            try:
                page = self._vendor_ctap2(_EXPORT, parameters, "get_credentials")
            except CommandFailed as error:
                if with_keys and error.status in (0x27, 0x40):  # keys withheld by this daemon: list without
                    with_keys = False
                    records = []
                    continue
                raise
            records += page.get(1, [])
            if len(records) >= page.get(2, 0) or not page.get(1):
                return [_credential(record) for record in records]

    def get_credential(self, credential_id: bytes | str, missing_ok: bool = False) -> Credential | None:
        """The credential with this ID; CredentialNotFound (or None with missing_ok) if none."""
        wanted = _bytes(credential_id, "credential_id")
        for credential in self._export({4: wanted}):
            if credential.credential_id == wanted:
                return credential
        if missing_ok:
            return None
        raise CredentialNotFound(f"no credential with ID {_b64(wanted)}")

    def remove_credential(self, credential_id: bytes | str) -> None:
        """Removes one credential, resident or not."""
        wanted = _bytes(credential_id, "credential_id")
        try:
            self._vendor_ctap2(_DELETE, {1: wanted}, "remove_credential")
        except CommandFailed as error:
            if error.status == 0x2E:
                raise CredentialNotFound(f"no credential with ID {_b64(wanted)}") from None
            raise

    def remove_all_credentials(self) -> None:
        """Removes every credential, one by one (each a credential_deleted event)."""
        for credential in self.get_credentials():
            self.remove_credential(credential.credential_id)

    def set_credential_properties(
        self,
        credential_id: bytes | str,
        backup_eligible: bool | None = None,
        backup_state: bool | None = None,
        sign_count: int | None = None,
    ) -> Credential:
        """Chrome's `WebAuthn.setCredentialProperties`, plus the counter: None leaves a property
        as it is; the next assertion reports sign_count + 1."""
        wanted = _bytes(credential_id, "credential_id")
        parameters: dict = {1: wanted}
        if backup_eligible is not None:
            parameters[2] = bool(backup_eligible)
        if backup_state is not None:
            parameters[3] = bool(backup_state)
        if sign_count is not None:
            if not isinstance(sign_count, int) or not 0 <= sign_count <= 0xFFFFFFFF:
                raise InvalidCredential(f"sign_count must be a whole number from 0 to 2^32-1, not {sign_count!r}")
            parameters[4] = sign_count
        try:
            self._vendor_ctap2(_FLAGS, parameters, "set_credential_properties")
        except CommandFailed as error:
            if error.status == 0x2E:
                raise CredentialNotFound(f"no credential with ID {_b64(wanted)}") from None
            if error.status == 0x02:
                raise InvalidCredential("backup_state=True needs backup_eligible=True (WebAuthn L3 §6.1)") from None
            raise
        return self.get_credential(wanted)

    # -- run-time controls ----------------------------------------------------------------

    def set_user_verified(self, verified: bool) -> None:
        """Chrome's `WebAuthn.setUserVerified`: built-in UV succeeds, or fails as a wrong finger
        does (each failure counts against uvRetries, CTAP 2.1 §6.5.5.7.3). No effect on an
        authenticator without built-in UV (has_user_verification=False)."""
        self._controls({"op": "set", "settings": {"userVerified": bool(verified)}})

    def set_automatic_presence_simulation(self, enabled: bool) -> None:
        """Chrome's `WebAuthn.setAutomaticPresenceSimulation`: presence is approved at once, or
        waits (as `--presence prompt`) for `approve()` / `deny()` or its 30-second timeout."""
        self._controls({"op": "set", "settings": {"automaticPresence": bool(enabled)}})

    def set_response_override_bits(self, is_bogus_signature: bool = False, is_bad_uv: bool = False,
                                   is_bad_up: bool = False) -> None:
        """Chrome's `WebAuthn.setResponseOverrideBits`: every registration and assertion from now
        on has a signature that does not verify, a cleared UV flag, a cleared UP flag (validly
        signed), until changed; all False puts them right."""
        self._controls({"op": "set", "settings": {"responseOverrides": {
            "bogusSignature": bool(is_bogus_signature), "badUV": bool(is_bad_uv), "badUP": bool(is_bad_up)}}})

    def answer_next_conditional_request(self, credential_id: bytes | str, rp_id: str | None = None) -> None:
        """Answers the next conditional (AutoFill) request for the credential's RP with this
        credential, without anyone picking it: what Chrome's virtual authenticator does for every
        conditional request. Once; off by default. The browser host asks for it (CONTROLS
        takeConditional) when a conditional request arrives."""
        wanted = _bytes(credential_id, "credential_id")
        rp = check_rp_id(rp_id) if rp_id is not None else self.get_credential(wanted).rp_id
        self._controls({"op": "set", "settings": {"conditional": {"credentialId": wanted, "rpId": rp}}})

    def clear_conditional_answer(self) -> None:
        self._controls({"op": "set", "settings": {}, "clearConditional": True})

    def controls(self) -> dict:
        """The run-time settings as the daemon has them (CONTROLS get)."""
        return self._controls({"op": "get"})

    def reset_controls(self) -> None:
        """Every run-time setting back to what the daemon was started with."""
        self._controls({"op": "reset"})

    def approve(self) -> bool:
        """Approves the waiting presence or UV prompt; False when none waits."""
        return self._call(CMD_PRESENCE, b"\x01") == b"\x01"

    def deny(self) -> bool:
        """Denies the waiting presence or UV prompt; False when none waits."""
        return self._call(CMD_PRESENCE, b"\x00") == b"\x01"

    def status(self) -> dict:
        """The daemon's STATUS map (version, pid, socket, pending prompt, profile)."""
        return cbor.decode(self._call(CMD_STATUS, b""))

    def set_fault(self, fault: str, count: int | None = 1, rp_id: str | None = None) -> list[dict]:
        """Arms one of passkeyd's faults (docs/faults.md: `bogus-signature`, `counter-rewind=5`,
        `status=CTAP2_ERR_PIN_INVALID`, …) for the next `count` transactions (None: until cleared)."""
        rule: dict = {"fault": fault}
        if count is not None:
            rule["count"] = count
        if rp_id is not None:
            rule["rp"] = rp_id
        reply = self._call(CMD_FAULT, cbor.encode({"op": "set", "rule": rule}))
        if not reply or reply[0] != 0:
            raise CommandFailed(f"fault {fault!r} was refused (0x{reply[0] if reply else 1:02x})", reply[0] if reply else 1)
        return cbor.decode(reply[1:])

    def clear_faults(self) -> None:
        self._call(CMD_FAULT, cbor.encode({"op": "clear"}))

    # -- events -------------------------------------------------------------------------

    def on(self, kind: str, callback: Callable[[Event], None]) -> None:
        """Calls `callback(event)` for each event of `kind` (credential_added,
        credential_asserted, credential_deleted, credential_updated, …) from now on, on the
        package's event thread."""
        if kind not in EVENT_KINDS:
            raise ValueError(f"unknown event {kind!r}; one of {', '.join(EVENT_KINDS)}")
        with self._events_changed:
            self._callbacks.setdefault(kind, []).append(callback)

    def events(self, kind: str | None = None) -> list[Event]:
        """What arrived since the authenticator was made (of `kind`, when given), oldest first."""
        with self._events_changed:
            return [event for event in self._events if kind is None or event.kind == kind]

    def wait_for_event(self, kind: str, timeout: float = 10.0, after: int = 0,
                       where: Callable[[Event], bool] | None = None) -> Event:
        """The first event of `kind` (past the first `after` events of that kind, and matching
        `where`), waiting up to `timeout` seconds for it: events arrive on their own thread."""
        deadline = time.monotonic() + timeout
        with self._events_changed:
            while True:
                matching = [e for e in self._events if e.kind == kind and (where is None or where(e))]
                if len(matching) > after:
                    return matching[after]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no {kind} event within {timeout} s (saw {[e.kind for e in self._events]})")
                self._events_changed.wait(left)

    def _deliver(self, event: Event) -> None:
        with self._events_changed:
            self._events.append(event)
            callbacks = list(self._callbacks.get(event.kind, []))
            self._events_changed.notify_all()
        for callback in callbacks:
            callback(event)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _credential(record: dict) -> Credential:
    user = record.get(3) or {}
    raw = record.get(6)
    algorithm = record.get(4)
    return Credential(
        credential_id=record[1],
        rp_id=(record.get(2) or {}).get("id") or None,
        user_handle=user.get("id") or None,
        sign_count=record.get(5, 0),
        is_resident_credential=record.get(13, True) is not False,
        backup_eligible=bool(record.get(8, False)),
        backup_state=bool(record.get(9, False)),
        user_name=user.get("name"),
        user_display_name=user.get("displayName"),
        algorithm=algorithm,
        private_key=pkcs8_private_key(raw, algorithm) if raw else None,
        created_at=record.get(10),
    )
