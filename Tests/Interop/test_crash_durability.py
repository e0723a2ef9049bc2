"""kill -9 of the daemon amid traffic: what a relying party saw stays true after a restart.

Signature counters are leased (docs/benchmarks.md, "Why the design is as it is"): counts
come from memory below a durable mark, so an assertion writes nothing, and a restart
resumes above the mark. Registrations share flushes across connections (group commit),
and each answer leaves only after the flush that covers it. Both are checked the only
way a crash can check them: SIGKILL mid-traffic, restart on the same data directory.
"""

from __future__ import annotations

import os
import threading
import time

from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2

from passkeyd_hid import Daemon
from test_keystore_refusal import fresh

RP = {"id": "crash.example", "name": "Crash"}
ES256 = [{"type": "public-key", "alg": -7}]
FLAGS = ("--presence", "auto", "--uv", "off")


def retrying(call):
    """One device serves every channel one transaction at a time (CTAP 2.1 §11.2.9): a
    client that finds it busy tries again, as a platform does."""
    while True:
        try:
            return call()
        except CtapError as error:
            if error.code != CtapError.ERR.CHANNEL_BUSY:
                raise
            time.sleep(0.002)


def test_signature_counters_never_go_back_across_sigkill(tmp_path):
    data = str(tmp_path / "data")
    daemon = Daemon(*FLAGS, data_dir=data, workdir=fresh(tmp_path, "run0")).start()
    dev = daemon.device()
    ctap = Ctap2(dev)
    resident = ctap.make_credential(os.urandom(32), RP, {"id": b"alice", "name": "alice"}, ES256, options={"rk": True})
    resident_id = resident.auth_data.credential_data.credential_id
    wrapped = ctap.make_credential(os.urandom(32), RP, {"id": b"bob", "name": "bob"}, ES256)
    wrapped_id = wrapped.auth_data.credential_data.credential_id
    dev.close()

    # What the RP has seen for each credential: the highest counter so far.
    seen = {resident_id: 0, wrapped_id: 0}
    for cycle in range(3):
        dev = daemon.device()
        ctap = Ctap2(dev)
        stop = threading.Event()
        errors: list[BaseException] = []

        def sign():
            try:
                while not stop.is_set():
                    for credential_id in (resident_id, wrapped_id):
                        assertion = ctap.get_assertion(
                            RP["id"], os.urandom(32), allow_list=[{"type": "public-key", "id": credential_id}])
                        count = assertion.auth_data.counter
                        assert count > seen[credential_id], f"counter {count} after {seen[credential_id]} (cycle {cycle})"
                        seen[credential_id] = count
            except BaseException as error:  # the kill ends the connection; anything before it is a failure
                if not stop.is_set():
                    errors.append(error)

        start = dict(seen)
        signer = threading.Thread(target=sign)
        signer.start()
        # Enough assertions that the kill lands inside a lease, not at its start.
        deadline = time.monotonic() + 60
        while any(seen[c] < start[c] + 40 for c in seen) and time.monotonic() < deadline and not errors:
            time.sleep(0.01)
        stop.set()
        daemon.kill()
        signer.join(30)
        dev.close()
        assert not errors, errors
        before = dict(seen)
        daemon = Daemon(*FLAGS, data_dir=data, workdir=fresh(tmp_path, f"run{cycle + 1}")).start()
        dev = daemon.device()
        ctap = Ctap2(dev)
        for credential_id in (resident_id, wrapped_id):
            assertion = ctap.get_assertion(RP["id"], os.urandom(32), allow_list=[{"type": "public-key", "id": credential_id}])
            assert assertion.auth_data.counter > before[credential_id], \
                f"after SIGKILL the counter went from {before[credential_id]} to {assertion.auth_data.counter}"
            seen[credential_id] = assertion.auth_data.counter
        dev.close()
    assert daemon.stop() == 0


def test_every_acknowledged_registration_survives_sigkill(tmp_path):
    data = str(tmp_path / "data")
    daemon = Daemon(*FLAGS, data_dir=data, workdir=fresh(tmp_path, "run0")).start()
    acknowledged: list[tuple[str, bytes]] = []
    lock = threading.Lock()
    stop = threading.Event()
    errors: list[BaseException] = []

    ready = threading.Semaphore(0)

    def register(client: int):
        dev = daemon.device()
        try:
            ctap = Ctap2(dev)
            ready.release()
            n = 0
            while not stop.is_set():
                n += 1
                rp = {"id": f"c{client}.crash.example", "name": "Crash"}
                name = f"user{n}"
                att = retrying(lambda: ctap.make_credential(
                    os.urandom(32), rp, {"id": name.encode(), "name": name}, ES256, options={"rk": True}))
                # The answer is the acknowledgement: from here the RP holds this credential.
                with lock:
                    acknowledged.append((rp["id"], att.auth_data.credential_data.credential_id))
        except BaseException as error:
            if not stop.is_set():
                errors.append(error)
        finally:
            dev.close()

    # Four connections at once: their registrations share flushes.
    clients = [threading.Thread(target=register, args=(c,)) for c in range(4)]
    for t in clients:
        t.start()
    # Every client is connected before the kill can come: the registrations of all four overlap.
    for _ in clients:
        assert ready.acquire(timeout=30) or errors, "a client did not connect in 30 s"
    deadline = time.monotonic() + 120
    # More than a fold of the record log (1 024 registrations, docs/keystore.md): the kill finds
    # some registrations committed into SQLite and the rest only in the log.
    while len(acknowledged) < 1300 and time.monotonic() < deadline and not errors:
        time.sleep(0.01)
    stop.set()
    daemon.kill()
    for t in clients:
        t.join(30)
    assert not errors, errors
    assert len(acknowledged) >= 1300, f"only {len(acknowledged)} registrations in 120 s"

    again = Daemon(*FLAGS, data_dir=data, workdir=fresh(tmp_path, "run1")).start()
    dev = again.device()
    try:
        ctap = Ctap2(dev)
        for rp_id in sorted({rp_id for rp_id, _ in acknowledged}):
            first = ctap.get_assertion(rp_id, os.urandom(32))
            found = {first.credential["id"]}
            for _ in range((first.number_of_credentials or 1) - 1):
                found.add(ctap.get_next_assertion().credential["id"])
            missing = [cid for rp, cid in acknowledged if rp == rp_id and cid not in found]
            assert not missing, f"{len(missing)} acknowledged registrations at {rp_id} are gone after SIGKILL"
    finally:
        dev.close()
    assert again.stop() == 0
