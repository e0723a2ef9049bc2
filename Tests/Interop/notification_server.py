"""A stand-in for a desktop's notification service (Desktop Notifications Specification 1.2:
org.freedesktop.Notifications on the session bus), for tests: it logs every call and answers a
notification that offers actions the way a person would, by invoking one of them.

Speaks the D-Bus wire protocol itself over the bus's Unix socket (D-Bus Specification: "Message
Protocol", "Authentication Protocol"), with nothing but the Python standard library: Debian's
python3-dbus is not a dependency of the tests.

    python3 notification_server.py --address unix:path=... --log calls.jsonl --answer-file answer

The answer file holds what the "person" does with the next notification that offers actions:
`allow` or `deny` (invoke that action), `dismiss` (close it without an action), or `none`
(leave it on screen until the sender closes it). Read at each Notify, so one server serves a
whole test module. Prints "ready" once it owns the name.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import struct
import sys
import threading
import time

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"

METHOD_CALL, METHOD_RETURN, ERROR, SIGNAL = 1, 2, 3, 4
ALIGN = {"y": 1, "b": 4, "n": 2, "q": 2, "i": 4, "u": 4, "x": 8, "t": 8, "d": 8, "s": 4, "o": 4, "g": 1,
         "a": 4, "(": 8, "{": 8, "v": 1, "h": 4}
FIXED = {"y": "B", "b": "I", "n": "h", "q": "H", "i": "i", "u": "I", "x": "q", "t": "Q", "d": "d", "h": "I"}


def split_types(signature: str) -> list[str]:
    """A signature's complete types, in order."""
    types, i = [], 0
    while i < len(signature):
        end = _type_end(signature, i)
        types.append(signature[i:end])
        i = end
    return types


def _type_end(sig: str, i: int) -> int:
    c = sig[i]
    if c == "a":
        return _type_end(sig, i + 1)
    if c in "({":
        close, depth, j = ")" if c == "(" else "}", 0, i
        while True:
            if sig[j] in "({":
                depth += 1
            elif sig[j] in ")}":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
    return i + 1


class Writer:
    def __init__(self) -> None:
        self.buf = bytearray()

    def pad(self, n: int) -> None:
        self.buf += b"\0" * (-len(self.buf) % n)

    def write(self, t: str, v) -> None:
        c = t[0]
        self.pad(ALIGN[c])
        if c in FIXED:
            self.buf += struct.pack("<" + FIXED[c], v)
        elif c in "so":
            data = v.encode()
            self.buf += struct.pack("<I", len(data)) + data + b"\0"
        elif c == "g":
            data = v.encode()
            self.buf += bytes([len(data)]) + data + b"\0"
        elif c == "v":
            sig, value = v
            self.write("g", sig)
            self.write(sig, value)
        elif c == "a":
            element = t[1:]
            at = len(self.buf)
            self.buf += b"\0\0\0\0"
            self.pad(ALIGN[element[0]])
            start = len(self.buf)
            items = v.items() if element[0] == "{" else v
            for item in items:
                self.write(element, item)
            struct.pack_into("<I", self.buf, at, len(self.buf) - start)
        elif c in "({":
            for inner, value in zip(split_types(t[1:-1]), v):
                self.write(inner, value)
        else:
            raise ValueError(f"cannot write type {t}")


class Reader:
    def __init__(self, data: bytes, offset: int = 0) -> None:
        self.data, self.at = data, offset

    def align(self, n: int) -> None:
        self.at += -self.at % n

    def read(self, t: str):
        c = t[0]
        self.align(ALIGN[c])
        if c in FIXED:
            fmt = "<" + FIXED[c]
            (value,) = struct.unpack_from(fmt, self.data, self.at)
            self.at += struct.calcsize(fmt)
            return value
        if c in "so":
            (n,) = struct.unpack_from("<I", self.data, self.at)
            value = self.data[self.at + 4:self.at + 4 + n].decode()
            self.at += 4 + n + 1
            return value
        if c == "g":
            n = self.data[self.at]
            value = self.data[self.at + 1:self.at + 1 + n].decode()
            self.at += 1 + n + 1
            return value
        if c == "v":
            sig = self.read("g")
            return self.read(sig)
        if c == "a":
            (n,) = struct.unpack_from("<I", self.data, self.at)
            self.at += 4
            element = t[1:]
            self.align(ALIGN[element[0]])
            end, items = self.at + n, []
            while self.at < end:
                items.append(self.read(element))
            return dict(items) if element[0] == "{" else items
        if c in "({":
            return tuple(self.read(inner) for inner in split_types(t[1:-1]))
        raise ValueError(f"cannot read type {t}")


