"""Request bodies over the limit are refused before they are read, by a real Daphne."""

from __future__ import annotations

import socket

import pytest
from django.conf import settings

pytestmark = pytest.mark.django_db(transaction=True)


def exchange(port: int, head: bytes, body_chunks: list[bytes]) -> bytes:
    """Send ``head`` and what of ``body_chunks`` the server lets us; return its answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=15) as conn:
        conn.sendall(head)
        for chunk in body_chunks:
            try:
                conn.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):
                break  # the server stopped reading: what it answered is what counts
        answer = b""
        try:
            while data := conn.recv(65536):
                answer += data
        except ConnectionResetError:
            pass
        return answer


def test_a_declared_length_over_the_limit_is_answered_413_without_reading(module_daphne):
    server = module_daphne
    log_before = len(server.log())
    head = (
        b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\n"
        b"Content-Length: 209715200\r\n\r\n"
    )
    # Only a few bytes of the 200 MB follow: the answer must not wait for the rest.
    answer = exchange(server.port, head, [b"username=a"])
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert "request body refused" in server.log()[log_before:]


def test_a_chunked_body_growing_over_the_limit_is_cut_off_with_413(module_daphne):
    server = module_daphne
    head = (
        b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    piece = b"x" * 65536
    chunk = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    count = settings.DATA_UPLOAD_MAX_MEMORY_SIZE // len(piece) + 200
    answer = exchange(server.port, head, [chunk] * count)
    assert answer.startswith(b"HTTP/1.1 413 ")


def test_a_body_within_the_limit_reaches_the_site(module_daphne):
    server = module_daphne
    body = b"username=nobody&password=x"
    head = (
        b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n"
    )
    # Without the CSRF cookie Django refuses it: the request reached Django.
    assert exchange(server.port, head, [body]).startswith(b"HTTP/1.1 403 ")
