"""``manage.py run_chessirc_server``: the chessirc server (seed 004) the IRC bot talks to.

Use it beside ``daphne ajedrez.asgi:application`` (same database); ``manage.py serve``
runs everything in one process.
"""

from __future__ import annotations

from legacy_tcp.chessirc.server import ChessircServer
from legacy_tcp.management.gateway_command import GatewayCommand


class Command(GatewayCommand):
    help = "Serve chessirc's bot protocol (seed 004) over TCP."
    label = "chessirc gateway"
    setting_prefix = "CHESSIRC"
    default_port = 4321
    server_class = ChessircServer
