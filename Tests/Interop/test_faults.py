"""Fault tests: crashes, hostile CTAPHID traffic, and what the keystore file reveals."""

from __future__ import annotations

import hashlib
import os
import struct
import threading
from pathlib import Path

import pytest
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.hid import CTAPHID

from passkeyd_hid import REPORT_SIZE, cont_packet, frame, init_packet, vendor_call as bounded_call

# CTAPHID error codes (CTAP 2.1 §11.2.9.1.6).
ERR_INVALID_CMD = 0x01
ERR_INVALID_LEN = 0x03
ERR_INVALID_SEQ = 0x04
ERR_CHANNEL_BUSY = 0x06
ERR_INVALID_CHANNEL = 0x0B
CMD_ERROR = 0x3F
CMD_PING = 0x01
CMD_INIT = 0x06
CMD_CBOR = 0x10

#: The largest CTAPHID message with 64-byte reports: 57 + 128 * 59 (CTAP 2.1 §11.2.4).
MAX_MESSAGE = (REPORT_SIZE - 7) + 128 * (REPORT_SIZE - 5)

ES256_PARAMS = [{"type": "public-key", "alg": -7}]


# -- kill -9 during a burst of registrations ---------------------------------


def test_kill9_during_registration_burst_keeps_every_acknowledged_credential(daemon_factory):
    rp = {"id": "burst.example.net", "name": "Burst"}
    first = daemon_factory("--uv", "off")
    acknowledged: list[tuple[bytes, object, bytes]] = []  # (credential id, public key, user id)
    lock = threading.Lock()
    enough = threading.Event()

    def worker(k: int):
        try:
            dev = first.device()
            ctap = Ctap2(dev)
        except OSError:
            return
        i = 0
        while True:
            uid = os.urandom(16)
            try:
                att = ctap.make_credential(
                    os.urandom(32), rp, {"id": uid, "name": f"u{k}-{i}"}, ES256_PARAMS, options={"rk": True}
                )
            except Exception:
                return  # the daemon died under us: this request was never acknowledged
            cred = att.auth_data.credential_data
            with lock:
                acknowledged.append((cred.credential_id, cred.public_key, uid))
                if len(acknowledged) >= 12:
                    enough.set()
            i += 1

    threads = [threading.Thread(target=worker, args=(k,), daemon=True) for k in range(3)]
    for t in threads:
        t.start()
    assert enough.wait(120), f"burst never reached 12 registrations:\n{first.log()}"
    first.kill()  # SIGKILL with requests in flight on the other workers
    for t in threads:
        t.join(30)
    with lock:
        survivors = list(acknowledged)

    second = daemon_factory("--uv", "off", data_dir=first.data_dir)
    dev = second.device()
    try:
        ctap = Ctap2(dev)
        for cred_id, public_key, uid in survivors:
            cdh = os.urandom(32)
            a = ctap.get_assertion(rp["id"], cdh, [{"type": "public-key", "id": cred_id}])
            a.verify(cdh, public_key)
        cdh = os.urandom(32)
        found = {a.credential["id"]: a.user["id"] for a in ctap.get_assertions(rp["id"], cdh)}
        for cred_id, _, uid in survivors:
            assert found.get(cred_id) == uid, f"acknowledged credential {cred_id.hex()} lost"
    finally:
        dev.close()


# -- hostile traffic on one connection ---------------------------------------


@pytest.fixture(scope="module")
def shared(daemon_factory):
    return daemon_factory("--uv", "auto")


def check_working(shared, devs):
    for dev in devs:
        assert bounded_call(dev, CTAPHID.PING, b"still here") == b"still here"
        assert Ctap2(dev).get_info().versions
    assert shared.alive(), f"passkeyd died:\n{shared.log()}"


def make_resident(ctap: Ctap2, rp: dict, user: dict):
    """authenticatorMakeCredential with rk, asking for built-in UV where it is configured (CTAP 2.1 §6.1.2 step 11)."""
    options = {"rk": True}
    if ctap.info.options.get("uv"):
        options["uv"] = True
    return ctap.make_credential(os.urandom(32), rp, user, ES256_PARAMS, options=options)


