#!/usr/bin/env python3
"""make bench row: passkeyd.testing's add_credential per second.

Starts a VirtualAuthenticator (passkeyd from $PASSKEYD_BIN, else PATH), imports N resident
P-256 credentials with keys made beforehand (the keys' making is not timed), and prints one
line: `add_credential per second: X (N credentials in S s)`; with --json, a JSON object.
Each add_credential is what a suite's fixture pays: the duplicate check (an export), the
import, and the read-back of what was stored.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from passkeyd.testing import VirtualAuthenticator


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=200, help="credentials to add (default 200)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    keys = [ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        for _ in range(args.n)]
    with VirtualAuthenticator() as authenticator:
        authenticator.add_credential(os.urandom(16), "warm.bench.example", b"warm", keys[0])
        start = time.perf_counter()
        for i, key in enumerate(keys):
            authenticator.add_credential(os.urandom(32), "bench.example", f"user-{i}".encode(), key)
        elapsed = time.perf_counter() - start
        assert len(authenticator.get_credentials("bench.example")) == args.n
    rate = args.n / elapsed
    if args.json:
        print(json.dumps({"addCredentialPerSecond": round(rate, 1), "credentials": args.n,
                          "seconds": round(elapsed, 3)}))
    else:
        print(f"add_credential per second: {rate:.1f} ({args.n} credentials in {elapsed:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
