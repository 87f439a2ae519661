"""``manage.py espol_client``: type ESPOL commands, see the decoded responses.

Interactive by default (one command per line; an empty line or end of input quits);
``-c`` sends the given commands in order and exits, for scripts and tests.
"""

from __future__ import annotations

import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from legacy_tcp.client import EspolClient
from legacy_tcp.protocols.espol import Response


def show(response: Response | None) -> str:
    if response is None:
        return "(connection closed)"
    return f"{response.code} [{len(response.data)} bytes] {response.text}"


class Command(BaseCommand):
    help = "Connect to an ESPOL gateway, send commands, print decoded responses."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=settings.ESPOL_HOST)
        parser.add_argument("--port", type=int, default=settings.ESPOL_PORT)
        parser.add_argument("--tls", action="store_true", help="connect over TLS")
        parser.add_argument(
            "-c", "--command", action="append", default=[], help="send this and exit"
        )

    def handle(self, *args, **options) -> None:
        try:
            client = EspolClient(options["host"], options["port"], tls=options["tls"])
        except OSError as exc:
            raise CommandError(f"cannot connect: {exc}") from exc
        try:
            if options["command"]:
                for line in options["command"]:
                    self.stdout.write(f"> {line}\n{show(client.send(line))}")
                return
            interactive = sys.stdin.isatty()
            while True:
                if interactive:
                    self.stdout.write("espol> ", ending="")
                    self.stdout.flush()
                line = sys.stdin.readline()
                if not line or not line.strip():
                    break
                response = client.send(line.rstrip("\r\n"))
                self.stdout.write(show(response))
                if response is None:
                    break
        finally:
            client.close()
