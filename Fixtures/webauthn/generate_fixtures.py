#!/usr/bin/env python3
"""Writes the WebAuthn fixtures the Swift tests read, from implementations independent of passkeyd.

- py_webauthn_registration_options.json / py_webauthn_authentication_options.json:
  py_webauthn's own `options_to_json` output (WebAuthn L3 §5.1.8, §5.1.9).
- golden_es256_packed.json / golden_ed25519_none.json: a registration and an authentication
  response built here with `cryptography` and `cbor2` (a tiny authenticator and client), each
  accepted by py_webauthn's `verify_registration_response` and `verify_authentication_response`
  before it is written.

Run: python3 -m venv /tmp/wavenv && /tmp/wavenv/bin/pip install webauthn==3.0.1
     /tmp/wavenv/bin/python Fixtures/webauthn/generate_fixtures.py
Signatures are randomized (ECDSA), so each run writes different but equally valid vectors.
"""
import hashlib
import json
import os
import struct

import cbor2
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import bytes_to_base64url
from webauthn.helpers.structs import (
    AttestationConveyancePreference,
    AuthenticatorAttachment,
    AuthenticatorSelectionCriteria,
    AuthenticatorTransport,
    PublicKeyCredentialDescriptor,
    PublicKeyCredentialHint,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

HERE = os.path.dirname(os.path.abspath(__file__))
RP_ID = "example.com"
ORIGIN = "https://example.com"


def write(name, value):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(json.dumps(value, indent=2) + "\n")


def options_fixtures():
    reg = generate_registration_options(
        rp_id=RP_ID,
        rp_name="Example",
        user_id=bytes(range(1, 17)),
        user_name="alice@example.com",
        user_display_name="Alice",
        challenge=bytes(range(32)),
        timeout=120000,
        attestation=AttestationConveyancePreference.DIRECT,
        authenticator_selection=AuthenticatorSelectionCriteria(
            authenticator_attachment=AuthenticatorAttachment.CROSS_PLATFORM,
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.REQUIRED,
        ),
        exclude_credentials=[
            PublicKeyCredentialDescriptor(
                id=b"\xaa" * 16,
                transports=[AuthenticatorTransport.USB, AuthenticatorTransport.HYBRID],
            )
        ],
        hints=[PublicKeyCredentialHint.SECURITY_KEY, PublicKeyCredentialHint.HYBRID],
    )
    with open(os.path.join(HERE, "py_webauthn_registration_options.json"), "w") as f:
        f.write(options_to_json(reg) + "\n")
    auth = generate_authentication_options(
        rp_id=RP_ID,
        challenge=bytes(range(100, 132)),
        timeout=30000,
        allow_credentials=[PublicKeyCredentialDescriptor(id=b"\xbb" * 20, transports=[AuthenticatorTransport.INTERNAL])],
        user_verification=UserVerificationRequirement.DISCOURAGED,
    )
    with open(os.path.join(HERE, "py_webauthn_authentication_options.json"), "w") as f:
        f.write(options_to_json(auth) + "\n")


def client_data(kind, challenge):
    # WebAuthn L3 §5.8.1.1 member order.
    return json.dumps(
        {"type": kind, "challenge": bytes_to_base64url(challenge), "origin": ORIGIN, "crossOrigin": False},
        separators=(",", ":"),
    ).encode()


def auth_data(flags, sign_count, attested=b""):
    return hashlib.sha256(RP_ID.encode()).digest() + bytes([flags]) + struct.pack(">I", sign_count) + attested


class ES256:
    alg = -7

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())

    def cose(self):
        n = self.key.public_key().public_numbers()
        return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: n.x.to_bytes(32, "big"), -3: n.y.to_bytes(32, "big")}, canonical=True)

    def spki(self):
        return self.key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)

    def sign(self, data):
        return self.key.sign(data, ec.ECDSA(hashes.SHA256()))


class EdDSA:
    alg = -8

    def __init__(self):
        self.key = ed25519.Ed25519PrivateKey.generate()

    def raw(self):
        return self.key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)

    def cose(self):
        return cbor2.dumps({1: 1, 3: -8, -1: 6, -2: self.raw()}, canonical=True)

    def spki(self):
        return self.key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)

    def sign(self, data):
        return self.key.sign(data)


