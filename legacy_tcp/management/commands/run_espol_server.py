"""``manage.py run_espol_server``: the ESPOL TCP gateway on its own.

Use it beside ``daphne ajedrez.asgi:application`` with ``REDIS_URL`` set, so moves made
over TCP reach the browsers through Redis; ``manage.py serve`` runs both in one process.
"""

from __future__ import annotations

import ssl
from typing import Any

from django.core.management.base import CommandError, CommandParser

from legacy_tcp.espol.server import EspolServer
from legacy_tcp.management.gateway_command import GatewayCommand
from legacy_tcp.transport.server import LineServer


class Command(GatewayCommand):
    help = "Serve the 1995 ESPOL line protocol over TCP (optionally TLS)."
    label = "ESPOL gateway"
    setting_prefix = "ESPOL"
    default_port = 5757
    server_class = EspolServer

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--certfile", help="PEM certificate: serve over TLS")
        parser.add_argument("--keyfile", help="PEM private key for --certfile")

    def handle(self, *args: Any, **options: Any) -> None:
        options["ssl_context"] = None
        if options["certfile"] or options["keyfile"]:
            if not (options["certfile"] and options["keyfile"]):
                raise CommandError("--certfile and --keyfile go together")
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(options["certfile"], options["keyfile"])
            options["ssl_context"] = context
        super().handle(*args, **options)

    def make_server(self, options: dict) -> LineServer:
        return EspolServer(
            options["host"],
            options["port"],
            idle_timeout=self.setting("IDLE_TIMEOUT"),
            max_connections=self.setting("MAX_CONNECTIONS"),
            ssl_context=options["ssl_context"],
        )

    def served_as(self, options: dict) -> str:
        return " (TLS)" if options["ssl_context"] else ""
