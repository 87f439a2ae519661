"""What the accounts app tells the apps above it, and what it hears from Django's auth.

Accounts is the lowest app: it never imports the others. When an account closes, the
apps above must end what the player leaves behind (games ends their games in progress);
they connect to :data:`account_closing`, which is sent inside the closing transaction, so
the account and everything it ends commit or roll back together.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.dispatch import Signal, receiver
from django.http import HttpRequest

from accounts import time_zones
from accounts.events import publish_session_ended
from accounts.models import LoginSession
from accounts.selectors import preferences_of

# Sent with ``player`` (the account, locked) inside :func:`accounts.services.revoke_access`.
account_closing = Signal()


@receiver(user_logged_out)
def close_session_sockets(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    # Sent before the session is flushed, so its key still names the sockets to close;
    # other sessions of the same player stay logged in.
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    if session_key:
        publish_session_ended(session_key)
        LoginSession.objects.filter(session_key=session_key).delete()


@receiver(user_logged_in)
def record_login_session(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    # login() has already given the session its new key (it cycles it on login).
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    if session_key:
        LoginSession.objects.update_or_create(session_key=session_key, defaults={"player": user})
        # The player's zone for the pages that follow, read once per login.
        time_zones.remember(request, preferences_of(user).time_zone)
