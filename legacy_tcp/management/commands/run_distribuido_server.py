"""``manage.py run_distribuido_server``: the ``#`` protocol gateway (seed 001) on its own.

Use it beside ``daphne ajedrez.asgi:application`` with ``REDIS_URL`` set, so that moves
reach the browsers and the browsers' moves reach this gateway through Redis; ``manage.py
serve`` runs everything in one process.
"""

from __future__ import annotations

from legacy_tcp.distribuido.server import DistribuidoServer
from legacy_tcp.management.gateway_command import GatewayCommand


class Command(GatewayCommand):
    help = "Serve the # protocol of Ajedrez Distribuido v1.0 (seed 001) over TCP."
    label = "# protocol gateway"
    setting_prefix = "DISTRIBUIDO"
    default_port = 5758
    server_class = DistribuidoServer
