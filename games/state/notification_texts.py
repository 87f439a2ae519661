"""Notifications as their recipient reads them: the line of the notifications page, the
mail's subject, and where opening one leads. A tournament game's notifications name its
event and round."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy, ngettext

from games import clock
from games.models import Game, Notification, NotificationKind
from games.state.event_labels import game_event_label
from games.state.lists import game_url
from games.state.text import result_label

# The notifications about a tournament rather than a game: their detail names the event.
TOURNAMENT_KINDS = frozenset(
    {
        NotificationKind.TOURNAMENT_STARTED,
        NotificationKind.TOURNAMENT_CANCELLED,
        NotificationKind.TOURNAMENT_RESULT,
    }
)


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
    """What the notification says, in the active language; about a tournament's game, the
    event and round too. Reads the actor, the game (with its tournament and group) and
    the challenge: select them with the row."""
    text = _notification_text(notification)
    if notification.game is not None and (label := game_event_label(notification.game)):
        return gettext("%(text)s (%(event)s)") % {"text": text, "event": label}
    return text


def tournament_text(kind: str, detail: dict[str, Any]) -> str:
    """What a notification about a tournament says, from its detail."""
    names = {
        "event": detail.get("name", ""),
        "round": int(detail.get("round") or 1),
        "group": int(detail.get("group") or 1),
        "count": int(detail.get("games") or 0),
        "place": detail.get("place"),
    }
    if kind == NotificationKind.TOURNAMENT_CANCELLED:
        return gettext("%(event)s was called off: too few players joined.") % names
    if kind == NotificationKind.TOURNAMENT_STARTED:
        if detail.get("final"):
            return ngettext(
                "You are in the final of %(event)s: your %(count)d game has started.",
                "You are in the final of %(event)s: your %(count)d games have started.",
                names["count"],
            ) % names
        if names["round"] > 1:
            return ngettext(
                "You go on to round %(round)d of %(event)s: your %(count)d game in group "
                "%(group)d has started.",
                "You go on to round %(round)d of %(event)s: your %(count)d games in group "
                "%(group)d have started.",
                names["count"],
            ) % names
        if int(detail.get("groups") or 1) > 1:
            return ngettext(
                "%(event)s has started: your %(count)d game in group %(group)d of round 1 "
                "is waiting.",
                "%(event)s has started: your %(count)d games in group %(group)d of round 1 "
                "are waiting.",
                names["count"],
            ) % names
        return ngettext(
            "%(event)s has started: your %(count)d game is waiting.",
            "%(event)s has started: your %(count)d games are waiting.",
            names["count"],
        ) % names
    # The result: of the event (its last round), or of the player's group.
    if names["place"] is None:
        return gettext("%(event)s is over for you: your results were annulled.") % names
    if detail.get("final"):
        return gettext("%(event)s is over: you finished in place %(place)s.") % names
    if detail.get("advanced"):
        return gettext(
            "Your group in round %(round)d of %(event)s is over: place %(place)s, you go on."
        ) % names
    return gettext(
        "Your group in round %(round)d of %(event)s is over: place %(place)s, you are out."
    ) % names


def _notification_text(notification: Notification) -> str:
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
        if detail.get("reply"):
            # The recipient's conditional reply was played at once: not their move.
            names["reply"] = detail["reply"]
            if count > 1:
                names["count"] = count
                return gettext(
                    "%(player)s played %(count)d moves in %(game)s, the last %(move)s; your "
                    "conditional move %(reply)s was played: %(player)s to move."
                ) % names
            return gettext(
                "%(player)s played %(move)s in %(game)s; your conditional move %(reply)s was "
                "played: %(player)s to move."
            ) % names
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
    if kind in TOURNAMENT_KINDS:
        return tournament_text(kind, detail)
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
    NotificationKind.TOURNAMENT_STARTED: gettext_lazy("%(event)s: your games have started"),
    NotificationKind.TOURNAMENT_CANCELLED: gettext_lazy("%(event)s was called off"),
    NotificationKind.TOURNAMENT_RESULT: gettext_lazy("%(event)s: your result"),
}
_GAME_OVER_HEADLINES = {
    "won": gettext_lazy("You won %(game)s"),
    "lost": gettext_lazy("You lost %(game)s"),
    "drawn": gettext_lazy("%(game)s was drawn"),
    "aborted": gettext_lazy("%(game)s was aborted"),
}


_REPLY_PLAYED_HEADLINE = gettext_lazy(
    "Your conditional move was played in %(game)s against %(name)s"
)


def notification_subject(notification: Notification) -> str:
    """The notification as a headline (a mail's subject); :func:`notification_text` says
    it whole. Reads the same rows."""
    headline = _HEADLINES.get(notification.kind)
    detail = notification.detail or {}
    if notification.kind == NotificationKind.GAME_OVER:
        headline = _GAME_OVER_HEADLINES.get(str(detail.get("outcome")), headline)
    elif notification.kind == NotificationKind.OPPONENT_MOVED and detail.get("reply"):
        headline = _REPLY_PLAYED_HEADLINE
    if headline is None:
        return str(notification.get_kind_display()).capitalize()
    names = _notification_names(notification)
    names["event"] = (notification.detail or {}).get("name", "")
    subject = str(headline) % names
    if notification.game is not None and (label := game_event_label(notification.game)):
        return gettext("%(text)s (%(event)s)") % {"text": subject, "event": label}
    return subject


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
    """Where opening the notification leads: its game, its tournament, or the
    challenges (dashboard)."""
    if notification.game_id is not None:
        return game_url(notification.game_id)
    tournament_id = (notification.detail or {}).get("tournament")
    if notification.kind in TOURNAMENT_KINDS and isinstance(tournament_id, int):
        return reverse("tournament_detail", args=[tournament_id])
    return reverse("dashboard")