class Bus:
    """One connection to a message bus: authenticated, said Hello, messages in and out."""

    def __init__(self, address: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(socket_path(address))
        self.serial = 0
        self.lock = threading.Lock()
        self.rest = b""
        self.sock.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
        line = self._line()
        if not line.startswith(b"OK "):
            raise RuntimeError(f"bus refused authentication: {line!r}")
        self.sock.sendall(b"BEGIN\r\n")
        self.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello")
        reply = self.wait_reply(self.serial)
        self.unique_name = reply["body"][0]

    def _line(self) -> bytes:
        while b"\r\n" not in self.rest:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("bus closed the connection")
            self.rest += chunk
        line, self.rest = self.rest.split(b"\r\n", 1)
        return line

    def send(self, kind: int, fields: dict[int, tuple[str, object]], signature: str = "", body: tuple = ()) -> int:
        with self.lock:
            self.serial += 1
            payload = Writer()
            for t, v in zip(split_types(signature), body):
                payload.write(t, v)
            if signature:
                fields = {**fields, 8: ("g", signature)}
            header = Writer()
            header.write("y", ord("l"))
            header.write("y", kind)
            header.write("y", 0)
            header.write("y", 1)
            header.write("u", len(payload.buf))
            header.write("u", self.serial)
            header.write("a(yv)", sorted(fields.items()))
            header.pad(8)
            self.sock.sendall(bytes(header.buf) + bytes(payload.buf))
            return self.serial

    def call(self, destination: str, path: str, interface: str, member: str, signature: str = "",
             body: tuple = ()) -> int:
        return self.send(METHOD_CALL, {1: ("o", path), 2: ("s", interface), 3: ("s", member),
                                       6: ("s", destination)}, signature, body)

    def reply(self, message: dict, signature: str = "", body: tuple = ()) -> None:
        self.send(METHOD_RETURN, {5: ("u", message["serial"]), 6: ("s", message["sender"])}, signature, body)

    def error(self, message: dict, name: str, text: str) -> None:
        self.send(ERROR, {4: ("s", name), 5: ("u", message["serial"]), 6: ("s", message["sender"])}, "s", (text,))

    def signal(self, path: str, interface: str, member: str, signature: str, body: tuple) -> None:
        self.send(SIGNAL, {1: ("o", path), 2: ("s", interface), 3: ("s", member)}, signature, body)

    def receive(self) -> dict:
        """The next message from the bus, decoded."""
        while True:
            if len(self.rest) >= 16:
                body_length, _, fields_length = struct.unpack_from("<III", self.rest, 4)
                header_end = 16 + fields_length + (-(16 + fields_length) % 8)
                total = header_end + body_length
                if len(self.rest) >= total:
                    data, self.rest = self.rest[:total], self.rest[total:]
                    return decode(data, header_end)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("bus closed the connection")
            self.rest += chunk

    def wait_reply(self, serial: int) -> dict:
        while True:
            message = self.receive()
            if message["type"] in (METHOD_RETURN, ERROR) and message["reply_serial"] == serial:
                if message["type"] == ERROR:
                    raise RuntimeError(f"{message['error']}: {message['body']}")
                return message


def decode(data: bytes, header_end: int) -> dict:
    if data[0:1] != b"l":
        raise ValueError("only little-endian messages are read")
    reader = Reader(data, 12)
    fields = dict(reader.read("a(yv)"))
    (serial,) = struct.unpack_from("<I", data, 8)
    signature = fields.get(8, "")
    body_reader = Reader(data[header_end:])
    body = tuple(body_reader.read(t) for t in split_types(signature))
    return {"type": data[1], "serial": serial, "path": fields.get(1), "interface": fields.get(2),
            "member": fields.get(3), "error": fields.get(4), "reply_serial": fields.get(5),
            "sender": fields.get(7), "signature": signature, "body": body}


def socket_path(address: str) -> str:
    """The socket of the first unix:path= (or abstract) entry of a D-Bus server address."""
    for entry in address.split(";"):
        transport, _, params = entry.partition(":")
        if transport != "unix":
            continue
        keys = dict(p.split("=", 1) for p in params.split(",") if "=" in p)
        if "path" in keys:
            return unescape(keys["path"])
        if "abstract" in keys:
            return "\0" + unescape(keys["abstract"])
    raise ValueError(f"no unix socket in {address!r}")


def unescape(value: str) -> str:
    out, i = bytearray(), 0
    while i < len(value):
        if value[i] == "%":
            out.append(int(value[i + 1:i + 3], 16))
            i += 3
        else:
            out += value[i].encode()
            i += 1
    return out.decode()


class NotificationServer:
    def __init__(self, bus: Bus, log_path: str, answer_file: str | None, delay: float) -> None:
        self.bus, self.log_path, self.answer_file, self.delay = bus, log_path, answer_file, delay
        self.next_id = 0
        self.open: set[int] = set()

    def log(self, entry: dict) -> None:
        with open(self.log_path, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def answer(self) -> str:
        if not self.answer_file:
            return "none"
        try:
            with open(self.answer_file) as f:
                return f.read().strip() or "none"
        except FileNotFoundError:
            return "none"

    def close(self, nid: int, reason: int) -> None:
        if nid in self.open:
            self.open.discard(nid)
            self.bus.signal(PATH, NAME, "NotificationClosed", "uu", (nid, reason))

    def act(self, nid: int, answer: str) -> None:
        time.sleep(self.delay)
        if nid not in self.open:
            return
        self.log({"call": "answered", "id": nid, "answer": answer})
        if answer in ("allow", "deny"):
            self.bus.signal(PATH, NAME, "ActionInvoked", "us", (nid, answer))
            self.close(nid, 2)  # a notification that is not resident closes once its action is invoked
        elif answer == "dismiss":
            self.close(nid, 2)

    def handle(self, message: dict) -> None:
        member, body = message["member"], message["body"]
        if message["interface"] not in (NAME, None):
            if message["interface"] == "org.freedesktop.DBus.Peer" and member == "Ping":
                return self.bus.reply(message)
            return self.bus.error(message, "org.freedesktop.DBus.Error.UnknownMethod", f"no {member} here")
        if member == "GetCapabilities":
            return self.bus.reply(message, "as", (["actions", "body"],))
        if member == "GetServerInformation":
            return self.bus.reply(message, "ssss", ("notification stand-in", "passkeyd tests", "1", "1.2"))
        if member == "Notify":
            app_name, replaces_id, icon, summary, text, actions, hints, expire_timeout = body
            self.next_id += 1
            nid = replaces_id or self.next_id
            self.open.add(nid)
            pairs = dict(zip(actions[0::2], actions[1::2]))
            self.log({"call": "Notify", "id": nid, "app_name": app_name, "icon": icon, "summary": summary,
                      "body": text, "actions": pairs, "expire_timeout": expire_timeout,
                      "hints": {k: v for k, v in hints.items() if isinstance(v, (int, str, bool))},
                      "sender": message["sender"]})
            self.bus.reply(message, "u", (nid,))
            if pairs:
                answer = self.answer()
                if answer != "none":
                    threading.Thread(target=self.act, args=(nid, answer), daemon=True).start()
            return
        if member == "CloseNotification":
            (nid,) = body
            self.log({"call": "CloseNotification", "id": nid})
            self.bus.reply(message)
            return self.close(nid, 3)
        self.bus.error(message, "org.freedesktop.DBus.Error.UnknownMethod", f"no {member} here")

    def serve(self) -> None:
        while True:
            try:
                message = self.bus.receive()
            except EOFError:
                return
            if message["type"] == METHOD_CALL:
                self.handle(message)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", required=True, help="the session bus (dbus-daemon --print-address)")
    parser.add_argument("--log", required=True, help="a JSON line per call is appended here")
    parser.add_argument("--answer-file", help="allow, deny, dismiss or none (default none)")
    parser.add_argument("--delay", type=float, default=0.3, help="seconds the person takes to answer")
    args = parser.parse_args()
    bus = Bus(args.address)
    serial = bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                      "su", (NAME, 4))  # DBUS_NAME_FLAG_DO_NOT_QUEUE
    (result,) = bus.wait_reply(serial)["body"]
    if result != 1:  # DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
        sys.exit(f"could not own {NAME} (RequestName answered {result})")
    print("ready", flush=True)
    NotificationServer(bus, args.log, args.answer_file, args.delay).serve()


if __name__ == "__main__":
    main()
