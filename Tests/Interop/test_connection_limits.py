"""What one connection may hold (hardening finding 4): a peer that writes and never reads,
or floods broadcast INITs, is dropped once past the daemon's limits; every other
connection is served throughout, and the daemon's memory is not the peer's to grow."""

import os

import pytest

from passkeyd_hid import RawChannel, frame, init_packet

PING = 0x01
INIT = 0x06
QUEUED_REPLIES = 256
CHANNELS_PER_CONNECTION = 64


@pytest.fixture(scope="module")
def limited(daemon_factory):
    return daemon_factory("--presence", "auto", "--uv", "off")


def drain(sock):
    """Reads until the daemon closes the connection; returns how many bytes came."""
    sock.settimeout(30)
    total = 0
    while True:
        try:
            chunk = sock.recv(1 << 16)
        except ConnectionResetError:
            return total
        if not chunk:
            return total
        total += len(chunk)


def still_served(daemon):
    other = RawChannel(daemon.socket)
    try:
        cid = other.allocate()
        assert other.call(cid, PING, b"still here") == (cid, PING, b"still here")
    finally:
        other.close()


def test_a_peer_that_never_reads_is_dropped_and_others_are_served(limited):
    peer = RawChannel(limited.socket)
    cid = peer.allocate()
    big = os.urandom(7609)
    replies = 2 * QUEUED_REPLIES + 64  # far more than the kernel buffers and the daemon's queue together
    reports = b"".join(frame(cid, PING, big))
    sent = 0
    try:
        for _ in range(replies):
            # The daemon keeps reading while this peer reads nothing back…
            peer.send_raw(reports)
            sent += 1
    except (BrokenPipeError, ConnectionResetError):
        pass  # …until it drops the peer, here while the peer was still writing.
    still_served(limited)
    received = drain(peer.conn.sock)
    peer.close()
    assert received < sent * len(reports) or sent < replies, "every reply was kept for a peer that never read"
    assert received < replies * len(reports)
    still_served(limited)
    assert limited.alive()


def test_broadcast_init_floods_end_that_connection_only(limited):
    peer = RawChannel(limited.socket)
    channels = {peer.allocate() for _ in range(CHANNELS_PER_CONNECTION)}
    assert len(channels) == CHANNELS_PER_CONNECTION
    # One more is past the limit: the connection is closed, with no INIT answer.
    peer.send(init_packet(0xFFFFFFFF, INIT, os.urandom(8)))
    assert drain(peer.conn.sock) == 0
    peer.close()
    still_served(limited)
    # A fresh connection may allocate again: the flood's channels were freed.
    fresh = RawChannel(limited.socket)
    cid = fresh.allocate()
    assert fresh.call(cid, PING, b"x") == (cid, PING, b"x")
    fresh.close()


# -- how many connections (issue 40 item 5) ----------------------------------------------------

HARD_DESCRIPTORS = 256
SOFT_DESCRIPTORS = 100
RESERVED = 64  # ConnectionLimit.reserve


@pytest.fixture(params=["accept-thread", "server-channel"])
def few_descriptors(tmp_path, request):
    """A daemon started with a soft descriptor limit of 100 under a hard one of 256, through a
    wrapper that lowers them as a service manager's LimitNOFILE= would; on either accept path."""
    import stat

    import passkeyd
    from passkeyd_hid import daemon_binary

    wrapper = tmp_path / "passkeyd-few-descriptors"
    plain = "export PASSKEYD_SPEED_OFF=acceptthread\n" if request.param == "server-channel" else ""
    wrapper.write_text(f"#!/bin/sh\n{plain}ulimit -Sn {SOFT_DESCRIPTORS} && ulimit -Hn {HARD_DESCRIPTORS} && "
                       f"exec {daemon_binary()} \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    daemon = passkeyd.Daemon("--presence", "auto", "--uv", "off", binary=str(wrapper)).start()
    # NIO's server channel is the path without the accept thread, which says so.
    assert ("busy polling is off" in full_log(daemon)) == (request.param == "server-channel")
    yield daemon
    daemon.stop()
    daemon.remove()


def full_log(daemon) -> str:
    with open(daemon.log_path, "rb") as f:
        return f.read().decode("utf-8", "replace")


def served(sock_path: str) -> RawChannel | None:
    """A connection that allocated a channel and was answered; None when the daemon closed it."""
    peer = RawChannel(sock_path)
    try:
        peer.allocate()
        return peer
    except Exception:  # closed at once: no INIT answer
        peer.close()
        return None


def test_connections_past_the_cap_are_closed_at_once_and_nothing_runs_out(few_descriptors):
    import re
    import time

    daemon = few_descriptors
    log = full_log(daemon)
    capped = re.search(r".*connections capped.*", log)
    assert capped, log
    # The soft limit was raised to the hard one, and the cap leaves descriptors for the rest.
    limit = int(re.search(r"limit=(\d+)", capped.group(0)).group(1))
    assert f"descriptors={HARD_DESCRIPTORS}" in capped.group(0), capped.group(0)
    assert limit == HARD_DESCRIPTORS - RESERVED
    started = time.monotonic()
    held = []
    try:
        for _ in range(limit):
            peer = served(daemon.socket)
            assert peer is not None, f"refused with {len(held)} of {limit} open:\n{full_log(daemon)[-3000:]}"
            held.append(peer)
        # Past the cap: closed at once, unread; many of them in a burst.
        refused = [served(daemon.socket) for _ in range(150)]
        assert refused == [None] * 150
        # Those held are still served.
        for peer in held[:5] + held[-5:]:
            cid = peer.allocate()
            assert peer.call(cid, PING, b"held") == (cid, PING, b"held")
        # A place given back is a place for the next client (the daemon frees it as it closes).
        held.pop().close()
        deadline = time.monotonic() + 30
        again = None
        while again is None and time.monotonic() < deadline:
            again = served(daemon.socket)
            if again is None:
                time.sleep(0.1)
        assert again is not None, "a freed place was never given to a new connection"
        held.append(again)
    finally:
        for peer in held:
            peer.close()
    elapsed = time.monotonic() - started
    log = full_log(daemon)
    # No descriptor ran out, and the refusals cost one log line a second at most.
    assert "out of descriptors" not in log and "errno=24" not in log, log[-3000:]
    refusals = log.count("refusing connections")
    assert 1 <= refusals <= elapsed + 2, (refusals, elapsed)
    # Once the flood is gone, everyone is served as before.
    deadline = time.monotonic() + 30
    while daemon_connections_left(daemon) and time.monotonic() < deadline:
        time.sleep(0.1)
    fresh = [served(daemon.socket) for _ in range(20)]
    assert all(fresh), "the daemon did not recover its places"
    for peer in fresh:
        peer.close()
    assert daemon.alive()


def daemon_connections_left(daemon) -> bool:
    """Whether the daemon still holds more than a handful of sockets (it closes them as peers leave)."""
    pid = daemon.proc.pid
    # The wrapper exec'd passkeyd, so the pid is the daemon's.
    sockets = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            sockets += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        except FileNotFoundError:
            pass  # closed meanwhile
    return sockets > 16
