"""One client's connection, as a gateway's protocol hooks see it (:class:`Connection`)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False)
class Connection:
    """One client's connection, as the protocol's hooks see it."""

    # The protocol's own state for this connection (LineServer.new_session).
    session: Any
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    # The client's address as the caps and the login throttle count it (address_key).
    address: str
    peer: str = "?"
    commands: int = 0
    # Held while a reply or a push is written, so that lines never interleave.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    opened: float = field(default_factory=time.monotonic)
    # Loop time by which the session must be logged in; None while it is (or no limit).
    login_deadline: float | None = None
    # Loop time by which the first line must have arrived; None once it has (or no limit).
    first_line_deadline: float | None = None
