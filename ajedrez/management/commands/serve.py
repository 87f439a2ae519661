"""``manage.py serve``: the whole service in one process.

HTTP and WebSocket through Daphne, static files, and the ESPOL TCP gateway on the same
asyncio event loop, so that on the embedded in-memory channel layer a move made over TCP
reaches the browsers watching the game. With ``REDIS_URL`` the processes may also be run
apart (``daphne ajedrez.asgi:application`` and ``manage.py run_espol_server``).
"""

from __future__ import annotations

# Daphne installs Twisted's asyncio reactor when imported: it must come first.
from daphne.server import Server  # isort:skip

import asyncio
import logging

from django.conf import settings
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

logger = logging.getLogger("ajedrez.serve")


class Command(BaseCommand):
    help = "Migrate, seed the demo, and serve HTTP + WebSocket + the ESPOL TCP gateway."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="HTTP interface (127.0.0.1)")
        parser.add_argument("--port", type=int, default=8000, help="HTTP port (8000)")
        parser.add_argument("--espol-host", default=settings.ESPOL_HOST)
        parser.add_argument("--espol-port", type=int, default=settings.ESPOL_PORT)
        parser.add_argument("--no-espol", action="store_true", help="do not start the gateway")
        parser.add_argument("--no-demo", action="store_true", help="do not seed demo data")
        parser.add_argument("--no-migrate", action="store_true", help="skip migrate")

    def handle(self, *args, **options) -> None:
        if not options["no_migrate"]:
            call_command("migrate", interactive=False, verbosity=0)
        if not options["no_demo"]:
            call_command("seed_demo", stdout=self.stdout)

        from ajedrez.asgi import application

        espol = None
        if not options["no_espol"]:
            from legacy_tcp.server import EspolServer, raise_open_file_limit

            # Before Daphne starts: the web shares the raised limit and the headroom.
            raise_open_file_limit(settings.ESPOL_MAX_CONNECTIONS)
            espol = EspolServer(
                options["espol_host"],
                options["espol_port"],
                idle_timeout=settings.ESPOL_IDLE_TIMEOUT,
                max_connections=settings.ESPOL_MAX_CONNECTIONS,
            )

        server: Server = Server(
            application=ASGIStaticFilesHandler(application),
            endpoints=[f"tcp:port={options['port']}:interface={options['host']}"],
            signal_handlers=True,
            ready_callable=lambda: self._ready(server, espol, options),
        )
        server.run()

    def _ready(self, server: Server, espol, options: dict) -> None:
        """Called by Daphne once its reactor's asyncio loop is the current loop."""
        from twisted.internet import defer, reactor

        self.stdout.write(
            self.style.SUCCESS(f"Web: http://{options['host']}:{options['port']}/  "
                               f"(admin: http://{options['host']}:{options['port']}/admin/)")
        )
        if espol is None:
            return

        async def start() -> None:
            try:
                await espol.start()
            except OSError as exc:
                logger.error("ESPOL gateway could not listen: %s", exc)
                server.stop()
                return
            self.stdout.write(
                self.style.SUCCESS(f"ESPOL gateway: {options['espol_host']}:{espol.port}")
            )

        # Keep a reference: the loop holds only weak ones to its tasks.
        self._espol_start = asyncio.ensure_future(start())
        # On SIGINT/SIGTERM, let commands in flight finish before the loop stops.
        reactor.addSystemEventTrigger(
            "before",
            "shutdown",  # type: ignore[arg-type]  # zope interface typed without self
            lambda: defer.Deferred.fromFuture(asyncio.ensure_future(espol.stop())),
        )
