"""Notifications as their recipient reads them: the line of the notifications page, the
mail's subject, and where opening one leads."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy

from accounts.models import NotificationKind
from games import clock
from games.models import Game, Notification
from games.state.lists import game_url
from games.state.text import result_label


@dataclass(frozen=True)
class NotificationRow:
    """One line of the notifications page (and of the bell's list)."""

    pk: int
    kind: str
    text: str
    created_at: dt.datetime
    unread: bool
    open_url: str



def game_over_text(detail: dict[str, Any], game: str) -> str | None:
    """"You won P0000004 against bob (checkmate)." from a game-over notification's detail,
    as its recipient reads it; ``None`` for a detail written without the outcome."""
    outcome = detail.get("outcome")
    termination = detail.get("termination", "")
    names = {
        "game": game,
        "opponent": detail.get("opponent", ""),
        "how": Game.Termination(termination).label if termination else "",
    }
    if outcome == "won":
        return gettext("You won %(game)s against %(opponent)s (%(how)s).") % names
    if outcome == "lost":
        return gettext("You lost %(game)s against %(opponent)s (%(how)s).") % names
    if outcome == "drawn":
        return gettext("%(game)s against %(opponent)s was drawn (%(how)s).") % names
    if outcome == "aborted":
        return gettext("%(game)s against %(opponent)s was aborted (%(how)s).") % names
    return None


def _notification_names(notification: Notification) -> dict[str, Any]:
    """What the texts of a notification fill in: who acted (``player``, or ``name`` in
    the headlines) and the game's number."""
    actor = notification.actor
    # The actor's account deleted since: "Your opponent".
    who = actor.get_username() if actor is not None else gettext("Your opponent")
    game = notification.game.public_id if notification.game is not None else ""
    return {"player": who, "name": who, "game": game}


def notification_text(notification: Notification) -> str:
    """What the notification says, in the active language. Reads the actor, the game
    and the challenge: select them with the row."""
    detail = notification.detail or {}
    names = _notification_names(notification)
    kind = notification.kind
    if kind == NotificationKind.CHALLENGE_RECEIVED:
        names["time_control"] = clock.label(detail.get("days_per_move"))
        return gettext("%(player)s challenged you (%(time_control)s).") % names
    if kind == NotificationKind.CHALLENGE_ACCEPTED:
        return gettext("%(player)s accepted your challenge: %(game)s has started.") % names
    if kind == NotificationKind.CHALLENGE_DECLINED:
        return gettext("%(player)s declined your challenge.") % names
    if kind == NotificationKind.OPPONENT_MOVED:
        names["move"] = detail.get("san", "")
        count = int(detail.get("count", 1))
        if count > 1:
            names["count"] = count
            return gettext(
                "%(player)s played %(count)d moves in %(game)s, the last %(move)s: your move."
            ) % names
        return gettext("%(player)s played %(move)s in %(game)s: your move.") % names
    if kind == NotificationKind.DRAW_OFFERED:
        return gettext("%(player)s offers a draw in %(game)s.") % names
    if kind == NotificationKind.DRAW_ANSWERED:
        if detail.get("accepted"):
            return gettext("%(player)s accepted your draw offer in %(game)s.") % names
        return gettext("%(player)s declined your draw offer in %(game)s.") % names
    if kind == NotificationKind.GAME_OVER:
        if (text := game_over_text(detail, names["game"])) is not None:
            return text
        names["result"] = result_label(detail.get("result", ""))
        termination = detail.get("termination", "")
        names["how"] = Game.Termination(termination).label if termination else ""
        return gettext("%(game)s is over: %(result)s (%(how)s).") % names
    if kind == NotificationKind.LOW_TIME:
        return gettext("24 hours or less left on your clock in %(game)s.") % names
    if kind == NotificationKind.OPPONENT_ON_VACATION:
        return gettext(
            "%(player)s is on vacation: their clock in %(game)s stands still while it is "
            "their move."
        ) % names
    return str(notification.get_kind_display())


# The headlines of notifications (a mail's subject), by kind; a game over by outcome.
_HEADLINES: dict[str, Any] = {
    NotificationKind.OPPONENT_MOVED: gettext_lazy("Your move in %(game)s against %(name)s"),
    NotificationKind.CHALLENGE_RECEIVED: gettext_lazy("%(name)s challenges you"),
    NotificationKind.CHALLENGE_ACCEPTED: gettext_lazy("%(name)s accepted your challenge"),
    NotificationKind.CHALLENGE_DECLINED: gettext_lazy("%(name)s declined your challenge"),
    NotificationKind.DRAW_OFFERED: gettext_lazy("%(name)s offers a draw in %(game)s"),
    NotificationKind.DRAW_ANSWERED: gettext_lazy("Your draw offer in %(game)s"),
    NotificationKind.GAME_OVER: gettext_lazy("%(game)s is over"),
    NotificationKind.LOW_TIME: gettext_lazy("24 hours left in %(game)s"),
    NotificationKind.OPPONENT_ON_VACATION: gettext_lazy("%(name)s is on vacation"),
}
_GAME_OVER_HEADLINES = {
    "won": gettext_lazy("You won %(game)s"),
    "lost": gettext_lazy("You lost %(game)s"),
    "drawn": gettext_lazy("%(game)s was drawn"),
    "aborted": gettext_lazy("%(game)s was aborted"),
}


def notification_subject(notification: Notification) -> str:
    """The notification as a headline (a mail's subject); :func:`notification_text` says
    it whole. Reads the same rows."""
    headline = _HEADLINES.get(notification.kind)
    if notification.kind == NotificationKind.GAME_OVER:
        outcome = str((notification.detail or {}).get("outcome"))
        headline = _GAME_OVER_HEADLINES.get(outcome, headline)
    if headline is None:
        return str(notification.get_kind_display()).capitalize()
    return str(headline) % _notification_names(notification)


def notification_row(notification: Notification) -> NotificationRow:
    return NotificationRow(
        pk=notification.pk,
        kind=notification.kind,
        text=notification_text(notification),
        created_at=notification.created_at,
        unread=notification.read_at is None,
        open_url=reverse("notification_open", args=[notification.pk]),
    )


def notification_target(notification: Notification) -> str:
    """Where opening the notification leads: its game, or the challenges (dashboard)."""
    if notification.game_id is not None:
        return game_url(notification.game_id)
    return reverse("dashboard")
