#!/usr/bin/env python3
"""Known-answer vectors for the CTAP 2.1 PIN/UV auth protocols (§6.5.7, §6.5.8).

An implementation independent of the Swift one (python `cryptography`), run from
fixed private keys so the output is reproducible:

    python3 Fixtures/pin/generate.py   # rewrites Fixtures/pin/vectors.json
"""
import hashlib
import hmac
import json
import os

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def scalar(label):
    """A fixed P-256 private scalar derived from a label (always in range for these labels)."""
    return int.from_bytes(hashlib.sha256(label.encode()).digest(), "big")


def point(key):
    numbers = key.public_key().public_numbers()
    return numbers.x.to_bytes(32, "big"), numbers.y.to_bytes(32, "big")


def aes256_cbc(key, iv, data):
    assert len(data) % 16 == 0
    encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    return encryptor.update(data) + encryptor.finalize()


def hkdf(z, info):
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=bytes(32), info=info).derive(z)


def mac(key, message):
    return hmac.new(key, message, hashlib.sha256).digest()


authenticator = ec.derive_private_key(scalar("passkeyd authenticator key agreement"), ec.SECP256R1())
platform = ec.derive_private_key(scalar("passkeyd platform key agreement"), ec.SECP256R1())
z = platform.exchange(ec.ECDH(), authenticator.public_key())
assert z == authenticator.exchange(ec.ECDH(), platform.public_key())

pin = "1234".encode()
padded_new_pin = pin + bytes(64 - len(pin))  # §6.5.5.5: newPin padded with zeros to 64 bytes
pin_hash = hashlib.sha256(pin).digest()[:16]  # LEFT(SHA-256(PIN), 16)
message = hashlib.sha256(b"passkeyd clientDataHash").digest()
token = hashlib.sha256(b"passkeyd pinUvAuthToken").digest()
iv = bytes(range(0xA0, 0xB0))

auth_x, auth_y = point(authenticator)
plat_x, plat_y = point(platform)

one_secret = hashlib.sha256(z).digest()
two_hmac_key = hkdf(z, b"CTAP2 HMAC key")
two_aes_key = hkdf(z, b"CTAP2 AES key")

vectors = {
    "authenticatorPrivateKey": authenticator.private_numbers().private_value.to_bytes(32, "big"),
    "authenticatorPublicKeyX": auth_x,
    "authenticatorPublicKeyY": auth_y,
    "platformPrivateKey": platform.private_numbers().private_value.to_bytes(32, "big"),
    "platformPublicKeyX": plat_x,
    "platformPublicKeyY": plat_y,
    "z": z,
    "paddedNewPin": padded_new_pin,
    "pinHash": pin_hash,
    "message": message,
    "pinUvAuthToken": token,
    "protocolOne": {
        "sharedSecret": one_secret,
        "newPinEnc": aes256_cbc(one_secret, bytes(16), padded_new_pin),
        "pinHashEnc": aes256_cbc(one_secret, bytes(16), pin_hash),
        "pinUvAuthTokenEnc": aes256_cbc(one_secret, bytes(16), token),
        "authenticate": mac(one_secret, message)[:16],
        "authenticateWithToken": mac(token, message)[:16],
    },
    "protocolTwo": {
        "hmacKey": two_hmac_key,
        "aesKey": two_aes_key,
        "sharedSecret": two_hmac_key + two_aes_key,
        "iv": iv,
        "newPinEnc": iv + aes256_cbc(two_aes_key, iv, padded_new_pin),
        "pinHashEnc": iv + aes256_cbc(two_aes_key, iv, pin_hash),
        "pinUvAuthTokenEnc": iv + aes256_cbc(two_aes_key, iv, token),
        "authenticate": mac(two_hmac_key, message),
        "authenticateWithToken": mac(token, message),
    },
}


def hexed(value):
    if isinstance(value, dict):
        return {k: hexed(v) for k, v in value.items()}
    return value.hex()


out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors.json")
with open(out, "w") as f:
    json.dump(hexed(vectors), f, indent=2, sort_keys=True)
    f.write("\n")
