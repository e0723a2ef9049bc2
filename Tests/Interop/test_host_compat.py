"""Compatibility with host stacks other than python-fido2's happy path: what hardware keys
do that hosts rely on (CTAPHID INIT adoption, no CHANNEL_BUSY left over after an abort, a
request waiting while the key computes), and credentialMgmtPreview for a CTAP 2.1-PRE
platform that only has getPinToken."""

from __future__ import annotations

import logging
import os
import struct
import threading

import pytest
from fido2 import cbor
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.ctap2.pin import ClientPin, PinProtocolV1, PinProtocolV2

from passkeyd_hid import frame, init_packet

CMD_PING, CMD_INIT, CMD_CBOR, CMD_ERROR = 0x01, 0x06, 0x10, 0x3F
ERR_INVALID_CHANNEL = 0x0B
GET_INFO = b"\x04"


@pytest.fixture(scope="module")
def shared(daemon_factory):
    return daemon_factory("--presence", "auto", "--uv", "off")


def init_on(raw, cid: int) -> tuple[int, int, bytes]:
    nonce = os.urandom(8)
    raw.send(init_packet(cid, CMD_INIT, nonce))
    rcid, cmd, data = raw.receive()
    if cmd == CMD_INIT:
        assert data[:8] == nonce
    return rcid, cmd, data


def test_init_on_a_channel_nobody_allocated_adopts_it(shared):
    raw, other = shared.raw(), shared.raw()
    try:
        cid = 0x0A0B0C0D
        rcid, cmd, data = init_on(raw, cid)
        # §11.2.9.1.3 INIT response: answered on that channel, which it keeps.
        assert (rcid, cmd) == (cid, CMD_INIT)
        assert struct.unpack_from(">I", data, 8)[0] == cid
        assert raw.call(cid, CMD_PING, b"hello") == (cid, CMD_PING, b"hello")
        reply = raw.call(cid, CMD_CBOR, GET_INFO)
        assert reply[:2] == (cid, CMD_CBOR) and reply[2][:1] == b"\x00"
        assert "FIDO_2_1" in cbor.decode(reply[2][1:])[1]
        # Another connection's channel stays refused, INIT included.
        rcid, cmd, data = init_on(other, cid)
        assert (rcid, cmd, data[:1]) == (cid, CMD_ERROR, bytes([ERR_INVALID_CHANNEL]))
    finally:
        raw.close()
        other.close()


def test_an_unfinished_message_then_init_elsewhere_leaves_the_device_free(shared):
    raw = shared.raw()
    try:
        a, b = raw.allocate(), raw.allocate()
        # A host starts a three-report message on A and dies; another INITs B.
        raw.send(frame(a, CMD_PING, os.urandom(150))[0])
        assert init_on(raw, b)[:2] == (b, CMD_INIT)
        # B's next transaction runs at once: no CHANNEL_BUSY left over from A.
        reply = raw.call(b, CMD_CBOR, GET_INFO)
        assert reply[:2] == (b, CMD_CBOR) and reply[2][:1] == b"\x00"
    finally:
        raw.close()


def test_init_during_a_running_transaction_frees_the_device_at_once(daemon_factory):
    prompting = daemon_factory("--presence", "prompt", "--uv", "off")
    raw = prompting.raw()
    try:
        cid = raw.allocate()
        request = {1: os.urandom(32), 2: {"id": "busy.example.net"}, 3: {"id": b"u"}, 4: [{"type": "public-key", "alg": -7}]}
        # makeCredential waits for a touch nobody gives; the host resynchronises the channel.
        raw.send(*frame(cid, CMD_CBOR, b"\x01" + cbor.encode(request)))
        assert init_on(raw, cid)[:2] == (cid, CMD_INIT)
        reply = raw.call(cid, CMD_CBOR, GET_INFO)
        assert reply[:2] == (cid, CMD_CBOR) and reply[2][:1] == b"\x00"
    finally:
        raw.close()


@pytest.mark.parametrize("protocol", [PinProtocolV1, PinProtocolV2], ids=["pinUvAuthProtocol1", "pinUvAuthProtocol2"])
def test_credential_management_preview_takes_a_get_pin_token_token(daemon_factory, protocol):
    d = daemon_factory("--presence", "auto", "--uv", "off")
    dev = d.device()
    try:
        ctap2 = Ctap2(dev)
        client_pin = ClientPin(ctap2, protocol())
        client_pin.set_pin("4826")
        token = client_pin.get_pin_token("4826")  # getPinToken (0x05): the only token a 2.1-PRE platform has
        metadata = {1: 0x01, 3: protocol.VERSION, 4: protocol().authenticate(token, b"\x01")}
        # CTAP 2.1 §6.8 (0x0A) still needs the cm permission.
        with pytest.raises(CtapError) as err:
            ctap2.send_cbor(0x0A, metadata)
        assert err.value.code == CtapError.ERR.PIN_AUTH_INVALID
        answer = ctap2.send_cbor(0x41, metadata)
        assert answer[1] == 0 and answer[2] > 0
    finally:
        dev.close()


def test_hosts_at_once_are_served_in_turn_never_told_busy(shared):
    """Four python-fido2 hosts registering and signing in at once. A hardware key reads a
    host's request once it has computed the last one, so no host meets CHANNEL_BUSY, which
    python-fido2 answers by sleeping 100 ms and logging a warning (fido2.hid)."""
    busy: list[str] = []

    class Busy(logging.Handler):
        def emit(self, record):
            if "busy" in record.getMessage():
                busy.append(record.getMessage())

    handler = Busy(level=logging.WARNING)
    logging.getLogger("fido2.hid").addHandler(handler)
    errors: list[BaseException] = []

    def host(number: int):
        dev = shared.device()
        try:
            ctap = Ctap2(dev)
            for i in range(25):
                rp = {"id": f"host{number}.example.net", "name": "host"}
                user = {"id": bytes([number, i]), "name": f"user{i}"}
                ctap.make_credential(os.urandom(32), rp, user, [{"type": "public-key", "alg": -7}], options={"rk": True})
                # numberOfCredentials is left out when it would be 1 (CTAP 2.1 §6.2.2).
                assert (ctap.get_assertion(rp["id"], os.urandom(32)).number_of_credentials or 1) == i + 1
        except BaseException as error:
            errors.append(error)
        finally:
            dev.close()

    try:
        hosts = [threading.Thread(target=host, args=(n,)) for n in range(4)]
        for thread in hosts:
            thread.start()
        for thread in hosts:
            thread.join(120)
    finally:
        logging.getLogger("fido2.hid").removeHandler(handler)
    assert errors == []
    assert busy == []
