"""Every account gets its ranking record when it is created, whichever door created it
(approval, the admin's "add user", createsuperuser)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import receiver

from ranking.services import open_record


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def open_new_players_record(
    sender: Any, instance: Any, created: bool, raw: bool = False, **kwargs: Any
) -> None:
    if created and not raw:
        open_record(instance.pk)
