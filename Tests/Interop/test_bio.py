"""The simulated fingerprint reader (`passkeyd --bio`, authenticatorBioEnrollment, CTAP 2.1 §6.7)
driven by three hosts on one daemon: python-fido2's FPBioEnrollment, libfido2's fido_bio_* and
`passkeyctl bio`. Each sees what the others enrolled, renamed and removed; an enrolled finger
is the built-in UV a Fido2Client then registers with, verified by Fido2Server."""

from __future__ import annotations

import json
import threading

import pytest
from fido2.client import DefaultClientDataCollector, Fido2Client, UserInteraction
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.ctap2.bio import CaptureError, FPBioEnrollment
from fido2.ctap2.pin import ClientPin, PinProtocolV2
from fido2.server import Fido2Server

from passkeyd_pin import PIN, passkeyctl
from test_libfido2_credman import error_of, ok, run


def bio(dev) -> FPBioEnrollment:
    ctap = Ctap2(dev)
    protocol = PinProtocolV2()
    return FPBioEnrollment(ctap, protocol, ClientPin(ctap, protocol).get_pin_token(PIN, ClientPin.PERMISSION.BIO_ENROLL))


def fido2_templates(dev) -> dict[str, str | None]:
    return {tid.hex(): (name or None) for tid, name in bio(dev).enumerate_enrollments().items()}


def passkeyctl_templates(socket: str) -> dict[str, str | None]:
    result = passkeyctl(socket, "bio", "list", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    return {t["templateId"]: t["name"] for t in json.loads(result.stdout)["fingerprints"]}


def enroll(dev) -> str:
    context = bio(dev).enroll()
    template = None
    while template is None:
        template = context.capture()
    return template.hex()


class NoPin(UserInteraction):
    """A user with an enrolled finger: asked for the PIN, they have none to give."""

    def request_pin(self, permissions, rp_id):
        raise AssertionError("the client asked for the PIN although a finger is enrolled")

    def request_uv(self, permissions, rp_id):
        return True


@pytest.fixture
def daemon(daemon_factory):
    d = daemon_factory("--presence", "auto", "--uv", "auto", "--bio")
    dev = d.device()
    ClientPin(Ctap2(dev)).set_pin(PIN)
    dev.close()
    return d


def test_three_hosts_agree_on_the_enrolled_fingers(daemon):
    dev = daemon.device()
    try:
        info = Ctap2(dev).get_info()
        assert info.options["bioEnroll"] is False and info.options["uv"] is False and info.uv_modality == 2
        assert ok(run(daemon.socket, "bio-info"), daemon) == {"type": 1, "maxSamples": 4}
        assert fido2_templates(dev) == {} == passkeyctl_templates(daemon.socket)

        by_fido2 = enroll(dev)
        enrolled = ok(run(daemon.socket, "bio-enroll"), daemon)
        assert enrolled["statuses"] == [0, 0, 0, 0], "four good samples under --uv auto"
        by_libfido2 = enrolled["templateId"]
        made = passkeyctl(daemon.socket, "bio", "enroll", "--name", "Right thumb", "--json")
        assert made.returncode == 0, made.stdout + made.stderr
        by_passkeyctl = json.loads(made.stdout)["enrolled"]["templateId"]

        expected = {by_fido2: None, by_libfido2: None, by_passkeyctl: "Right thumb"}
        assert len(expected) == 3
        listed = ok(run(daemon.socket, "bio-list"), daemon)["templates"]
        assert fido2_templates(dev) == expected == passkeyctl_templates(daemon.socket) == listed

        # Renamed by each, seen by all.
        bio(dev).set_name(bytes.fromhex(by_libfido2), "Left index")
        ok(run(daemon.socket, "bio-rename", by_fido2, "Left thumb"), daemon)
        assert passkeyctl(daemon.socket, "bio", "rename", by_passkeyctl, "--name", "Right index").returncode == 0
        expected = {by_fido2: "Left thumb", by_libfido2: "Left index", by_passkeyctl: "Right index"}
        assert fido2_templates(dev) == expected == passkeyctl_templates(daemon.socket)
        assert ok(run(daemon.socket, "bio-list"), daemon)["templates"] == expected

        # Removed by each; a template nobody enrolled is refused with CTAP2_ERR_INVALID_OPTION.
        with pytest.raises(CtapError) as refused:
            bio(dev).remove_enrollment(b"\x00\x01")
        assert refused.value.code == CtapError.ERR.INVALID_OPTION
        missing = passkeyctl(daemon.socket, "bio", "remove", "0001")
        assert missing.returncode != 0 and "nothing was removed" in (missing.stdout + missing.stderr)
        assert error_of(run(daemon.socket, "bio-remove", "0001"))["error"] == "fido_bio_dev_enroll_remove"
        bio(dev).remove_enrollment(bytes.fromhex(by_passkeyctl))
        ok(run(daemon.socket, "bio-remove", by_fido2), daemon)
        assert passkeyctl(daemon.socket, "bio", "remove", by_libfido2).returncode == 0
        assert fido2_templates(dev) == {} == passkeyctl_templates(daemon.socket)
        assert Ctap2(dev).get_info().options["uv"] is False
    finally:
        dev.close()


def test_an_enrolled_finger_is_the_built_in_uv(daemon):
    dev = daemon.device()
    try:
        enroll(dev)
        assert Ctap2(dev).get_info().options["uv"] is True
        server = Fido2Server({"id": "bio.example.org", "name": "Bio"})
        options, state = server.register_begin({"id": b"finger", "name": "finger"}, user_verification="required")
        client = Fido2Client(dev, client_data_collector=DefaultClientDataCollector("https://bio.example.org"),
                             user_interaction=NoPin())
        result = client.make_credential(options.public_key)
        auth_data = server.register_complete(state, result)
        assert auth_data.is_user_verified()
    finally:
        dev.close()


def test_samples_follow_the_prompt(daemon_factory):
    """Under --uv prompt each sample waits for `passkeyctl approve` (good) or `deny` (poor)."""
    d = daemon_factory("--presence", "auto", "--uv", "prompt", "--bio")
    dev = d.device()
    try:
        ClientPin(Ctap2(dev)).set_pin(PIN)
        enrollment = bio(dev)
        answers = iter(["approve", "deny", "approve", "approve", "approve"])
        stop = threading.Event()

        def answer():
            answered = None
            for word in answers:
                while not stop.is_set():
                    prompt = json.loads(passkeyctl(d.socket, "status", "--json", pin=None).stdout).get("promptId")
                    if prompt is not None and prompt != answered:
                        answered = prompt
                        break
                    stop.wait(0.05)
                if stop.is_set():
                    return
                assert passkeyctl(d.socket, word, pin=None).returncode == 0

        thread = threading.Thread(target=answer)
        thread.start()
        try:
            context = enrollment.enroll()
            statuses = []
            template = None
            while template is None:
                try:
                    template = context.capture()
                    statuses.append(0)
                except CaptureError as e:
                    statuses.append(e.code)
        finally:
            stop.set()
            thread.join(timeout=60)
        assert statuses == [0, FPBioEnrollment.FEEDBACK.FP_POOR_QUALITY, 0, 0, 0]
        assert fido2_templates(dev) == {template.hex(): None}
    finally:
        dev.close()
