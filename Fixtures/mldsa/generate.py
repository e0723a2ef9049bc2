#!/usr/bin/env python3
"""Known answers for ML-DSA-44 (FIPS 204) and SHAKE (FIPS 202) from implementations independent
of Sources/MLDSA: python `cryptography` (OpenSSL's ML-DSA) and hashlib. Seeds and messages are
derived from labels so the keys are reproducible; python's ML-DSA signing is hedged, so the
signatures differ per run but each verifies under the fixed public key.

    .venv/bin/python Fixtures/mldsa/generate.py   # rewrites Fixtures/mldsa/vectors.json
"""
import hashlib
import json
import os

from cryptography.hazmat.primitives.asymmetric.mldsa import MLDSA44PrivateKey


def label_bytes(label, count):
    return hashlib.shake_256(label.encode()).digest(count)


def main():
    keys = []
    for i in range(4):
        seed = label_bytes(f"passkeyd ML-DSA-44 seed {i}", 32)
        key = MLDSA44PrivateKey.from_seed_bytes(seed)
        message = label_bytes(f"passkeyd ML-DSA-44 message {i}", 37 * i)
        keys.append({
            "seed": seed.hex(),
            "publicKey": key.public_key().public_bytes_raw().hex(),
            "message": message.hex(),
            "signature": key.sign(message).hex(),
        })
    # Pure ML-DSA with a context string (FIPS 204 Algorithm 2: M' = 0 || |ctx| || ctx || M),
    # from 1 byte to the 255-byte maximum.
    contexts = []
    for i, length in enumerate((1, 64, 255)):
        seed = label_bytes(f"passkeyd ML-DSA-44 context seed {i}", 32)
        key = MLDSA44PrivateKey.from_seed_bytes(seed)
        message = label_bytes(f"passkeyd ML-DSA-44 context message {i}", 32)
        context = label_bytes(f"passkeyd ML-DSA-44 context {i}", length)
        contexts.append({
            "seed": seed.hex(),
            "publicKey": key.public_key().public_bytes_raw().hex(),
            "message": message.hex(),
            "context": context.hex(),
            "signature": key.sign(message, context).hex(),
        })
    shake = []
    for length in (0, 1, 135, 136, 137, 167, 168, 169, 500):
        data = label_bytes(f"passkeyd SHAKE input {length}", length)
        shake.append({
            "input": data.hex(),
            "shake128": hashlib.shake_128(data).hexdigest(300),
            "shake256": hashlib.shake_256(data).hexdigest(300),
        })
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors.json")
    with open(path, "w") as f:
        json.dump({"mldsa44": keys, "mldsa44Context": contexts, "shake": shake}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
