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
from test_keystore_faults import ConnectedChannel

CLIENTS = 16
LOAD_SECONDS = 20  # before SIGTERM; the whole test stays well under 60 s
ES256 = [{"type": "public-key", "alg": -7}]
# Errors a host meets under contention and retries: one transaction at a time on the device
# (CTAP 2.1 §11.2.9.1.6), and one pinUvAuthToken for the device, replaced by the next client's
# (§6.5.2.1).
BUSY = {CtapError.ERR.CHANNEL_BUSY}
TOKEN_REPLACED = {CtapError.ERR.PIN_AUTH_INVALID}
ERROR, BUSY_BYTE = 0x3F, bytes([CtapError.ERR.CHANNEL_BUSY])


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
    operation = "connect"
    try:
        while not stop.is_set():
            choice = rng.random()
            if choice < 0.3 or not mine:
                operation = "register"
                user = {"id": os.urandom(16), "name": f"user{len(mine)}"}
                made = retrying(lambda: ctap.make_credential(os.urandom(32), rp, user, ES256, options={"rk": True, "uv": True}), stop)
                credential_id = made.auth_data.credential_data.credential_id
                ledger.registered(credential_id, rp["id"], made.auth_data.counter)
                mine.append(credential_id)
            elif choice < 0.7:
                operation = "sign-in"
                credential_id = rng.choice(mine)
                assertion = retrying(lambda: ctap.get_assertion(
                    rp["id"], os.urandom(32), [{"type": "public-key", "id": credential_id}]), stop)
                ledger.signed(credential_id, assertion.auth_data.counter)
            elif choice < 0.85:
                operation = "credential management"

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
                operation = "ping"
                payload = os.urandom(rng.randrange(1, 200))
                assert retrying(lambda: vendor_call(dev, CTAPHID.PING, payload), stop) == payload
    except (OSError, CtapError, AssertionError) as error:
        if not stop.is_set():
            errors.append((k, operation, repr(error)))
    finally:
        try:
            dev.close()
        except OSError:
            pass


def rp_id_hash(rp_id: str) -> bytes:
    import hashlib
    return hashlib.sha256(rp_id.encode()).digest()


def vandal(path: str, stop: threading.Event, counts: dict) -> None:
    """Garbage frames and connections dropped mid-message, one connection after another until
    `stop`. Each connection first waits for one answer of the daemon (an INIT's, or the error
    its garbage earns), so the loop goes at the daemon's pace instead of flooding it with
    connections it has not yet served."""
    rng = random.Random(99)
    while not stop.is_set():
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(10)
            sock.connect(path)
        except OSError:
            if stop.wait(0.01):
                return
            continue
        try:
            channel = ConnectedChannel(sock)
            kind = rng.randrange(3)
            if kind == 0:  # a garbage report on a channel never allocated: answered with an error
                cid = rng.getrandbits(32) | 1
                channel.send(struct.pack(">IBH", cid & 0x7FFFFFFF, 0x80 | 0x7E, 4) + os.urandom(57))
                channel.receive()
            else:
                cid = channel.allocate()
                if kind == 1:  # the first packet of a long CBOR message, then the connection dropped
                    channel.send(struct.pack(">IBH", cid, 0x80 | CTAPHID.CBOR, 7000) + os.urandom(57))
                else:  # a stray continuation packet, ignored (CTAP 2.1 §11.2.4); the channel still answers
                    channel.send(struct.pack(">IB", cid, 0x05) + os.urandom(59))
                    while (answer := channel.call(cid, CTAPHID.PING, b"after garbage"))[1:] == (ERROR, BUSY_BYTE):
                        if stop.wait(0.005):
                            break
                    else:
                        assert answer == (cid, CTAPHID.PING, b"after garbage"), answer
            counts["sent"] = counts.get("sent", 0) + 1
        except OSError:
            pass
        except AssertionError as error:
            counts.setdefault("odd", []).append(repr(error))
        finally:
            sock.close()


def test_sixteen_clients_garbage_and_sigterm_under_load(tmp_path):
    for name in ("soak", "again"):
        (tmp_path / name).mkdir()
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
        assert not errors, f"{errors[:5]}\n{daemon.log()}"
        assert ledger.operations > CLIENTS, f"only {ledger.operations} operations in {LOAD_SECONDS} s"
        assert vandalism.get("sent", 0) > 10 and not vandalism.get("odd"), vandalism
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
