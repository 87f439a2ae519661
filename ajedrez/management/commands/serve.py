"""``manage.py serve``: the whole service in one process.

HTTP and WebSocket through Daphne, static files, the TCP gateways (ESPOL, the ``#``
protocol of seed 001, chessirc of seed 004) and the clock sweep (games whose time ran
out, every ``CLOCK_SWEEP_SECONDS``) on the same asyncio event loop, and the background
task workers (mail, and the engine's analyses) on threads of the same process, so that on the
embedded in-memory channel layer a move made over TCP reaches the browsers watching the
game, and theirs the gateways. With ``REDIS_URL`` the processes may also be run apart
(``daphne ajedrez.asgi:application``, ``manage.py run_espol_server``,
``run_distribuido_server``, ``run_chessirc_server``): static files are served by
WhiteNoise's middleware in the application itself, so each process serves them once
``collectstatic`` has run (this command runs it at start).
"""

from __future__ import annotations

import os

# Daphne installs Twisted's asyncio reactor when imported: it must come first.
from daphne.server import Server  # isort:skip

import asyncio
import logging
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

logger = logging.getLogger("ajedrez.serve")


class Command(BaseCommand):
    help = (
        "Migrate, collect static files, seed the demo, and serve HTTP + WebSocket + the "
        "TCP gateways."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="HTTP interface (127.0.0.1)")
        parser.add_argument("--port", type=int, default=8000, help="HTTP port (8000)")
        parser.add_argument("--espol-host", default=settings.ESPOL_HOST)
        parser.add_argument("--espol-port", type=int, default=settings.ESPOL_PORT)
        parser.add_argument("--no-espol", action="store_true", help="do not start the gateway")
        parser.add_argument("--distribuido-host", default=settings.DISTRIBUIDO_HOST)
        parser.add_argument("--distribuido-port", type=int, default=settings.DISTRIBUIDO_PORT)
        parser.add_argument(
            "--no-distribuido", action="store_true", help="do not start the # protocol gateway"
        )
        parser.add_argument("--chessirc-host", default=settings.CHESSIRC_HOST)
        parser.add_argument("--chessirc-port", type=int, default=settings.CHESSIRC_PORT)
        parser.add_argument(
            "--no-chessirc", action="store_true", help="do not start the chessirc gateway"
        )
        parser.add_argument(
            "--no-worker",
            action="store_true",
            help="do not run the task worker (mail) here: run manage.py db_worker instead",
        )
        parser.add_argument("--no-demo", action="store_true", help="do not seed demo data")
        parser.add_argument("--no-migrate", action="store_true", help="skip migrate")
        parser.add_argument(
            "--no-collectstatic",
            action="store_true",
            help="skip collectstatic (STATIC_ROOT already holds this version's files)",
        )

    def handle(self, *args, **options) -> None:
        if "SITE_URL" not in os.environ:
            # The links the site hands out (mail, the lichess API's urlWhite and game
            # urls) must reach this server, on whatever port it was started.
            host = options["host"]
            host = "127.0.0.1" if host in ("0.0.0.0", "") else host
            host = f"[{host}]" if ":" in host else host
            settings.SITE_URL = f"http://{host}:{options['port']}"
        if not options["no_migrate"]:
            call_command("migrate", interactive=False, verbosity=0)
        if not options["no_collectstatic"]:
            call_command("collectstatic", interactive=False, verbosity=0)
        if not options["no_demo"]:
            call_command("seed_demo", stdout=self.stdout)

        from ajedrez.asgi import application
        from legacy_tcp.transport.limits import raise_open_file_limit

        # (label, host, server): each started once the event loop runs.
        gateways: list[tuple[str, str, Any]] = []
        wanted = 0
        if not options["no_espol"]:
            from legacy_tcp.espol.server import EspolServer

            wanted += settings.ESPOL_MAX_CONNECTIONS
            espol = EspolServer(
                options["espol_host"],
                options["espol_port"],
                idle_timeout=settings.ESPOL_IDLE_TIMEOUT,
                max_connections=settings.ESPOL_MAX_CONNECTIONS,
            )
            gateways.append(("ESPOL gateway", options["espol_host"], espol))
        if not options["no_distribuido"]:
            from legacy_tcp.distribuido.server import DistribuidoServer

            wanted += settings.DISTRIBUIDO_MAX_CONNECTIONS
            distribuido = DistribuidoServer(
                options["distribuido_host"], options["distribuido_port"]
            )
            gateways.append(("# protocol gateway", options["distribuido_host"], distribuido))
        if not options["no_chessirc"]:
            from legacy_tcp.chessirc.server import ChessircServer

            wanted += settings.CHESSIRC_MAX_CONNECTIONS
            chessirc = ChessircServer(options["chessirc_host"], options["chessirc_port"])
            gateways.append(("chessirc gateway", options["chessirc_host"], chessirc))
        if wanted:
            # Before Daphne starts: the web shares the raised limit and the headroom.
            raise_open_file_limit(wanted)

        server: Server = Server(
            application=application,
            endpoints=[f"tcp:port={options['port']}:interface={options['host']}"],
            signal_handlers=True,
            ready_callable=lambda: self._ready(server, gateways, options),
        )
        server.run()

    def _ready(self, server: Server, gateways: list[tuple[str, str, Any]], options: dict) -> None:
        """Called by Daphne once its reactor's asyncio loop is the current loop."""
        from twisted.internet import defer, reactor

        self.stdout.write(
            self.style.SUCCESS(f"Web: http://{options['host']}:{options['port']}/  "
                               f"(admin: http://{options['host']}:{options['port']}/admin/)")
        )
        if settings.TASK_WORKER_IN_SERVE and not options["no_worker"]:
            from ajedrez.task_worker import WorkerThread

            self._task_worker = WorkerThread(interval=settings.TASK_WORKER_INTERVAL)
            self._task_worker.start()
            # A thread, not a task of the loop: the worker's database and SMTP calls block.
            reactor.addSystemEventTrigger(
                "before",
                "shutdown",  # type: ignore[arg-type]  # zope interface typed without self
                self._task_worker.stop,
            )
            self.stdout.write(self.style.SUCCESS("Task worker: mail is sent from here"))
        if settings.ANALYSIS_WORKER_IN_SERVE and not options["no_worker"]:
            from ajedrez.task_worker import WorkerThread

            self._analysis_worker = WorkerThread(
                interval=settings.TASK_WORKER_INTERVAL, analysis=True
            )
            self._analysis_worker.start()
            reactor.addSystemEventTrigger(
                "before",
                "shutdown",  # type: ignore[arg-type]  # zope interface typed without self
                self._analysis_worker.stop,
            )
            self.stdout.write(self.style.SUCCESS("Analysis worker: the engine runs from here"))
        if settings.CLOCK_SWEEP_SECONDS > 0:
            from games.sweeper import sweep_forever

            # Keep a reference: the loop holds only weak ones to its tasks.
            self._clock_sweep = asyncio.ensure_future(
                sweep_forever(settings.CLOCK_SWEEP_SECONDS)
            )
            reactor.addSystemEventTrigger(
                "before",
                "shutdown",  # type: ignore[arg-type]  # zope interface typed without self
                self._clock_sweep.cancel,
            )
        if not gateways:
            return

        async def start() -> None:
            for label, host, gateway in gateways:
                try:
                    await gateway.start()
                except OSError as exc:
                    logger.error("%s could not listen: %s", label, exc)
                    server.stop()
                    return
                self.stdout.write(self.style.SUCCESS(f"{label}: {host}:{gateway.port}"))

        async def stop() -> None:
            await asyncio.gather(*(gateway.stop() for _label, _host, gateway in gateways))

        # Keep a reference: the loop holds only weak ones to its tasks.
        self._gateways_start = asyncio.ensure_future(start())
        # On SIGINT/SIGTERM, let commands in flight finish before the loop stops.
        reactor.addSystemEventTrigger(
            "before",
            "shutdown",  # type: ignore[arg-type]  # zope interface typed without self
            lambda: defer.Deferred.fromFuture(asyncio.ensure_future(stop())),
        )
