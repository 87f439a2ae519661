"""ASGI entry point: HTTP through Django, WebSockets through Channels."""

from __future__ import annotations

import gc
import os
import warnings

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ajedrez.settings")
# Django must be set up before the consumers (and their models) are imported.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from accounts.socket_limits import SocketLimitMiddleware  # noqa: E402
from ajedrez import body_limit  # noqa: E402
from ajedrez.origin import SameOriginValidator  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402

# WhiteNoise (a Django middleware here) answers with a file iterator that Django's ASGI
# handler reads whole, in a thread, before sending it, and says so once per process. The
# static files are small (the largest, Bootstrap's CSS, is 230 kB, 30 kB gzipped) and
# browsers cache the hashed names for a year: the warning would only be noise in the log.
warnings.filterwarnings(
    "ignore",
    message="StreamingHttpResponse must consume synchronous iterators",
    category=Warning,
)

# Request bodies over the limit are refused by Daphne's request before they are read.
body_limit.install()

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Counted against the socket bounds before authentication reads the database.
        "websocket": SameOriginValidator(
            SocketLimitMiddleware(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
        ),
    }
)

# The collector, tuned for a process that holds many sockets. What was loaded at start
# lives as long as the process: frozen, full collections no longer walk it. A broadcast
# allocates and frees (by reference counting) a few objects per socket; at the default
# first threshold (700) the collector ran some twenty times per event to 1,000 sockets,
# a quarter of the server's CPU (bench/fanout.py, docs/benchmarks.md). Cyclic garbage now
# waits for 50,000 net allocations instead.
gc.freeze()
gc.set_threshold(50_000, 10, 10)
