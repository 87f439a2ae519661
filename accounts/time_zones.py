"""Each player's time zone. The database keeps UTC; pages and mail show the reader's
local time with the zone named.

A player's zone is guessed from the browser at sign-up and can be changed on the
preferences page. A page is rendered in the zone of its reader: the logged-in player's
chosen zone, else the zone their browser reports (the ``tz`` cookie that ``site.js``
sets), else the site's (UTC).
"""

from __future__ import annotations

import functools
import zoneinfo
from collections.abc import Callable
from datetime import tzinfo

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from ajedrez.core.faults import unavailable_part

# Where the zone of the logged-in player is kept between requests, so that a page costs no
# query for it: set at login and when the preferences are saved.
SESSION_KEY = "time_zone"
# The zone the browser reports (Intl), for visitors and players who chose none.
COOKIE_NAME = "tz"
# IANA names are at most about 30 characters; anything longer is not one.
MAX_LENGTH = 64


@functools.cache
def known_zones() -> frozenset[str]:
    """Every IANA zone name this machine knows (``zoneinfo``)."""
    return frozenset(zoneinfo.available_timezones())


def is_known(name: object) -> bool:
    """Whether ``name`` is an IANA zone name this machine knows."""
    return isinstance(name, str) and 0 < len(name) <= MAX_LENGTH and name in known_zones()


def choices() -> list[tuple[str, str]]:
    """The zones for a select, ``UTC`` first, then by name (``Europe/Madrid``)."""
    names = sorted(known_zones() - {"UTC"})
    return [("UTC", "UTC"), *((name, name.replace("_", " ")) for name in names)]


def zone(name: str) -> tzinfo:
    """The zone ``name``, or the site's when it is empty or unknown."""
    if is_known(name):
        return zoneinfo.ZoneInfo(name)
    return zoneinfo.ZoneInfo(settings.TIME_ZONE)


def zone_of_request(request: HttpRequest) -> str:
    """The zone name to show ``request``'s page in ("" for the site's)."""
    try:
        chosen = request.session.get(SESSION_KEY, "") if hasattr(request, "session") else ""
    except Exception as exc:
        # The session's store (the database, or Redis) is down: a page that needs it
        # answers 503 by itself; one that does not (/healthz) must not fail for a zone.
        if unavailable_part(exc) is None:
            raise
        chosen = ""
    if is_known(chosen):
        return str(chosen)
    reported = request.COOKIES.get(COOKIE_NAME, "")
    return reported if is_known(reported) else ""


def remember(request: HttpRequest, name: str) -> None:
    """Keep the logged-in player's chosen zone ``name`` for the pages that follow."""
    if is_known(name):
        request.session[SESSION_KEY] = name
    else:
        request.session.pop(SESSION_KEY, None)


class TimeZoneMiddleware:
    """Renders each page in its reader's zone (``django.utils.timezone.activate``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        name = zone_of_request(request)
        if name:
            timezone.activate(zoneinfo.ZoneInfo(name))
        else:
            timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
