"""Each player's record (wins, losses, draws) and Glicko-2 rating, and the rating's
history game by game."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from ranking import glicko2
from ranking.rating_rules import PROVISIONAL_DEVIATION, periods_between

INITIAL_RATING = int(glicko2.INITIAL_RATING)


def rating_label(rating: float, *, provisional: bool) -> str:
    return f"{round(rating)}{'?' if provisional else ''}"


def change_label(change: float) -> str:
    """A rating change as shown: ``+12``, ``−8`` (a minus sign), ``±0``."""
    rounded = round(change)
    if rounded == 0:
        return "±0"
    return f"+{rounded}" if rounded > 0 else f"−{-rounded}"


class PlayerRecord(models.Model):
    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="record"
    )
    wins = models.PositiveIntegerField(_("wins"), default=0)
    losses = models.PositiveIntegerField(_("losses"), default=0)
    draws = models.PositiveIntegerField(_("draws"), default=0)
    # Glicko-2, as of the last rated game (rated_at): the deviation grows from there with
    # the time away (see deviation_at).
    rating = models.FloatField(_("rating"), default=glicko2.INITIAL_RATING)
    deviation = models.FloatField(_("rating deviation"), default=glicko2.INITIAL_DEVIATION)
    volatility = models.FloatField(_("rating volatility"), default=glicko2.INITIAL_VOLATILITY)
    rated_games = models.PositiveIntegerField(_("rated games"), default=0)
    rated_at = models.DateTimeField(_("last rated game"), null=True, blank=True)
    # When the deviation, growing without games, passes PROVISIONAL_DEVIATION (None:
    # provisional already). Kept so that "established players by rating" is one indexed
    # query instead of a computation per player.
    established_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["-wins"]),
            models.Index(fields=["-rating"]),
            models.Index(fields=["established_until", "-rating"]),
        ]

    def __str__(self) -> str:
        return f"{self.player}: +{self.wins} −{self.losses} ={self.draws}"

    @property
    def total_games(self) -> int:
        return self.wins + self.losses + self.draws

    def glicko_at(self, when: dt.datetime) -> glicko2.Rating:
        """The rating as it stands at ``when``: its deviation grown with the time away."""
        stored = glicko2.Rating(self.rating, self.deviation, self.volatility)
        return glicko2.at(stored, periods_between(self.rated_at, when))

    def deviation_at(self, when: dt.datetime) -> float:
        return self.glicko_at(when).deviation

    def is_provisional_at(self, when: dt.datetime) -> bool:
        return self.deviation_at(when) > PROVISIONAL_DEVIATION

    @property
    def is_provisional(self) -> bool:
        return self.is_provisional_at(timezone.now())

    @property
    def rating_label(self) -> str:
        """The rating as shown: ``1512``, or ``1512?`` while provisional."""
        return rating_label(self.rating, provisional=self.is_provisional)

    @property
    def last_change_label(self) -> str:
        """The change in the last rated game (``+12``), when the query read it (the
        ranking's ``last_change``); "" otherwise."""
        change = getattr(self, "last_change", None)
        return "" if change is None else change_label(change)

    @property
    def deviation_now(self) -> int:
        return round(self.deviation_at(timezone.now()))


class RatingChange(models.Model):
    """One player's rating before and after one rated game.

    ``game_id`` is the game's number, not a key: ranking sits below games, and the
    history outlives games purged from the database.
    """

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    game_id = models.BigIntegerField()
    opponent = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    score = models.FloatField()
    rating_before = models.FloatField()
    rating_after = models.FloatField()
    deviation_after = models.FloatField()
    at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["player", "game_id"], name="one_rating_change_per_player_and_game"
            )
        ]
        indexes = [models.Index(fields=["player", "at"]), models.Index(fields=["game_id"])]

    def __str__(self) -> str:
        before, after = round(self.rating_before), round(self.rating_after)
        return f"{self.player} game {self.game_id}: {before} → {after}"

    @property
    def change(self) -> float:
        return self.rating_after - self.rating_before
