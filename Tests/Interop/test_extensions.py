"""Large blobs, credBlob, largeBlobKey, setMinPINLength, forcePINChange and alwaysUv against the
real daemon (CTAP 2.1 §6.10, §6.11, §12.2–§12.4): libfido2 writes and python-fido2 reads, and the
other way round, so both stacks agree on what the device keeps; `passkeyctl info` shows the room."""

from __future__ import annotations

import json
import os

import pytest
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.ctap2.blob import LargeBlobs
from fido2.ctap2.config import Config
from fido2.ctap2.pin import ClientPin

from passkeyd_pin import PIN, RESULT, credman, passkeyctl
from test_libfido2_credman import error_of, ok, run


@pytest.fixture
def daemon(daemon_factory):
    d = daemon_factory("--presence", "auto", "--uv", "off")
    assert ok(run(d.socket, "setpin"), d) == {"retries": 8}
    return d


def token(dev, permissions) -> tuple[Ctap2, ClientPin, bytes]:
    ctap = Ctap2(dev)
    client_pin = ClientPin(ctap)
    return ctap, client_pin, client_pin.get_pin_token(PIN, permissions)


#: libfido2 refuses to seal a blob that deflates to fewer than 16 bytes, so the data is not tiny.
FROM_LIBFIDO2 = b"written by libfido2's fido_dev_largeblob_set, " * 3


def test_large_blobs_written_by_one_stack_are_read_by_the_other(daemon):
    key1, key2 = os.urandom(32), os.urandom(32)
    assert ok(run(daemon.socket, "largeblob-get", key1.hex()), daemon) == {"blob": None}
    assert ok(run(daemon.socket, "largeblob-set", key1.hex(), FROM_LIBFIDO2.hex()), daemon) == {"set": True}

    dev = daemon.device()
    try:
        ctap, client_pin, pin_token = token(dev, ClientPin.PERMISSION.LARGE_BLOB_WRITE)
        blobs = LargeBlobs(ctap, client_pin.protocol, pin_token)
        assert blobs.get_blob(key1) == FROM_LIBFIDO2
        blobs.put_blob(key2, b"from python-fido2")
        assert len(blobs.read_blob_array()) == 2
        # Without a token a PIN-protected device refuses the write (§6.10.2 step 4.5.1).
        with pytest.raises(CtapError) as refused:
            LargeBlobs(ctap).write_blob_array([])
        assert refused.value.code == CtapError.ERR.PUAT_REQUIRED
    finally:
        dev.close()
    assert ok(run(daemon.socket, "largeblob-get", key2.hex()), daemon) == {"blob": b"from python-fido2".hex()}
    assert ok(run(daemon.socket, "largeblob-get", key1.hex()), daemon) == {"blob": FROM_LIBFIDO2.hex()}
    # A wrong PIN writes nothing.
    assert error_of(run(daemon.socket, "largeblob-set", key1.hex(), b"x".hex(), pin="0000"))["error"] == "fido_dev_largeblob_set"
    assert ok(run(daemon.socket, "largeblob-get", key1.hex()), daemon) == {"blob": FROM_LIBFIDO2.hex()}


def test_cred_blob_and_large_blob_key_agree_across_stacks(daemon):
    blob = os.urandom(32)
    made = ok(run(daemon.socket, "credblob", "blob.example", blob.hex()), daemon)
    assert made["blob"] == blob.hex()
    assert len(bytes.fromhex(made["largeBlobKey"])) == 32
    assert made["assertionLargeBlobKey"] == made["largeBlobKey"]

    dev = daemon.device()
    try:
        cm = credman(dev)
        rp = cm.enumerate_rps()[0]
        (cred,) = cm.enumerate_creds(rp[RESULT.RP_ID_HASH])
        assert cred[RESULT.CREDENTIAL_ID]["id"].hex() == made["credentialId"]
        assert cred[RESULT.LARGE_BLOB_KEY].hex() == made["largeBlobKey"]
        ctap = Ctap2(dev)
        assertion = ctap.get_assertion("blob.example", os.urandom(32),
                                       [{"type": "public-key", "id": bytes.fromhex(made["credentialId"])}],
                                       extensions={"credBlob": True, "largeBlobKey": True})
        assert assertion.auth_data.extensions["credBlob"] == blob
        assert assertion.large_blob_key.hex() == made["largeBlobKey"]
    finally:
        dev.close()


def test_min_pin_length_force_change_and_always_uv_agree_across_stacks(daemon):
    assert ok(run(daemon.socket, "minpinlen", "5", "blob.example"), daemon) == {
        "minPinLength": 5, "forcePinChange": True, "alwaysUv": False, "maxLargeBlob": 4096}
    dev = daemon.device()
    try:
        info = Ctap2(dev).get_info()
        assert info.min_pin_length == 5 and info.force_pin_change is True
        # The PIN must change first: PIN_INVALID, as python-fido2's device suite expects.
        with pytest.raises(CtapError) as forced:
            ClientPin(Ctap2(dev)).get_pin_token(PIN, ClientPin.PERMISSION.AUTHENTICATOR_CFG)
        assert forced.value.code == CtapError.ERR.PIN_INVALID
        ClientPin(Ctap2(dev)).change_pin(PIN, "48260")
    finally:
        dev.close()
    new_pin = "48260"
    assert ok(run(daemon.socket, "alwaysuv", pin=new_pin), daemon)["alwaysUv"] is True
    dev = daemon.device()
    try:
        ctap = Ctap2(dev)
        assert ctap.get_info().options["alwaysUv"] is True
        assert ctap.get_info().options["makeCredUvNotRqd"] is False
        client_pin = ClientPin(ctap)
        config = Config(ctap, client_pin.protocol, client_pin.get_pin_token(new_pin, ClientPin.PERMISSION.AUTHENTICATOR_CFG))
        config.toggle_always_uv()
        # Shortening the minimum is refused and changes nothing (§6.11.4).
        config = Config(ctap, client_pin.protocol, client_pin.get_pin_token(new_pin, ClientPin.PERMISSION.AUTHENTICATOR_CFG))
        with pytest.raises(CtapError) as shorter:
            config.set_min_pin_length(min_pin_length=4)
        assert shorter.value.code == CtapError.ERR.PIN_POLICY_VIOLATION
    finally:
        dev.close()
    assert ok(run(daemon.socket, "forcepinchange", pin=new_pin), daemon) == {
        "minPinLength": 5, "forcePinChange": True, "alwaysUv": False, "maxLargeBlob": 4096}


def test_passkeyctl_info_shows_the_new_capabilities(daemon):
    shown = passkeyctl(daemon.socket, "info", "--json")
    assert shown.returncode == 0, shown.stderr
    info = json.loads(shown.stdout)
    assert info["maxSerializedLargeBlobArray"] == 4096
    assert info["maxCredBlobLength"] == 32
    for option in ("largeBlobs", "authnrCfg", "setMinPINLength"):
        assert info["options"][option] is True
    assert info["options"]["alwaysUv"] is False
    for extension in ("largeBlobKey", "credBlob", "minPinLength"):
        assert extension in info["extensions"]
    table = passkeyctl(daemon.socket, "info")
    assert "4096 bytes" in table.stdout and "largeBlobKey" in table.stdout
