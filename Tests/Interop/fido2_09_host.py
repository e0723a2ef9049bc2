"""A CTAP 2.1-PRE-era host: python-fido2 0.9 (its own venv, Tests/Interop/.venv-fido2-09),
unmodified, managing resident credentials on passkeyd with a PIN. Run by
test_fido2_09_host.py as `python fido2_09_host.py SOCKET`; prints one JSON object.

python-fido2 0.9 picks what it sends from getInfo, as the tools of that era do: credential
management as 0x0A when `credMgmt` is offered, else the prototype 0x41 on a `FIDO_2_1_PRE`
key with `credentialMgmtPreview`; a token with permissions (0x09) when `pinUvAuthToken` is
offered, else getPinToken (0x05). This file only opens the socket, with the shipped adapter
(integrations/python, on PYTHONPATH: it serves python-fido2 0.9 as it does 2.x), and records
what went out.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys

import fido2
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2, ClientPin, CredentialManagement

import passkeyd_fido2

PIN = "2468"
RP_IDS = ("pre.example.org", "older.example.org")
ES256 = [{"type": "public-key", "alg": -7}]


def status(call) -> int:
    try:
        call()
    except CtapError as e:
        return e.code
    return 0


def main(path: str) -> None:
    ctap2 = Ctap2(passkeyd_fido2.open_device(path))
    sent = []
    send_cbor = ctap2.send_cbor

    def recording(cmd, data=None, *args, **kwargs):
        sent.append((int(cmd), data.get(2) if int(cmd) == 0x06 and isinstance(data, dict) else None))
        return send_cbor(cmd, data, *args, **kwargs)

    ctap2.send_cbor = recording
    client_pin = ClientPin(ctap2)
    client_pin.set_pin(PIN)
    report = {"fido2": fido2.__version__, "versions": ctap2.info.versions, "pin_protocol": client_pin.protocol.VERSION}

    # Two discoverable credentials for each of two RPs, each made with a token for it.
    made = []
    for rp_id in RP_IDS:
        for n in range(2):
            token = client_pin.get_pin_token(PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL, rp_id)
            cdh = hashlib.sha256(os.urandom(16)).digest()
            att = ctap2.make_credential(
                cdh, {"id": rp_id, "name": rp_id}, {"id": os.urandom(8), "name": f"user{n}"}, ES256,
                options={"rk": True}, pin_uv_param=client_pin.protocol.authenticate(token, cdh),
                pin_uv_protocol=client_pin.protocol.VERSION)
            made.append(att.auth_data.credential_data.credential_id)
    # The same token again: the review draft's pinToken serves on; 2.1's was spent by the touch.
    cdh = hashlib.sha256(os.urandom(16)).digest()
    report["token_reused"] = status(lambda: ctap2.make_credential(
        cdh, {"id": RP_IDS[0], "name": "again"}, {"id": os.urandom(8), "name": "again"}, ES256,
        pin_uv_param=client_pin.protocol.authenticate(token, cdh), pin_uv_protocol=client_pin.protocol.VERSION))

    token = client_pin.get_pin_token(PIN, ClientPin.PERMISSION.CREDENTIAL_MGMT)
    credman = CredentialManagement(ctap2, client_pin.protocol, token)
    metadata = credman.get_metadata()
    report["existing"] = metadata[CredentialManagement.RESULT.EXISTING_CRED_COUNT]
    report["rps"] = sorted(rp[CredentialManagement.RESULT.RP]["id"] for rp in credman.enumerate_rps())
    creds = credman.enumerate_creds(hashlib.sha256(RP_IDS[0].encode()).digest())
    report["credentials"] = len(creds)
    victim = creds[0][CredentialManagement.RESULT.CREDENTIAL_ID]
    report["enumerated_ids_were_made"] = all(c[CredentialManagement.RESULT.CREDENTIAL_ID]["id"] in made for c in creds)
    credman.delete_cred(victim)
    report["after_delete"] = len(credman.enumerate_creds(hashlib.sha256(RP_IDS[0].encode()).digest()))
    report["deleted_gone"] = victim["id"] not in [
        c[CredentialManagement.RESULT.CREDENTIAL_ID]["id"] for c in credman.enumerate_creds(hashlib.sha256(RP_IDS[0].encode()).digest())]
    # updateUserInformation (0x07) came with CTAP 2.1 §6.8.7.
    survivor = credman.enumerate_creds(hashlib.sha256(RP_IDS[0].encode()).digest())[0]
    report["update_user"] = status(lambda: credman.update_user_info(
        survivor[CredentialManagement.RESULT.CREDENTIAL_ID], {**survivor[CredentialManagement.RESULT.USER], "name": "renamed"}))
    report["commands"] = sorted({cmd for cmd, _ in sent})
    report["pin_subcommands"] = sorted({sub for cmd, sub in sent if cmd == 0x06})
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1])
