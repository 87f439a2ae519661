"""A plain line client for the gateways that answer in lines (the ``#`` protocol,
chessirc): what ``nc`` does, with timeouts."""

from __future__ import annotations

import socket
import time


class LineClient:
    def __init__(self, port: int, timeout: float = 10.0) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buffer = b""
        self.timeout = timeout

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send(self, line: str) -> None:
        self.send_raw(line.encode() + b"\n")

    def line(self, timeout: float | None = None) -> str | None:
        """The next line received (without its end), or None when the server closed."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no line; buffer {self.buffer!r}")
            self.sock.settimeout(remaining)
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk
        raw, _, self.buffer = self.buffer.partition(b"\n")
        return raw.decode()

    def ask(self, line: str) -> str | None:
        self.send(line)
        return self.line()

    def nothing_within(self, seconds: float) -> bool:
        """Whether nothing arrives within ``seconds`` (the connection still open)."""
        if self.buffer:
            return False
        self.sock.settimeout(seconds)
        try:
            chunk = self.sock.recv(65536)
        except TimeoutError:
            return True
        self.buffer += chunk
        return False

    def closed_by_server(self, timeout: float = 5.0) -> bool:
        self.sock.settimeout(timeout)
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return True
                self.buffer += chunk
        except ConnectionResetError:
            return True
        except TimeoutError:
            return False

    def close(self) -> None:
        self.sock.close()