def register_once(daemon, name: str):
    dev = daemon.device()
    try:
        return make_resident(Ctap2(dev), {"id": "example.com", "name": "Example"}, {"id": os.urandom(8), "name": name})
    finally:
        dev.close()


@pytest.fixture
def bystanders(shared):
    """Two ordinary host connections, open and working before the fault and checked after it."""
    devs = [shared.device(), shared.device()]
    check_working(shared, devs)
    yield devs
    try:
        check_working(shared, devs)
        register_once(shared, "after-fault")
    finally:
        for dev in devs:
            dev.close()


def expect_error(raw, cid: int, code: int):
    rcid, cmd, data = raw.receive()
    assert (rcid, cmd) == (cid, CMD_ERROR), f"expected ERROR on {cid:08x}, got cmd {cmd:#x} on {rcid:08x}: {data.hex()}"
    assert data[:1] == bytes([code]), f"expected error {code:#04x}, got {data.hex()}"


def assert_channel_works(raw, cid: int):
    msg = os.urandom(100)
    assert raw.call(cid, CMD_PING, msg) == (cid, CMD_PING, msg)


def test_garbage_gets_errors_and_the_connection_survives(shared, bystanders):
    raw = shared.raw()
    try:
        cid = raw.allocate()
        # A channel nobody allocated (CTAP 2.1 §11.2.9.1.6 ERR_INVALID_CHANNEL).
        stranger = (cid + 0x1234567) & 0x7FFFFFFF or 1
        raw.send(init_packet(stranger, CMD_CBOR, b"\x04"))
        expect_error(raw, stranger, ERR_INVALID_CHANNEL)
        # A command the device does not know.
        raw.send(init_packet(cid, 0x2F, b"junk"))
        expect_error(raw, cid, ERR_INVALID_CMD)
        # A continuation packet with no message in progress is ignored (§11.2.4).
        raw.send(cont_packet(cid, 0, os.urandom(59)))
        assert_channel_works(raw, cid)
        # CBOR that is not CBOR: a CTAP2 status, not a transport error (§8, CTAP2_ERR_INVALID_CBOR).
        assert raw.call(cid, CMD_CBOR, b"\x01" + b"\xff" * 40) == (cid, CMD_CBOR, bytes([0x12]))
        # A CTAP2 command byte that does not exist (CTAP1_ERR_INVALID_COMMAND).
        assert raw.call(cid, CMD_CBOR, b"\x7e") == (cid, CMD_CBOR, bytes([0x01]))
        assert_channel_works(raw, cid)
    finally:
        raw.close()


def test_random_noise_while_another_connection_registers(shared, bystanders):
    raw = shared.raw()
    done = threading.Event()

    def flood():
        try:
            for _ in range(50):
                raw.send_raw(os.urandom(REPORT_SIZE * 8))
                if done.is_set():
                    break
        except OSError:
            pass  # the daemon may hang up on a noisy handle; that is its right

    noise = threading.Thread(target=flood, daemon=True)
    noise.start()
    try:
        for i in range(3):
            register_once(shared, f"during-noise-{i}")
    finally:
        done.set()
        noise.join(30)
        raw.close()


def test_truncated_messages_get_resync_and_close_is_survived(shared, bystanders):
    raw = shared.raw()
    try:
        cid = raw.allocate()
        # A message announcing 200 bytes that sends only its first report, then INIT on the
        # same channel: INIT resynchronises and aborts the transaction (§11.2.9.1.3).
        raw.send(init_packet(cid, CMD_PING, os.urandom(57), bcnt=200))
        nonce = os.urandom(8)
        raw.send(init_packet(cid, CMD_INIT, nonce))
        rcid, cmd, data = raw.receive()
        assert (rcid, cmd, data[:8]) == (cid, CMD_INIT, nonce)
        assert_channel_works(raw, cid)
    finally:
        raw.close()

    # Half a report, and half a message, then hang up: the daemon must drop only that handle.
    raw = shared.raw()
    cid = raw.allocate()
    raw.send(init_packet(cid, CMD_PING, os.urandom(57), bcnt=300))
    raw.send_raw(cont_packet(cid, 0, os.urandom(59))[:30])
    raw.close()


