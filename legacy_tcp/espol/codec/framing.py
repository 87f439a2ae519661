"""ESPOL's frames: a response code and its data → wire bytes, and back for clients.

Frame: 3 ASCII digits (code), 1 ASCII digit (``1`` = more frames follow), 2 bytes
big-endian length, then that many bytes of UTF-8 data. Data longer than 65535 bytes is
split across frames; a list is split between its records (:func:`record_frames`), so each
frame holds whole records, as seed 000 has the server fill and send one buffer at a time.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

MAX_FRAME_DATA = 0xFFFF


def _join_frames(code: int, chunks: list[bytes]) -> bytes:
    """The frames of one response, one per chunk: flag ``1`` on all but the last."""
    if not 100 <= code <= 999:
        raise ValueError(f"response code out of range: {code}")
    head = str(code).encode("ascii")
    out = bytearray()
    for index, chunk in enumerate(chunks):
        more = b"1" if index < len(chunks) - 1 else b"0"
        out += head + more + struct.pack(">H", len(chunk)) + chunk
    return bytes(out)


def _utf8_chunks(payload: bytes) -> list[bytes]:
    """``payload`` in pieces of at most MAX_FRAME_DATA bytes, none splitting a character."""
    chunks = []
    start = 0
    while len(payload) - start > MAX_FRAME_DATA:
        end = start + MAX_FRAME_DATA
        # Back up over continuation bytes (10xxxxxx), at most three in UTF-8, to the
        # first byte of a character; bytes that are not UTF-8 are cut where they fall.
        cut = end
        while cut > end - 3 and payload[cut] & 0xC0 == 0x80:
            cut -= 1
        if payload[cut] & 0xC0 != 0x80:
            end = cut
        chunks.append(payload[start:end])
        start = end
    chunks.append(payload[start:])
    return chunks


def frames(code: int, data: str | bytes = b"") -> bytes:
    """One response as wire bytes: as many frames as the data needs (at least one).

    For text that is not a list of records (HELP, reasons of failures). Data over 65535
    bytes is cut between characters, so each frame is valid UTF-8 on its own; lists go
    through :func:`record_frames` instead, which cuts between records.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    return _join_frames(code, _utf8_chunks(payload))


def record_frames(code: int, records: Iterable[str], *, head: str = "") -> bytes:
    """A list response: ``head`` then the records, each frame holding whole records only.

    Records carry their own separators: ``P0000001:bob:N:0,`` (PPEN), ``1:e2e4:0:1228:0,``
    (SPAR), ``alice:3,`` (SRNK) end in a comma, and TRAN and JAUT send the date as ``head``
    and each name as ``,name``. The frames' data concatenated is the whole answer, as the
    protocol page says a client reads it (it overrides seed 000, whose JAUT text repeats
    the date in every buffer); no frame ends inside a record or a UTF-8 character.
    """
    chunks: list[bytes] = []
    current = bytearray(head.encode("utf-8"))
    for record in records:
        data = record.encode("utf-8")
        if len(data) > MAX_FRAME_DATA:
            raise ValueError(f"a record of {len(data)} bytes does not fit in a frame")
        if len(current) + len(data) > MAX_FRAME_DATA:
            chunks.append(bytes(current))
            current = bytearray()
        current += data
    chunks.append(bytes(current))
    return _join_frames(code, chunks)


@dataclass(frozen=True)
class Response:
    code: int
    parts: tuple[bytes, ...]  # the data of each frame, in order

    @property
    def data(self) -> bytes:
        """The data of all its frames, concatenated: the whole answer."""
        return b"".join(self.parts)

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


class FrameDecoder:
    """Incremental decoder for clients and tests: feed bytes, take whole responses."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._parts: list[bytes] = []

    def feed(self, data: bytes) -> Iterator[Response]:
        self._buffer += data
        while len(self._buffer) >= 6:
            code_text, more = bytes(self._buffer[:3]), self._buffer[3:4]
            (length,) = struct.unpack(">H", self._buffer[4:6])
            if len(self._buffer) < 6 + length:
                return
            if not code_text.isdigit() or more not in (b"0", b"1"):
                raise ValueError(f"not an ESPOL frame header: {bytes(self._buffer[:6])!r}")
            self._parts.append(bytes(self._buffer[6 : 6 + length]))
            del self._buffer[: 6 + length]
            if more == b"0":
                parts, self._parts = tuple(self._parts), []
                yield Response(int(code_text), parts)
