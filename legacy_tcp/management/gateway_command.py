"""What the commands running one line gateway on its own share: host and port options,
the open-file limit, and a graceful stop on SIGINT/SIGTERM."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from legacy_tcp.transport.limits import raise_open_file_limit
from legacy_tcp.transport.server import LineServer


class GatewayCommand(BaseCommand):
    """Subclasses say what they serve: ``label``, the settings' prefix, ``server_class``."""

    label = ""
    setting_prefix = ""
    default_port = 0
    server_class: type[LineServer]

    def setting(self, name: str) -> Any:
        from django.conf import settings

        return getattr(settings, f"{self.setting_prefix}_{name}")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--host", default=self.setting("HOST"), help=f"interface ({self.setting_prefix}_HOST)"
        )
        parser.add_argument(
            "--port",
            type=int,
            default=self.setting("PORT"),
            help=f"TCP port ({self.setting_prefix}_PORT, {self.default_port})",
        )
        parser.add_argument(
            "--grace",
            type=float,
            default=10.0,
            help="seconds to let commands in flight finish on SIGINT/SIGTERM",
        )

    def make_server(self, options: dict) -> LineServer:
        """The server to run, from the command's options."""
        return self.server_class(options["host"], options["port"])  # type: ignore[call-arg]

    def served_as(self, options: dict) -> str:
        """Said after the address in the start-up line (ESPOL: " (TLS)")."""
        return ""

    def handle(self, *args: Any, **options: Any) -> None:
        asyncio.run(self._serve(options))

    async def _serve(self, options: dict) -> None:
        raise_open_file_limit(self.setting("MAX_CONNECTIONS"))
        server = self.make_server(options)
        await server.start()
        self.stdout.write(
            self.style.SUCCESS(
                f"{self.label} on {options['host']}:{server.port}"
                f"{self.served_as(options)}; Ctrl-C to stop"
            )
        )
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        self.stdout.write("Stopping: finishing commands in flight...")
        await server.stop(grace=options["grace"])
