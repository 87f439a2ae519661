"""``manage.py run_espol_server``: the ESPOL TCP gateway on its own.

Use it beside ``daphne ajedrez.asgi:application`` with ``REDIS_URL`` set, so moves made
over TCP reach the browsers through Redis; ``manage.py serve`` runs both in one process.
"""

from __future__ import annotations

import asyncio
import signal
import ssl

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from legacy_tcp.server import EspolServer, raise_open_file_limit


class Command(BaseCommand):
    help = "Serve the 1995 ESPOL line protocol over TCP (optionally TLS)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=settings.ESPOL_HOST, help="interface to bind")
        parser.add_argument(
            "--port", type=int, default=settings.ESPOL_PORT, help="TCP port (ESPOL_PORT, 5757)"
        )
        parser.add_argument("--certfile", help="PEM certificate: serve over TLS")
        parser.add_argument("--keyfile", help="PEM private key for --certfile")
        parser.add_argument(
            "--grace",
            type=float,
            default=10.0,
            help="seconds to let commands in flight finish on SIGINT/SIGTERM",
        )

    def handle(self, *args, **options) -> None:
        context = None
        if options["certfile"] or options["keyfile"]:
            if not (options["certfile"] and options["keyfile"]):
                raise CommandError("--certfile and --keyfile go together")
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(options["certfile"], options["keyfile"])
        asyncio.run(self._serve(options, context))

    async def _serve(self, options: dict, context: ssl.SSLContext | None) -> None:
        raise_open_file_limit(settings.ESPOL_MAX_CONNECTIONS)
        server = EspolServer(
            options["host"],
            options["port"],
            idle_timeout=settings.ESPOL_IDLE_TIMEOUT,
            max_connections=settings.ESPOL_MAX_CONNECTIONS,
            ssl_context=context,
        )
        await server.start()
        self.stdout.write(
            self.style.SUCCESS(
                f"ESPOL gateway on {options['host']}:{server.port}"
                f"{' (TLS)' if context else ''}; Ctrl-C to stop"
            )
        )
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        self.stdout.write("Stopping: finishing commands in flight...")
        await server.stop(grace=options["grace"])
