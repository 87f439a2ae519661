"""Every account gets its preferences and its ranking record when it is created,
whichever door created it (approval, the admin's "add user", createsuperuser)."""

from __future__ import annotations

from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.models import Preferences
from ranking.models import PlayerRecord


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def create_player_rows(sender, instance, created: bool, raw: bool = False, **kwargs) -> None:
    if created and not raw:
        Preferences.objects.get_or_create(player=instance)
        PlayerRecord.objects.get_or_create(player=instance)
