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
