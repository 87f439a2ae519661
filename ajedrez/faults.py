"""What a request gets when a part the service stands on is down, and ``/healthz``.

An unavailable database (PostgreSQL stopped, SQLite's lock held past the busy timeout) or
Redis (the channel layer and the shared cache) is nobody's mistake and passes: the answer
is 503 with ``Retry-After``, not 500. A request that asked for a page gets one in the
site's layout; any other (the board's ``fetch`` calls, API clients, ``curl``) gets JSON
with a stable ``code``, as the domain errors have. Every other uncaught error keeps the 500
page (or its JSON). ``/healthz`` says which part is down, for a load balancer or a person.
"""

from __future__ import annotations

import logging
import sys

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from ajedrez.core.faults import unavailable_part

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
# How long /healthz waits for Redis: a probe must answer while the part is down.
PROBE_TIMEOUT_SECONDS = 2.0


def wants_page(request: HttpRequest) -> bool:
    """Whether the client asked for a page: browsers say ``text/html`` when they navigate
    or post a form; ``fetch`` says ``*/*`` unless told otherwise."""
    accept = request.headers.get("Accept", "")
    return "text/html" in accept and "application/json" not in accept


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: Django calls it inside the ``except`` of the failed request."""
    part = unavailable_part(sys.exc_info()[1])
    if part is None:
        status, code = 500, "internal_error"
        message = _("Something went wrong on our side. The error has been recorded.")
    else:
        status, code = 503, "unavailable"
        message = _("The service is briefly unavailable. Try again in a moment.")
    if wants_page(request):
        # Rendered without a request context, as Django renders its own 500 page: the
        # context processors may need the very part that is down.
        template = "503.html" if part else "500.html"
        response = HttpResponse(loader.get_template(template).render(), status=status)
    else:
        body = {"type": "error", "code": code, "message": message}
        if part:
            body["unavailable"] = part
        response = JsonResponse(body, status=status)
    if part:
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def database_status() -> str:
    try:
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        # A connection that failed stays unusable for this thread until closed.
        connection.close_if_unusable_or_obsolete()
        return "down"
    return "ok"


def redis_status() -> str:
    if not settings.REDIS_URL:
        return "not used"
    import redis

    client = redis.Redis.from_url(
        settings.REDIS_URL,
        socket_timeout=PROBE_TIMEOUT_SECONDS,
        socket_connect_timeout=PROBE_TIMEOUT_SECONDS,
    )
    try:
        client.ping()
    except (RedisConnectionError, RedisTimeoutError, OSError):
        return "down"
    finally:
        client.close()
    return "ok"


def cache_status() -> str:
    try:
        cache.get("healthz")
    except Exception as error:  # whatever the cache backend raises when its server is gone
        logger.info("healthz: cache unavailable (%s)", type(error).__name__)
        return "down"
    return "ok"


# No CSRF check: the view changes nothing, and a probe's other methods must get 405, not
# the CSRF refusal's page.
@csrf_exempt
@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """Each part's state and 200 when all are up, 503 with the same body when one is down.
    No login: it tells nothing but which part is down."""
    parts = {"database": database_status(), "redis": redis_status(), "cache": cache_status()}
    down = [name for name, state in parts.items() if state == "down"]
    body = {"status": "down" if down else "ok", **parts}
    response = JsonResponse(body, status=503 if down else 200)
    if down:
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
