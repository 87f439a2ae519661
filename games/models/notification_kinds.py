"""What a player is told about (the bell, mail), and which kinds are mailed unless the
player says otherwise. Each player's switches are stored with their preferences
(``accounts.models.Preferences.mail`` and ``mail_kinds``); what the kinds are and mean is
the games' own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import models
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from accounts.models import Preferences


class NotificationKind(models.TextChoices):
    """What a player is told about (:class:`games.models.Notification`)."""

    CHALLENGE_RECEIVED = "challenge_received", _("challenge received")
    CHALLENGE_ACCEPTED = "challenge_accepted", _("challenge accepted")
    CHALLENGE_DECLINED = "challenge_declined", _("challenge declined")
    OPPONENT_MOVED = "opponent_moved", _("opponent moved")
    DRAW_OFFERED = "draw_offered", _("draw offered")
    DRAW_ANSWERED = "draw_answered", _("draw offer answered")
    GAME_OVER = "game_over", _("game over")
    LOW_TIME = "low_time", _("24 hours left on your clock")
    OPPONENT_ON_VACATION = "opponent_on_vacation", _("opponent on vacation")
    # Tournaments: a round of an event began with the player's games in it; an event
    # was called off; the player's group (or the whole event) is over.
    TOURNAMENT_STARTED = "tournament_started", _("tournament round started")
    TOURNAMENT_CANCELLED = "tournament_cancelled", _("tournament cancelled")
    TOURNAMENT_RESULT = "tournament_result", _("tournament result")


# What a correspondence player wants in the inbox: whatever awaits their action (their
# move, a challenge, a draw offer and its answer, the last 24 hours of a clock, a
# tournament's games starting) and the end of a game or of their part in a tournament.
# A declined challenge and an opponent's vacation wait for the bell.
MAILED_BY_DEFAULT = frozenset(
    {
        NotificationKind.CHALLENGE_RECEIVED,
        NotificationKind.CHALLENGE_ACCEPTED,
        NotificationKind.OPPONENT_MOVED,
        NotificationKind.DRAW_OFFERED,
        NotificationKind.DRAW_ANSWERED,
        NotificationKind.GAME_OVER,
        NotificationKind.LOW_TIME,
        NotificationKind.TOURNAMENT_STARTED,
        NotificationKind.TOURNAMENT_CANCELLED,
        NotificationKind.TOURNAMENT_RESULT,
    }
)


def mail_kind_on(preferences: Preferences, kind: str) -> bool:
    """The player's switch for ``kind`` (its default if never touched), whatever the
    switch of all mail says."""
    chosen = preferences.mail_choice(kind)
    return kind in MAILED_BY_DEFAULT if chosen is None else chosen


def wants_mail(preferences: Preferences, kind: str) -> bool:
    """Whether the player of ``preferences`` is mailed about ``kind`` as it happens. A
    player who chose the daily digest gets their moves in it instead (games.digest)."""
    if kind == NotificationKind.OPPONENT_MOVED and preferences.mail_digest:
        return False
    return preferences.mail and mail_kind_on(preferences, kind)
