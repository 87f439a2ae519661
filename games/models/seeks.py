"""Open challenges (seeks): a game offered to anyone, in the lobby, until someone takes
it or its maker cancels it. Kept apart from :class:`~games.models.Challenge`, which
always names the player challenged: a seek names nobody until it is taken, and then its
game is the one record of who took it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import clock
from games.models.games import SHORT_ID_LENGTH, VALID_DAYS, new_short_id

# The lowest and highest rating a range may name: wide enough for any Glicko-2 rating.
RATING_FLOOR = 0
RATING_CEILING = 4000
NAME_MAX_LENGTH = 100


class Seek(models.Model):
    """A game anyone may accept: days per move, the maker's colour, rated or not, and
    the acceptor's rating range (either end open)."""

    class MakerColour(models.TextChoices):
        WHITE = "white", _("white")
        BLACK = "black", _("black")
        RANDOM = "random", _("random")

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        TAKEN = "taken", _("taken")
        CANCELLED = "cancelled", _("cancelled")

    # Its id at the lichess API (and in its join address); the game it starts takes it.
    short_id = models.CharField(
        _("id"), max_length=SHORT_ID_LENGTH, unique=True, default=new_short_id, editable=False
    )
    maker = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seeks"
    )
    days_per_move = models.PositiveSmallIntegerField(_("days per move"), null=True, blank=True)
    colour = models.CharField(
        _("maker's colour"), max_length=6, choices=MakerColour, default=MakerColour.RANDOM
    )
    rated = models.BooleanField(_("rated"), default=True)
    rating_min = models.PositiveSmallIntegerField(_("lowest rating"), null=True, blank=True)
    rating_max = models.PositiveSmallIntegerField(_("highest rating"), null=True, blank=True)
    # The lichess API's open challenge's ``name``, shown with it.
    name = models.CharField(_("name"), max_length=NAME_MAX_LENGTH, blank=True, default="")
    status = models.CharField(max_length=9, choices=Status, default=Status.OPEN)
    created_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)
    game = models.OneToOneField(
        "Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="seek"
    )

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=VALID_DAYS, name="seek_days_per_move"),
            models.CheckConstraint(
                condition=Q(rating_min__isnull=True)
                | Q(rating_max__isnull=True)
                | Q(rating_min__lte=F("rating_max")),
                name="seek_rating_range_in_order",
            ),
        ]
        indexes = [
            models.Index(fields=["status", "created_at"]),
            models.Index(fields=["maker", "status"]),
        ]

    def __str__(self) -> str:
        return f"{self.maker} seeks ({self.status})"

    @property
    def time_control_label(self) -> str:
        return clock.label(self.days_per_move)

    def admits(self, rating: float) -> bool:
        """Whether a player rated ``rating`` (rounded, as shown) is within the range."""
        shown = round(rating)
        if self.rating_min is not None and shown < self.rating_min:
            return False
        return self.rating_max is None or shown <= self.rating_max
