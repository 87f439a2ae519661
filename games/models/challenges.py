"""Challenges: invitations to play, at most one pending from one player to another (a
database constraint, so that two front doors racing each other cannot break it).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models.games import (
    SHORT_ID_LENGTH,
    VALID_DAYS,
    VALID_FISCHER,
    Colour,
    FischerClockFields,
    new_short_id,
)


class Challenge(FischerClockFields):
    """An invitation to play. Who picks the colours is the challenge's own: the
    challenged player when accepting (ESPOL's rule, seed 000's ACEP), or the challenger
    when making it (lichess's: white, black or random)."""

    class DeclineReason(models.TextChoices):
        """lichess's reasons to decline (its keys, and its texts, translated)."""

        GENERIC = "generic", _("I'm not accepting challenges at the moment.")
        LATER = "later", _("This is not the right time for me, please ask again later.")
        TOO_FAST = "tooFast", _("This time control is too fast for me, please challenge again with a slower game.")  # noqa: E501
        TOO_SLOW = "tooSlow", _("This time control is too slow for me, please challenge again with a faster game.")  # noqa: E501
        TIME_CONTROL = "timeControl", _("I'm not accepting challenges with this time control.")
        RATED = "rated", _("Please send me a rated challenge instead.")
        CASUAL = "casual", _("Please send me a casual challenge instead.")
        STANDARD = "standard", _("I'm not accepting variant challenges right now.")
        VARIANT = "variant", _("I'm not willing to play this variant right now.")
        NO_BOT = "noBot", _("I'm not accepting challenges from bots.")
        ONLY_BOT = "onlyBot", _("I'm only accepting challenges from bots.")

    class ColourChoice(models.TextChoices):
        ACCEPTOR = "acceptor", _("the challenged player chooses")
        WHITE = "white", _("the challenger plays white")
        BLACK = "black", _("the challenger plays black")
        RANDOM = "random", _("colours drawn at random")

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        ACCEPTED = "accepted", _("accepted")
        DECLINED = "declined", _("declined")
        WITHDRAWN = "withdrawn", _("withdrawn")

    # Its id at the lichess API; the game it starts takes the same.
    short_id = models.CharField(
        _("id"), max_length=SHORT_ID_LENGTH, unique=True, default=new_short_id, editable=False
    )
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
    # The game's time control: days per move (games.clock.DAYS_PER_MOVE), a Fischer
    # clock (FischerClockFields), or neither.
    days_per_move = models.PositiveSmallIntegerField(_("days per move"), null=True, blank=True)
    colour_choice = models.CharField(
        _("who picks the colours"),
        max_length=8,
        choices=ColourChoice,
        default=ColourChoice.ACCEPTOR,
    )
    # Whether the game it starts counts in the ratings. The web and ESPOL make rated
    # challenges; the lichess API makes them unrated unless asked (lichess's default).
    rated = models.BooleanField(_("rated"), default=True)
    # Why the challenged player declined, as lichess's key ("later", "tooSlow"…; ""
    # when declined without a reason, or not declined): games.state.lichess says it.
    decline_reason = models.CharField(_("reason declined"), max_length=20, blank=True, default="")
    # The challenger's colour once the challenger chose ("" while the challenged player
    # picks): drawn when the challenge is made for "random", so every door shows the
    # same colours before the game starts.
    challenger_colour = models.CharField(
        _("challenger's colour"), max_length=5, choices=Colour, blank=True, default=""
    )

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=VALID_DAYS, name="challenge_days_per_move"),
            models.CheckConstraint(condition=VALID_FISCHER, name="challenge_fischer_clock"),
            models.CheckConstraint(
                condition=~Q(challenger=models.F("challenged")), name="challenge_not_self"
            ),
            # The challenger's colour is set exactly when the challenger chose.
            models.CheckConstraint(
                condition=(Q(colour_choice="acceptor") & Q(challenger_colour=""))
                | (~Q(colour_choice="acceptor") & Q(challenger_colour__in=["white", "black"])),
                name="challenge_colour_set_by_its_chooser",
            ),
            # One pending challenge from a player to another: ESPOL's ACEP names the
            # challenge it accepts by its challenger alone. Whether a challenge back to
            # someone who challenged you may wait beside theirs depends on the games the
            # pair may still start (the site rules): the service decides it, under a lock
            # on both players.
            models.UniqueConstraint(
                fields=["challenger", "challenged"],
                condition=Q(status="pending"),
                name="one_pending_challenge_per_ordered_pair",
            ),
        ]
        indexes = [
            models.Index(fields=["challenged", "status", "created_at"]),
            models.Index(fields=["challenger", "status", "created_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.challenger} → {self.challenged} ({self.status})"

    @property
    def challenged_colour(self) -> str:
        """The challenged player's colour when the challenger chose it, else ""."""
        if not self.challenger_colour:
            return ""
        return Colour.BLACK if self.challenger_colour == Colour.WHITE else Colour.WHITE
