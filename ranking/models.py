"""Each player's record: wins, losses, draws and an Elo rating."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

INITIAL_RATING = 1500


class PlayerRecord(models.Model):
    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="record"
    )
    wins = models.PositiveIntegerField(_("wins"), default=0)
    losses = models.PositiveIntegerField(_("losses"), default=0)
    draws = models.PositiveIntegerField(_("draws"), default=0)
    rating = models.PositiveIntegerField(_("rating"), default=INITIAL_RATING)

    class Meta:
        indexes = [models.Index(fields=["-wins"]), models.Index(fields=["-rating"])]

    def __str__(self) -> str:
        return f"{self.player}: +{self.wins} −{self.losses} ={self.draws}"

    @property
    def total_games(self) -> int:
        return self.wins + self.losses + self.draws
