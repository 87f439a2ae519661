"""A real SMTP server on loopback (aiosmtpd) for the mail tests: the ``smtp_server``
fixture (tests/conftest.py) starts one and points Django's SMTP backend at it."""

from __future__ import annotations

import email
import email.message
import email.policy
import socket


class Inbox:
    """aiosmtpd handler: keeps what it is sent; refuses the first ``refuse`` messages
    with a temporary error, as a server that is busy."""

    def __init__(self, refuse: int = 0) -> None:
        self.messages: list[email.message.EmailMessage] = []
        self.refuse = refuse

    async def handle_DATA(self, server, session, envelope):
        if self.refuse > 0:
            self.refuse -= 1
            return "451 4.3.0 try again later"
        self.messages.append(
            email.message_from_bytes(envelope.content, policy=email.policy.default)
        )
        return "250 OK"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
