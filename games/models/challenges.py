"""Challenges: invitations to play, at most one pending per pair of players (a database
constraint, so that two front doors racing each other cannot break it).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Greatest, Least
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import clock
from games.models.games import VALID_DAYS


class Challenge(models.Model):
    """An invitation to play; the challenged player accepts it and picks the colour."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        ACCEPTED = "accepted", _("accepted")
        DECLINED = "declined", _("declined")
        WITHDRAWN = "withdrawn", _("withdrawn")

    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent"
    )
    challenged = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_received"
    )
    created_at = models.DateTimeField(default=timezone.now)
    status = models.CharField(max_length=10, choices=Status, default=Status.PENDING)
    decided_at = models.DateTimeField(null=True, blank=True)
    game = models.OneToOneField(
        "Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="challenge"
    )
    # The game's time control: days per move (games.clock.DAYS_PER_MOVE), or None.
    days_per_move = models.PositiveSmallIntegerField(_("days per move"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=VALID_DAYS, name="challenge_days_per_move"),
            models.CheckConstraint(
                condition=~Q(challenger=models.F("challenged")), name="challenge_not_self"
            ),
            # Unordered pair: covers "one pending challenge per ordered pair" and refuses
            # a challenge to someone who already challenged you, even when both race.
            models.UniqueConstraint(
                Least("challenger", "challenged"),
                Greatest("challenger", "challenged"),
                condition=Q(status="pending"),
                name="one_pending_challenge_per_pair",
            ),
        ]
        indexes = [
            models.Index(fields=["challenged", "status", "created_at"]),
            models.Index(fields=["challenger", "status", "created_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.challenger} → {self.challenged} ({self.status})"

    @property
    def time_control_label(self) -> str:
        return clock.label(self.days_per_move)