def test_oversized_messages_are_refused(shared, bystanders):
    raw = shared.raw()
    try:
        cid = raw.allocate()
        # More than 128 continuation packets could ever carry (§11.2.4: ERR_INVALID_LEN).
        raw.send(init_packet(cid, CMD_PING, b"", bcnt=0xFFFF))
        expect_error(raw, cid, ERR_INVALID_LEN)
        assert_channel_works(raw, cid)
        # The largest message that fits is echoed intact.
        big = os.urandom(MAX_MESSAGE)
        assert raw.call(cid, CMD_PING, big) == (cid, CMD_PING, big)
        # One byte past that limit is refused before any of it is buffered.
        raw.send(init_packet(cid, CMD_PING, b"", bcnt=MAX_MESSAGE + 1))
        expect_error(raw, cid, ERR_INVALID_LEN)
        assert_channel_works(raw, cid)
    finally:
        raw.close()


def test_interleaved_channels_on_one_connection(shared, bystanders):
    raw = shared.raw()
    try:
        a = raw.allocate()
        b = raw.allocate()
        assert a != b
        # While A's three-report message is half sent, B is told the device is busy (§11.2.4).
        msg = os.urandom(150)
        packets = frame(a, CMD_PING, msg)
        raw.send(packets[0])
        raw.send(init_packet(b, CMD_PING, b"me too"))
        expect_error(raw, b, ERR_CHANNEL_BUSY)
        raw.send(*packets[1:])
        assert raw.receive() == (a, CMD_PING, msg)
        # A continuation out of sequence aborts the message with ERR_INVALID_SEQ.
        packets = frame(a, CMD_PING, msg)
        raw.send(packets[0], cont_packet(a, 5, msg[57:]))
        expect_error(raw, a, ERR_INVALID_SEQ)
        # Both channels then work, alternating.
        for _ in range(3):
            assert_channel_works(raw, a)
            assert_channel_works(raw, b)
    finally:
        raw.close()


# -- what the keystore file reveals -----------------------------------------


def test_keystore_reveals_no_rp_id_user_name_or_display_name(daemon_factory):
    d = daemon_factory("--uv", "auto")
    tag = hashlib.sha256(os.urandom(16)).hexdigest()[:12]
    rp_id = f"grep-{tag}.example.org"
    user = {"id": os.urandom(16), "name": f"user-{tag}", "displayName": f"Display {tag}"}
    dev = d.device()
    try:
        att = make_resident(Ctap2(dev), {"id": rp_id, "name": f"RP {tag}"}, user)
        cred_id = att.auth_data.credential_data.credential_id
    finally:
        dev.close()

    needles = {
        "RP ID": rp_id.encode(),
        "user name": user["name"].encode(),
        "display name": user["displayName"].encode(),
        "tag": tag.encode(),
    }

    def grep(when: str):
        files = [p for p in Path(d.data_dir).rglob("*") if p.is_file()]
        assert sum(p.stat().st_size for p in files) > 0, f"{when}: data directory is empty"
        for p in files:
            blob = p.read_bytes()
            for what, needle in needles.items():
                assert needle not in blob, f"{when}: {what} in plaintext in {p.name}"

    grep("while running")
    assert d.stop() == 0
    grep("after SIGTERM")

    # The credential really is in those files: a restart on them finds it.
    again = daemon_factory("--uv", "auto", data_dir=d.data_dir)
    dev = again.device()
    try:
        cdh = os.urandom(32)
        found = Ctap2(dev).get_assertions(rp_id, cdh)
        assert [a.credential["id"] for a in found] == [cred_id]
    finally:
        dev.close()
