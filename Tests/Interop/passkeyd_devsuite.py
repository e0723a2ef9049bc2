"""pytest plugin: points python-fido2's own device suite (sdist `tests/device`) at passkeyd.

Loaded with `-p passkeyd_devsuite`, so it is imported before the suite's conftest
does `from fido2.hid import list_descriptors, open_connection, open_device`:
those names are replaced here with ones that see exactly one device, passkeyd on
$PASSKEYD_DEVSUITE_SOCKET.

The suite's "disconnect the authenticator, then connect it again" step is the
REPLUG vendor command: `Printer.remove` sends it and hides the device, and
`Printer.insert` shows it again under a new path, so the suite's wait for a
device to vanish and a new one to appear completes at once.
"""

from __future__ import annotations

import os
import sys

import fido2.hid

import passkeyd_hid

SOCKET = os.environ["PASSKEYD_DEVSUITE_SOCKET"]

_state = {"generation": 0, "plugged": True}


def _current_path() -> str:
    return f"{SOCKET}#{_state['generation']}"


def list_descriptors():
    return [passkeyd_hid.descriptor(_current_path())] if _state["plugged"] else []


def get_descriptor(path):
    return passkeyd_hid.descriptor(path)


def open_connection(descriptor):
    return passkeyd_hid.open_connection(descriptor)


def open_device(path):
    return passkeyd_hid.open_device(path)


fido2.hid.list_descriptors = list_descriptors
fido2.hid.get_descriptor = get_descriptor
fido2.hid.open_connection = open_connection
fido2.hid.open_device = open_device


def _unplug():
    dev = passkeyd_hid.open_device(SOCKET)
    try:
        passkeyd_hid.replug(dev)
    finally:
        dev.close()
    _state["plugged"] = False


def _plug():
    _state["generation"] += 1
    _state["plugged"] = True


def _patch_printer() -> None:
    for name, module in list(sys.modules.items()):
        printer = getattr(module, "Printer", None)
        if name.endswith("device") and printer is not None and hasattr(module, "CliInteraction"):
            original_remove, original_insert = printer.remove, printer.insert

            def remove(self, nfc=False, _orig=original_remove):
                _orig(self, nfc)
                _unplug()

            def insert(self, nfc=False, _orig=original_insert):
                _orig(self, nfc)
                _plug()

            printer.remove, printer.insert = remove, insert
            return
    raise RuntimeError("python-fido2 device suite not collected: no Printer to patch")


def pytest_collection_finish(session):
    if session.items:
        _patch_printer()
