"""Builds the seed corpora in Fuzz/Corpus/<target>/ from recorded interop traffic and fixtures.

    python make_corpus.py RECORD_DIR

RECORD_DIR is what record.sh wrote: traffic.jsonl (each socket's writes and reads) and
keystores/<n>/ (each daemon's data directory). Seeds: CTAPHID report streams as the
suites sent them; the CTAP2 requests and responses inside them; their CBOR and the
Fixtures/cbor vectors; authenticator conversations (the recorded requests replayed, and
scripted PIN and credential management sessions); keystores the daemon wrote. Each
seed file is named by its SHA-1, so rerunning adds nothing twice.
"""

from __future__ import annotations

import collections
import hashlib
import json
import os
import struct
import sys
from pathlib import Path

from fido2 import cbor

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "Fuzz" / "Corpus"
REPORT = 64
CTAPHID_CBOR = 0x10
PARSED_COMMANDS = {0x01, 0x02, 0x06, 0x0A, 0x41}
RESPONSE_PARSERS = {0x01, 0x02, 0x04, 0x06, 0x0A}
AUTHENTICATOR_DATA = 0xF0


def write(target: str, data: bytes) -> None:
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def streams(record: Path) -> dict[tuple[int, str], bytes]:
    out: dict[tuple[int, str], bytearray] = collections.defaultdict(bytearray)
    with open(record / "traffic.jsonl", encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            out[(entry["c"], entry["d"])] += bytes.fromhex(entry["hex"])
    return {k: bytes(v) for k, v in out.items()}


def messages(stream: bytes) -> list[tuple[int, int, bytes]]:
    """(channel, command, payload) of every message completed in a report stream."""
    partial: dict[int, tuple[int, int, bytearray]] = {}
    done = []
    for i in range(0, len(stream) - REPORT + 1, REPORT):
        report = stream[i:i + REPORT]
        cid = struct.unpack_from(">I", report)[0]
        if report[4] & 0x80:
            bcnt = struct.unpack_from(">H", report, 5)[0]
            partial[cid] = (report[4] & 0x7F, bcnt, bytearray(report[7:]))
        elif cid in partial:
            partial[cid][2].extend(report[5:])
        else:
            continue
        cmd, bcnt, data = partial[cid]
        if len(data) >= bcnt:
            done.append((cid, cmd, bytes(data[:bcnt])))
            del partial[cid]
    return done


def signature(value) -> tuple:
    """The shape of a CBOR request: its keys, and a subcommand when it has one."""
    if isinstance(value, dict):
        keys = tuple(sorted(str(k) for k in value))
        return keys + (value.get(1) if isinstance(value.get(1), int) and len(value) <= 5 else None, value.get(2) if isinstance(value.get(2), int) else None)
    return (type(value).__name__,)


def pick(candidates: dict, per_kind: int) -> list[bytes]:
    """Up to per_kind of the shortest seeds of each kind."""
    chosen = []
    for kind in sorted(candidates, key=repr):
        chosen += sorted(set(candidates[kind]), key=lambda b: (len(b), b))[:per_kind]
    return chosen


# -- the authenticator's conversation format (FuzzAuthenticator.swift) -----------------

def chunk(data: bytes) -> bytes:
    return struct.pack(">H", len(data)) + data


def raw(message: bytes) -> bytes:
    return b"\x00" + chunk(message)


def set_pin(pin: bytes, version: int = 2) -> bytes:
    return b"\x01" + chunk(pin) + bytes([0 if version == 2 else 1])


def change_pin(pin: bytes, version: int = 2) -> bytes:
    return b"\x02" + chunk(pin) + bytes([0 if version == 2 else 1])


def token(permissions: int, rp_id: bytes = b"", version: int = 2) -> bytes:
    return b"\x03" + bytes([0, permissions]) + chunk(rp_id) + bytes([0 if version == 2 else 1])


def authenticated(command: int, parameters: bytes, sub: int | None = None, mac: bool = True) -> bytes:
    step = b"\x04" + bytes([command | (0 if mac else 0x80)]) + chunk(parameters)
    return step + (bytes([sub]) if sub is not None else b"")


POWER_CYCLE = b"\x05"
RELEASE = b"\x07"


def switch_caller(n: int) -> bytes:
    return b"\x06" + bytes([n])


CRED = b"\xcc\x00"  # the first credential the authenticator returned


def decoded(data: bytes):
    """The CBOR item, or None for the malformed requests the fault suites send."""
    try:
        return cbor.decode(data)
    except Exception:
        return None


def conversations(requests: dict[int, list[bytes]]) -> list[bytes]:
    # Requests that stand alone: well formed, without a pinUvAuthParam from another session.
    mc = sorted((m for m in requests.get(0x01, []) if isinstance(decoded(m[1:]), dict) and 8 not in decoded(m[1:])), key=len)
    ga = sorted((m for m in requests.get(0x02, []) if isinstance(decoded(m[1:]), dict) and 6 not in decoded(m[1:])), key=len)
    rk_mc = next((m for m in mc if decoded(m[1:]).get(7, {}).get("rk")), mc[0] if mc else None)
    rp_hash = hashlib.sha256(b"example.com").digest()
    user = {"id": b"\x01\x02", "name": "fuzz", "displayName": "Fuzz"}
    seeds = [
        b"\x00" + raw(b"\x04"),
        b"\x01" + raw(b"\x04") + raw(b"\x0b") + raw(b"\x07") + POWER_CYCLE + raw(b"\x07"),
        b"\x00" + set_pin(b"1234") + change_pin(b"12345678") + token(0) + token(0x04) + token(0x03, b"example.com", 1),
        b"\x00" + set_pin(b"1234", 1) + authenticated(0x06, cbor.encode({1: 1, 2: 1})),
    ]
    if rk_mc:
        seeds.append(b"\x01" + raw(rk_mc) + raw(rk_mc) + (raw(ga[0]) if ga else b"") + raw(b"\x08") + raw(b"\x08"))
        seeds.append(b"\x00" + set_pin(b"1234") + token(0x03, b"example.com")
                     + authenticated(0x01, rk_mc[1:]) + authenticated(0x02, ga[0][1:] if ga else b"")
                     + raw(b"\x08"))
        cm = lambda sub, params=None: authenticated(0x0A, cbor.encode(params) if params else b"", sub)
        seeds.append(b"\x00" + raw(rk_mc) + raw(rk_mc) + set_pin(b"1234") + token(0x04)
                     + cm(0x01) + cm(0x02) + authenticated(0x0A, b"", 0x03, mac=False)
                     + cm(0x04, {1: rp_hash}) + authenticated(0x0A, b"", 0x05, mac=False)
                     + cm(0x07, {2: {"type": "public-key", "id": CRED}, 3: user})
                     + cm(0x06, {2: {"type": "public-key", "id": CRED}}) + cm(0x01))
        # Conversations belong to their caller: another neither continues nor ends them.
        seeds.append(b"\x01" + raw(rk_mc) + raw(rk_mc) + (raw(ga[0]) if ga else b"") + switch_caller(1) + raw(b"\x08")
                     + switch_caller(0) + raw(b"\x08") + RELEASE + raw(b"\x08"))
        seeds.append(b"\x00" + raw(rk_mc) + raw(rk_mc) + set_pin(b"1234") + token(0x04)
                     + cm(0x02) + switch_caller(2) + authenticated(0x0A, b"", 0x03, mac=False)
                     + switch_caller(0) + authenticated(0x0A, b"", 0x03, mac=False) + RELEASE
                     + authenticated(0x0A, b"", 0x03, mac=False))
        seeds.append(b"\x01" + raw(rk_mc) + authenticated(0x02, cbor.encode(
            {1: "example.com", 2: b"\x00" * 32, 3: [{"type": "public-key", "id": CRED}]}), mac=False))
    for m in mc[:6] + ga[:6]:
        seeds.append(b"\x01" + raw(m))
    return seeds


def main(record: Path) -> None:
    recorded = streams(record)
    hid: dict = collections.defaultdict(list)
    parsed: dict = collections.defaultdict(list)
    cbor_items: dict = collections.defaultdict(list)
    requests: dict[int, list[bytes]] = collections.defaultdict(list)
    for (connection, direction), stream in recorded.items():
        msgs = messages(stream)
        kinds = tuple(sorted({(cmd, p[0] if cmd == CTAPHID_CBOR and p else None) for _, cmd, p in msgs}))
        scene = b"\x00" if direction == "w" else b"\x01"  # the host's reassembler listens on one channel
        hid[(direction, kinds)].append(scene + stream[: 48 * REPORT])
        if direction != "w":
            continue
        replies = [p for _, cmd, p in messages(recorded.get((connection, "r"), b"")) if cmd == CTAPHID_CBOR]
        sent = [p for _, cmd, p in msgs if cmd == CTAPHID_CBOR and p]
        for request, reply in zip(sent, replies):
            command = request[0]
            body = decoded(request[1:]) if len(request) > 1 else None
            if command in PARSED_COMMANDS:
                parsed[(command, signature(body))].append(request)
                requests[command].append(request)
            if len(request) > 1:
                cbor_items[("request", command, signature(body))].append(request[1:])
            if reply[:1] == b"\x00" and len(reply) > 1 and command in RESPONSE_PARSERS:
                answer = decoded(reply[1:])
                if not isinstance(answer, dict):
                    continue
                parsed[(0x80 | command, signature(answer))].append(bytes([0x80 | command]) + reply[1:])
                cbor_items[("response", command, signature(answer))].append(reply[1:])
                if command in (0x01, 0x02) and isinstance(answer.get(2), bytes):
                    parsed[(AUTHENTICATOR_DATA, command, len(answer[2]) > 37)].append(bytes([AUTHENTICATOR_DATA]) + answer[2])
    for seed in pick(hid, 3)[:48]:
        write("FuzzCTAPHIDReassembler", seed)
    for seed in pick(parsed, 3)[:60]:
        write("FuzzCTAPRequests", seed)
    for seed in pick(cbor_items, 1)[:30]:
        write("FuzzCBORDecoder", seed)
    for fixture in sorted((REPO / "Fixtures" / "cbor").glob("*.json")):
        data = json.loads(fixture.read_text())
        for vector in data.get("vectors", []) + data.get("cases", []):
            for key in ("hex", "spec_hex", "python_hex"):
                if isinstance(vector.get(key), str):
                    write("FuzzCBORDecoder", bytes.fromhex(vector[key]))
    for seed in conversations(requests):
        write("FuzzAuthenticator", seed)
    keystores(record)


def keystores(record: Path) -> None:
    """Whole keystores the daemon wrote (key file, then database), and damage recipes on the seed."""
    stores = sorted((record / "keystores").glob("*/keystore.sqlite"), key=lambda p: p.stat().st_size)
    for database in stores[:4]:
        key = database.with_name("keystore.key")
        if key.exists():
            write("FuzzKeystore", b"\x00" + key.read_bytes() + database.read_bytes())
        wal = database.with_name("keystore.sqlite-wal")
        if wal.exists() and wal.stat().st_size:
            write("FuzzKeystore", b"\x03" + wal.read_bytes()[:8192])
    # SQLite header fields (magic, page size, counts, application_id at 68), then page 2 onwards.
    for offset in (0, 16, 18, 24, 28, 32, 36, 44, 56, 68, 96, 100, 4096, 4200, 8192, 8300, 12288, 16384):
        for flip in (0x01, 0x80, 0xFF):
            if flip == 0xFF and offset >= 4096:
                continue
            write("FuzzKeystore", b"\x01" + offset.to_bytes(3, "big") + bytes([flip]))
    for key in (b"", b"\x00" * 31, b"\x00" * 32, b"\xff" * 33):
        write("FuzzKeystore", b"\x02" + key)
    write("FuzzKeystore", b"\x03" + bytes.fromhex("377f0682002de218") + b"\x00" * 24)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
