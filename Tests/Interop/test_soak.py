"""A bounded soak (issue 33): 16 clients mixing registrations, sign-ins, credential management
and pings against one real passkeyd, while another loop sends garbage frames and drops
connections in the middle of messages; then SIGTERM while all of it runs.

What must hold: every sign-in's counter is above the last one seen for its credential; the
daemon exits 0 on SIGTERM under load; after a restart every credential whose registration was
acknowledged is there, and its counter is above every count signed before.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import struct
import threading
import time

from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.ctap2.credman import CredentialManagement
from fido2.ctap2.pin import ClientPin, PinProtocolV2
from fido2.hid import CTAPHID

from passkeyd_hid import Daemon, vendor_call

CLIENTS = 16
LOAD_SECONDS = 20  # before SIGTERM; the whole test stays well under 60 s
ES256 = [{"type": "public-key", "alg": -7}]
# Errors a host meets under contention and retries: one transaction at a time on the device
# (CTAP 2.1 §11.2.9.1.6), and one pinUvAuthToken for the device, replaced by the next client's
# (§6.5.2.1).
BUSY = {CtapError.ERR.CHANNEL_BUSY}
TOKEN_REPLACED = {CtapError.ERR.PIN_AUTH_INVALID}


class Ledger:
    """What the daemon acknowledged: credential IDs per RP, and the highest count each signed."""

    def __init__(self):
        self.lock = threading.Lock()
        self.credentials: dict[bytes, str] = {}
        self.counts: dict[bytes, int] = {}
        self.violations: list[str] = []
        self.operations = 0

    def registered(self, credential_id: bytes, rp_id: str, count: int) -> None:
        with self.lock:
            self.credentials[credential_id] = rp_id
            self.counts[credential_id] = count
            self.operations += 1

    def signed(self, credential_id: bytes, count: int) -> None:
        with self.lock:
            last = self.counts.get(credential_id, -1)
            if count <= last:
                self.violations.append(f"{credential_id.hex()[:16]}: counter {count} after {last}")
            self.counts[credential_id] = max(last, count)
            self.operations += 1


def retrying(call, stop: threading.Event, also: set = frozenset()):
    """`call()`, sent again while the device answers busy (as hosts do)."""
    while True:
        try:
            return call()
        except CtapError as error:
            if error.code not in BUSY | set(also) or stop.is_set():
                raise
        time.sleep(0.005)


def client(daemon: Daemon, k: int, ledger: Ledger, stop: threading.Event, errors: list) -> None:
    rng = random.Random(k)
    rp = {"id": f"soak{k}.example", "name": f"Soak {k}"}
    mine: list[bytes] = []
    try:
        dev = daemon.device()
    except OSError as error:
        errors.append((k, error))
        return
    ctap = Ctap2(dev)
    try:
        while not stop.is_set():
            choice = rng.random()
            if choice < 0.3 or not mine:
                user = {"id": os.urandom(16), "name": f"user{len(mine)}"}
                made = retrying(lambda: ctap.make_credential(os.urandom(32), rp, user, ES256, options={"rk": True}), stop)
                credential_id = made.auth_data.credential_data.credential_id
                ledger.registered(credential_id, rp["id"], made.auth_data.counter)
                mine.append(credential_id)
            elif choice < 0.7:
                credential_id = rng.choice(mine)
                assertion = retrying(lambda: ctap.get_assertion(
                    rp["id"], os.urandom(32), [{"type": "public-key", "id": credential_id}]), stop)
                ledger.signed(credential_id, assertion.auth_data.counter)
            elif choice < 0.85:
                def manage():
                    protocol = PinProtocolV2()
                    token = ClientPin(ctap, protocol).get_uv_token(ClientPin.PERMISSION.CREDENTIAL_MGMT)
                    management = CredentialManagement(ctap, protocol, token)
                    return management.get_metadata(), management.enumerate_creds(rp_id_hash(rp["id"]))
                metadata, listed = retrying(manage, stop, also=TOKEN_REPLACED)
                assert metadata[CredentialManagement.RESULT.EXISTING_CRED_COUNT] >= len(mine)
                listed_ids = {c[CredentialManagement.RESULT.CREDENTIAL_ID]["id"] for c in listed}
                assert set(mine) <= listed_ids, "credential management lists every credential registered"
            else:
                payload = os.urandom(rng.randrange(1, 200))
                assert retrying(lambda: vendor_call(dev, CTAPHID.PING, payload), stop) == payload
    except (OSError, CtapError, AssertionError) as error:
        if not stop.is_set():
            errors.append((k, repr(error)))
    finally:
        try:
            dev.close()
        except OSError:
            pass


def rp_id_hash(rp_id: str) -> bytes:
    import hashlib
    return hashlib.sha256(rp_id.encode()).digest()


def vandal(path: str, stop: threading.Event, counts: dict) -> None:
    """Garbage frames and connections dropped mid-message, as fast as it can, until `stop`."""
    rng = random.Random(99)
    while not stop.is_set():
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(5)
            sock.connect(path)
        except OSError:
            continue
        try:
            kind = rng.randrange(4)
            if kind == 0:  # random reports
                sock.sendall(os.urandom(64 * rng.randrange(1, 5)))
            elif kind == 1:  # an INIT packet announcing a long message, then nothing more
                cid = rng.getrandbits(32) or 1
                sock.sendall(struct.pack(">IBH", cid, 0x80 | CTAPHID.CBOR, 7000) + os.urandom(57))
            elif kind == 2:  # half a report
                sock.sendall(os.urandom(rng.randrange(1, 64)))
            else:  # a broadcast INIT cut short, the continuation never sent
                sock.sendall(struct.pack(">IBH", 0xFFFFFFFF, 0x80 | CTAPHID.INIT, 80) + os.urandom(57))
            counts["sent"] = counts.get("sent", 0) + 1
        except OSError:
            pass
        finally:
            sock.close()


def test_sixteen_clients_garbage_and_sigterm_under_load(tmp_path):
    daemon = Daemon("--presence", "auto", "--uv", "auto", workdir=str(tmp_path / "soak")).start()
    ledger = Ledger()
    stop = threading.Event()
    errors: list = []
    vandalism: dict = {}
    threads = [threading.Thread(target=client, args=(daemon, k, ledger, stop, errors), daemon=True) for k in range(CLIENTS)]
    threads.append(threading.Thread(target=vandal, args=(daemon.socket, stop, vandalism), daemon=True))
    for t in threads:
        t.start()
    try:
        # Load until the deadline, checking the clients are really working while it runs.
        deadline = time.monotonic() + LOAD_SECONDS
        while time.monotonic() < deadline and not errors:
            time.sleep(0.2)
        assert not errors, errors[:5]
        assert ledger.operations > CLIENTS, f"only {ledger.operations} operations in {LOAD_SECONDS} s"
        assert vandalism.get("sent", 0) > 10
        # SIGTERM while all of it still runs.
        daemon.proc.send_signal(signal.SIGTERM)
        code = daemon.proc.wait(30)
    finally:
        stop.set()
        for t in threads:
            t.join(30)
        if daemon.alive():
            daemon.kill()
    assert code == 0, f"passkeyd exited {code} on SIGTERM under load:\n{daemon.log()}"
    assert not ledger.violations, ledger.violations[:5]

    with ledger.lock:
        credentials = dict(ledger.credentials)
        counts = dict(ledger.counts)
    again = Daemon("--presence", "auto", "--uv", "auto", data_dir=daemon.data_dir, workdir=str(tmp_path / "again")).start()
    try:
        dev = again.device()
        try:
            ctap = Ctap2(dev)
            for credential_id, rp_id in credentials.items():
                assertion = ctap.get_assertion(rp_id, os.urandom(32), [{"type": "public-key", "id": credential_id}])
                assert assertion.auth_data.counter > counts[credential_id], "a counter went back across the restart"
        finally:
            dev.close()
    finally:
        assert again.stop() == 0
    daemon.remove()
    again.remove()
