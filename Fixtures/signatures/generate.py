"""Golden signature vectors from an independent implementation (pyca/cryptography).

Run: python3 Fixtures/signatures/generate.py > Fixtures/signatures/vectors.json
Ed25519 is deterministic, so the Swift side must reproduce the signature byte for byte;
ECDSA is not, so the P-256 vector checks the derived public key and that a signature
made here verifies with the key the Swift side derives.
"""
import hashlib
import json

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

message = hashlib.sha256(b"passkeyd golden vector").digest() + bytes(range(37))

ed_seed = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
ed_key = ed25519.Ed25519PrivateKey.from_private_bytes(ed_seed)
ed_public = ed_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

p256_scalar = bytes.fromhex("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721")
p256_key = ec.derive_private_key(int.from_bytes(p256_scalar, "big"), ec.SECP256R1())
p256_point = p256_key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
p256_signature = p256_key.sign(message, ec.ECDSA(hashes.SHA256()))

print(json.dumps({
    "message": message.hex(),
    "ed25519": {"seed": ed_seed.hex(), "publicKey": ed_public.hex(), "signature": ed_key.sign(message).hex()},
    "p256": {
        "scalar": p256_scalar.hex(),
        "x": p256_point[1:33].hex(),
        "y": p256_point[33:65].hex(),
        "derSignature": p256_signature.hex(),
    },
}, indent=2))
