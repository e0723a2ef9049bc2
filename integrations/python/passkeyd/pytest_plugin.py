"""pytest fixtures: a throw-away passkeyd on a temporary socket and data folder.

Loaded by pytest's entry points once the passkeyd package is installed; or name it with
`-p passkeyd.pytest_plugin`. passkeyd comes from `$PASSKEYD_BIN`, else PATH.

It loads passkeyd.pytest_browser too (the browser fixtures: passkeyd_authenticator,
passkeyd_page, passkeyd_driver, passkeyd_firefox, ...), by name, as pytest loads `-p` plugins:
pytest registers each plugin once under its module's name, so `-p passkeyd.pytest_browser` or a
conftest's `pytest_plugins` naming it as well is no second registration, and
`-p no:passkeyd.pytest_browser` leaves the browser fixtures out. That module imports only pytest:
Playwright and Selenium are imported by the fixtures that use them.
"""

from __future__ import annotations

import pytest

from . import Daemon

pytest_plugins = ["passkeyd.pytest_browser"]

#: Presence approved at once and built-in user verification that always succeeds: a test
#: needs no person. Override the `passkeyd_flags` fixture for others (e.g. `--uv off`).
DEFAULT_FLAGS = ("--presence", "auto", "--uv", "auto")


@pytest.fixture
def passkeyd_flags() -> tuple[str, ...]:
    """The flags `passkeyd_daemon` starts passkeyd with."""
    return DEFAULT_FLAGS


@pytest.fixture
def passkeyd_daemon(passkeyd_flags):
    """A running passkeyd of its own, stopped with SIGTERM (which must exit 0) and removed afterwards."""
    daemon = Daemon(*passkeyd_flags).start()
    try:
        yield daemon
    finally:
        code = daemon.stop()
        log = daemon.log()
        daemon.remove()
    assert code == 0, f"passkeyd exited {code} on SIGTERM:\n{log}"


@pytest.fixture
def passkeyd_device(passkeyd_daemon):
    """A python-fido2 CtapHidDevice on `passkeyd_daemon`."""
    device = passkeyd_daemon.device()
    try:
        yield device
    finally:
        device.close()