def golden(name, key, fmt, user_handle, credential_id):
    reg_challenge = os.urandom(32)
    reg_options = generate_registration_options(
        rp_id=RP_ID, rp_name="Example", user_id=user_handle, user_name="bob", user_display_name="Bob",
        challenge=reg_challenge,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED, user_verification=UserVerificationRequirement.REQUIRED),
    )
    attested = b"\x00" * 16 + struct.pack(">H", len(credential_id)) + credential_id + key.cose()
    reg_auth_data = auth_data(0x01 | 0x04 | 0x08 | 0x40, 0, attested)  # UP, UV, BE, AT
    reg_client_data = client_data("webauthn.create", reg_challenge)
    if fmt == "packed":
        att_stmt = {"alg": key.alg, "sig": key.sign(reg_auth_data + hashlib.sha256(reg_client_data).digest())}
    else:
        att_stmt = {}
    attestation_object = cbor2.dumps({"fmt": fmt, "attStmt": att_stmt, "authData": reg_auth_data}, canonical=True)
    registration = {
        "id": bytes_to_base64url(credential_id),
        "rawId": bytes_to_base64url(credential_id),
        "response": {
            "clientDataJSON": bytes_to_base64url(reg_client_data),
            "authenticatorData": bytes_to_base64url(reg_auth_data),
            "transports": ["usb"],
            "publicKey": bytes_to_base64url(key.spki()),
            "publicKeyAlgorithm": key.alg,
            "attestationObject": bytes_to_base64url(attestation_object),
        },
        "authenticatorAttachment": "cross-platform",
        "clientExtensionResults": {"credProps": {"rk": True}},
        "type": "public-key",
    }
    verified = verify_registration_response(
        credential=registration, expected_challenge=reg_challenge, expected_rp_id=RP_ID,
        expected_origin=ORIGIN, require_user_verification=True,
    )

    auth_challenge = os.urandom(32)
    auth_options = generate_authentication_options(
        rp_id=RP_ID, challenge=auth_challenge, user_verification=UserVerificationRequirement.REQUIRED)
    get_auth_data = auth_data(0x01 | 0x04 | 0x08, 7)  # UP, UV, BE
    get_client_data = client_data("webauthn.get", auth_challenge)
    signature = key.sign(get_auth_data + hashlib.sha256(get_client_data).digest())
    authentication = {
        "id": bytes_to_base64url(credential_id),
        "rawId": bytes_to_base64url(credential_id),
        "response": {
            "clientDataJSON": bytes_to_base64url(get_client_data),
            "authenticatorData": bytes_to_base64url(get_auth_data),
            "signature": bytes_to_base64url(signature),
            "userHandle": bytes_to_base64url(user_handle),
        },
        "authenticatorAttachment": "cross-platform",
        "clientExtensionResults": {},
        "type": "public-key",
    }
    verify_authentication_response(
        credential=authentication, expected_challenge=auth_challenge, expected_rp_id=RP_ID,
        expected_origin=ORIGIN, credential_public_key=verified.credential_public_key,
        credential_current_sign_count=verified.sign_count, require_user_verification=True,
    )
    write(name, {
        "generator": "Fixtures/webauthn/generate_fixtures.py (cryptography + cbor2; verified by py_webauthn 3.0.1)",
        "rpId": RP_ID,
        "origin": ORIGIN,
        "credentialPublicKeyCOSE": bytes_to_base64url(key.cose()),
        "registrationOptions": json.loads(options_to_json(reg_options)),
        "registrationResponse": registration,
        "authenticationOptions": json.loads(options_to_json(auth_options)),
        "authenticationResponse": authentication,
    })


if __name__ == "__main__":
    options_fixtures()
    golden("golden_es256_packed.json", ES256(), "packed", b"user-bob-0001", os.urandom(32))
    golden("golden_ed25519_none.json", EdDSA(), "none", b"user-bob-0002", os.urandom(48))
    print("fixtures written to", HERE)
