"""Every account gets its preferences and its ranking record when it is created,
whichever door created it (approval, the admin's "add user", createsuperuser); logging
out closes that session's open WebSockets."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.http import HttpRequest

from accounts.models import Preferences
from games.events import publish_session_ended
from ranking.services import open_record


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def create_player_rows(sender, instance, created: bool, raw: bool = False, **kwargs) -> None:
    if created and not raw:
        Preferences.objects.get_or_create(player=instance)
        open_record(instance.pk)


@receiver(user_logged_out)
def close_session_sockets(sender, request: HttpRequest, user, **kwargs) -> None:
    # Sent before the session is flushed, so its key still names the sockets to close;
    # other sessions of the same player stay logged in.
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    if session_key:
        publish_session_ended(session_key)
