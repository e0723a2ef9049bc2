"""Writes python-fido2-map-order.json: maps with mixed key types and lengths,
each with the bytes python-fido2's own encoder (fido2.cbor, the one its
strict_cbor check re-encodes authenticator replies with) produces.

Run:  python3 -m venv /tmp/cborvenv && /tmp/cborvenv/bin/pip install fido2==2.2.1
      /tmp/cborvenv/bin/python Fixtures/cbor/generate_python_fido2_map_order.py

Each case is {"name", "value", "python_hex"}; "value" uses the node format the
Swift tests read (Tests/CBORTests/Support/FixtureValue.swift):
{"int": "<signed decimal>"}, {"bytes": "<hex>"}, {"text": "..."}, {"bool": b},
{"array": [...]}, {"map": [[key, value], ...]}.

A case may also carry "spec_hex" where CTAP 2.1 §8's rule (major type, then
length, then bytewise) and python-fido2 (first byte, then length, then bytewise)
disagree. That happens only for array or map keys, which CTAP never uses.
"""

import json
import os
from importlib.metadata import version

from fido2 import cbor


def node(obj):
    if isinstance(obj, bool):
        return {"bool": obj}
    if isinstance(obj, int):
        return {"int": str(obj)}
    if isinstance(obj, str):
        return {"text": obj}
    if isinstance(obj, (bytes, bytearray)):
        return {"bytes": bytes(obj).hex()}
    if isinstance(obj, dict):
        return {"map": [[node(k), node(v)] for k, v in obj.items()]}
    if isinstance(obj, (list, tuple)):
        return {"array": [node(x) for x in obj]}
    raise TypeError(obj)


def shuffled(d, seed):
    """The same map built in another insertion order, so order of input is not what is tested."""
    items = list(d.items())
    # A fixed permutation (no random module), reproducible across Python versions.
    n = len(items)
    order = sorted(range(n), key=lambda i: (i * 7919 + seed) % (n + 13))
    return {items[i][0]: items[i][1] for i in reversed(order)}


B32 = bytes(range(32))
CASES = [
    ("issue 2 example: 100 and -1", {-1: "neg", 100: "pos"}),
    ("unsigned boundaries", {2**64 - 1: 1, 0: 2, 23: 3, 24: 4, 255: 5, 256: 6, 65535: 7, 65536: 8, 2**32 - 1: 9, 2**32: 10}),
    ("negative boundaries", {-1: 1, -24: 2, -25: 3, -256: 4, -257: 5, -65536: 6, -65537: 7, -(2**32): 8, -(2**32) - 1: 9, -(2**64): 10}),
    ("unsigned vs negative across lengths", {1: "a", -1: "b", 24: "c", -25: "d", 1000: "e", -1000: "f", 2**40: "g", -(2**40): "h"}),
    ("text keys by length then bytes", {"b": 1, "a": 2, "aa": 3, "z": 4, "": 5, "ab": 6, "x" * 23: 7, "x" * 24: 8, "y" * 255: 9, "y" * 256: 10}),
    ("non-ASCII text keys", {"\u00e9": 1, "e\u0301": 2, "\u6c34": 3, "\U0001F600": 4, "f": 5}),
    ("byte string keys", {b"": 1, b"\x00": 2, b"\xff": 3, b"\x00\x00": 4, b"\x01" * 24: 5}),
    ("all CTAP key types mixed", {"rk": True, 3: -7, -2: B32, b"id": "x", 1: 2, -1: 1, "up": False, 24: 0, "": b""}),
    ("bool keys with other types", {True: 1, False: 2, "t": 3, 7: 4, -7: 5, b"\x07": 6}),
    ("COSE_Key EC2 P-256 (RFC 9052 §7, CTAP 2.1 §6.5.6)", {-3: B32, -2: B32, -1: 1, 1: 2, 3: -7}),
    ("getInfo-like reply with options map", {
        1: ["FIDO_2_0", "FIDO_2_1"],
        2: ["credProtect", "hmac-secret"],
        3: bytes(16),
        4: {"rk": True, "up": True, "plat": False, "clientPin": True, "credMgmt": True,
            "makeCredUvNotRqd": True, "pinUvAuthToken": True, "alwaysUv": False},
        5: 1200,
        6: [2, 1],
        9: ["usb"],
        10: [{"alg": -7, "type": "public-key"}, {"alg": -8, "type": "public-key"}],
        0x14: 25,
    }),
    ("attestation object-like nested maps", {
        1: "packed",
        2: bytes(37),
        3: {"x5c": [bytes(3)], "alg": -7, "sig": bytes(70)},
    }),
    ("array keys (CTAP never uses them)", {(1000,): 1, (1, 2): 2}),
]


def spec_order_encode(d):
    """CTAP 2.1 §8 key order, for the cases where it differs from python-fido2's."""
    items = [(cbor.encode(k), cbor.encode(v)) for k, v in d.items()]
    items.sort(key=lambda e: (e[0][0] >> 5, len(e[0]), e[0]))
    head = cbor.encode(len(items))  # major type 0 head, re-tagged as a map below
    head = bytes([0xA0 | (head[0] & 0x1F)]) + head[1:]
    return head + b"".join(k + v for k, v in items)


def main():
    out = []
    for i, (name, value) in enumerate(CASES):
        value = shuffled(value, i)
        case = {"name": name, "value": node(value), "python_hex": cbor.encode(value).hex()}
        spec = spec_order_encode(value).hex()
        if spec != case["python_hex"]:
            case["spec_hex"] = spec
        out.append(case)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "python-fido2-map-order.json")
    with open(path, "w") as f:
        # One case a line, so a diff shows which case changed.
        f.write('{"generator": %s,\n "cases": [\n' % json.dumps(f"python-fido2 {version('fido2')} fido2.cbor.encode"))
        f.write(",\n".join("  " + json.dumps(case) for case in out))
        f.write("\n]}\n")


if __name__ == "__main__":
    main()
