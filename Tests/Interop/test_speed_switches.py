"""passkeyd with each speed mechanism off (PASSKEYD_SPEED_OFF, docs/architecture.md "Speed
mechanisms"): python-fido2 registers and signs in as with every mechanism on, and the daemon
says in its log which mechanisms it runs without."""

from __future__ import annotations

import os
import stat

import pytest
from fido2.server import Fido2Server

from conftest import make_client
from passkeyd_hid import Daemon, daemon_binary

MECHANISMS = ["recordlog", "groupcommit", "executor", "acceptthread"]


class SwitchedDaemon(Daemon):
    """The daemon started through a launcher that sets PASSKEYD_SPEED_OFF: the fixture's own
    start passes no PASSKEYD_* variable through."""

    def __init__(self, off: str):
        super().__init__("--presence", "auto", "--uv", "auto")
        launcher = os.path.join(self.workdir, "passkeyd-speed-off")
        with open(launcher, "w") as f:
            f.write(f'#!/bin/sh\nPASSKEYD_SPEED_OFF={off} exec "{daemon_binary()}" "$@"\n')
        os.chmod(launcher, stat.S_IRWXU)
        self.binary = launcher


@pytest.fixture(scope="module")
def switched():
    started: list[Daemon] = []

    def start(off: str) -> Daemon:
        d = SwitchedDaemon(off).start()
        started.append(d)
        return d

    yield start
    codes = [d.stop() for d in started]
    for d in started:
        d.remove()
    assert codes == [0] * len(started), "each daemon exits 0 on SIGTERM"


@pytest.mark.parametrize("off", MECHANISMS)
def test_registration_and_sign_in_with_a_speed_mechanism_off(switched, off):
    daemon = switched(off)
    rp_id = f"{off}.example.net"
    server = Fido2Server({"id": rp_id, "name": off})
    dev = daemon.device()
    try:
        client = make_client(dev, origin=f"https://{rp_id}")
        usr = {"id": os.urandom(16), "name": f"{off}@example.net", "displayName": off}
        options, state = server.register_begin(usr, resident_key_requirement="required")
        cred = server.register_complete(state, client.make_credential(options.public_key)).credential_data

        request, state = server.authenticate_begin()
        assertion = client.get_assertion(request.public_key).get_response(0)
        assert server.authenticate_complete(state, [cred], assertion) == cred
        assert assertion.response.user_handle == usr["id"]
    finally:
        dev.close()
    log = daemon.log()
    assert f"speed mechanisms off: {off}" in log
    # Without the accept thread, NIO's server channel accepts, and nothing busy-polls.
    assert ("busy polling is off" in log) == (off == "acceptthread")
