"""What a player arranges ahead of time: vacations (their clocks stand still) and
conditional lines (replies ready for the opponent's next moves).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models.games import Game


class Vacation(models.Model):
    """A spell of vacation (chess.com's model): while it lasts, every clock where the
    player is to move stands still; it ends when the player ends it, or by ``ends_by``,
    when the year's allowance (``VACATION_DAYS_PER_YEAR``) is spent."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="vacations"
    )
    started_at = models.DateTimeField(_("started at"))
    ends_by = models.DateTimeField(_("ends at the latest"))
    ended_at = models.DateTimeField(_("ended at"), null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["player"], condition=Q(ended_at__isnull=True),
                name="one_vacation_at_a_time",
            ),
        ]
        indexes = [
            models.Index(fields=["player", "started_at"]),
            models.Index(
                fields=["ends_by"], condition=Q(ended_at__isnull=True), name="vacation_running"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.started_at:%Y-%m-%d} – {self.ended_at or '…'}"


class ConditionalLines(models.Model):
    """One player's conditional moves on one game ("if they play X, I reply Y, then if
    Z, W…"), waiting for the opponent's move: :mod:`games.conditional`.

    ``lines`` holds lists of UCI moves, each starting with the opponent's move due as
    half-move ``from_move`` and alternating with the owner's replies; the lines agree
    wherever they share a beginning, so they form one tree. Only the services write it;
    only its owner ever sees it.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="conditional_lines")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conditional_lines"
    )
    from_move = models.PositiveIntegerField()
    lines = models.JSONField(default=list)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="one_set_of_lines_per_player")
        ]

    def __str__(self) -> str:
        return f"{self.player} on {self.game_id}: {len(self.lines)} line(s)"
