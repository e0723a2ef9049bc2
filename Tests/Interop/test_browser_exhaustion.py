"""Issue 40 item 5, as the review reproduced it: one tab starts 1 100 conditional get()s. That once
gave each request a task in the native host holding its own daemon connection through the wait,
exhausted passkeyd's 1 024 descriptors, and made every other client fail while the daemon logged
EMFILE ~96 times a second. Now the host caps what one frame, site and browser keep pending, holds
no daemon connection while a request waits for the person, and passkeyd caps its connections
below its (raised) descriptor limit: meanwhile another tab and python-fido2 over the socket
register and sign in, and once the tab closes everything is as before.

Headless Chromium with the extension and the host (browser_flows.Session), a real passkeyd."""

from __future__ import annotations

import os

import pytest
from fido2.server import Fido2Server

from browser_driver import chromium_path, poll
from browser_flows import ALGORITHMS, RelyingParty, Session, assert_registered, assert_signed_in, new_name, register, sign_in
from conftest import make_client

pytestmark = pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed (make deps)")

FLOOD = 1100

# The attacking page: 1 100 conditional requests at once, each settled outcome counted by name.
START_FLOOD = f"""(() => {{
window.flood = {{settled: 0, names: {{}}}};
for (let i = 0; i < {FLOOD}; i++) {{
  navigator.credentials.get({{mediation: "conditional", publicKey: {{
    challenge: crypto.getRandomValues(new Uint8Array(32)), rpId: location.hostname}}}})
    .then(() => "resolved", (e) => e.name)
    .then((name) => {{ flood.settled++; flood.names[name] = (flood.names[name] || 0) + 1; }});
}}
return true;
}})()"""


def daemon_sockets(daemon) -> int:
    pid = daemon.proc.pid
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            count += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        except FileNotFoundError:
            pass  # closed meanwhile
    return count


def fido2_round_trip(daemon, name: str) -> None:
    """python-fido2 over the socket, beside the browser: a registration and a sign-in, verified."""
    rp_id = f"{name}.example.net"
    server = Fido2Server({"id": rp_id, "name": name})
    device = daemon.device()
    try:
        client = make_client(device, f"https://{rp_id}")
        options, state = server.register_begin(
            {"id": os.urandom(16), "name": f"{name}@example.net", "displayName": name},
            resident_key_requirement="required")
        credential = server.register_complete(state, client.make_credential(options.public_key)).credential_data
        request, state = server.authenticate_begin([credential])
        assertion = client.get_assertion(request.public_key).get_response(0)
        server.authenticate_complete(state, [credential], assertion)
    finally:
        device.close()


def test_a_flooding_tab_takes_nobody_else_down(daemon_factory):
    daemon = daemon_factory("--presence", "auto", "--uv", "auto")
    session = Session("chromium", daemon.socket)
    attacker, site = RelyingParty().start(), RelyingParty().start()
    try:
        before = daemon_sockets(daemon)
        flood = session.page(attacker)
        flood.evaluate(START_FLOOD)
        # All but the few the host keeps pending for one frame are answered at once (refused, or
        # aborted by a newer request), not queued: nothing piles up anywhere.
        settled = poll(lambda: (n := flood.evaluate("flood.settled")) >= FLOOD - 4 and n, 180,
                       "the flood's requests were answered")
        names = flood.evaluate("flood.names")
        assert settled <= FLOOD and "resolved" not in names, names
        assert set(names) <= {"NotAllowedError", "AbortError"}, names

        # Meanwhile: another tab registers and signs in, and python-fido2 over the socket too.
        page = session.page(site)
        name = new_name("meanwhile")
        assert_registered(register(page, name), site, name, ALGORITHMS["ES256"])
        assert_signed_in(sign_in(page, {"allow": [name]}), site, name)
        fido2_round_trip(daemon, "beside-the-flood")
        # The waiting requests hold no connection: passkeyd has no more than the host's pool.
        assert daemon_sockets(daemon) <= before + 1 + 4, (daemon_sockets(daemon), before)

        # The tab closes: its pending requests end, and everything is as before.
        flood.close()
        again = new_name("after")
        assert_registered(register(page, again), site, again, ALGORITHMS["ES256"])
        assert_signed_in(sign_in(page, {"allow": [again]}), site, again)
        fido2_round_trip(daemon, "after-the-flood")
        with open(daemon.log_path, "rb") as f:
            log = f.read().decode("utf-8", "replace")
        assert "errno=24" not in log and "out of descriptors" not in log and "EMFILE" not in log, log[-3000:]
        assert "refusing connections" not in log, "the host alone never came near the daemon's cap"
    finally:
        attacker.stop()
        site.stop()
        session.close()
    assert daemon.alive()
