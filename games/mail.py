"""E-mail about notifications: what a mail says (subject, text, HTML, the links to stop
it), and the claim that keeps "your move" mail to one per game and window. The queue and
the worker's decision to send are :mod:`games.tasks`'s; this module never queues.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from accounts import time_zones
from accounts.selectors import preferences_of
from accounts.templatetags.local_time import local_datetime
from games import clock, rules, selectors
from games.mail_links import stop_token
from games.models import Game, MailedMove, Notification, NotificationKind
from games.state import notification_subject, notification_target, notification_text

# Set while notifications are made that are history rather than news (the demo's seed).
_held: ContextVar[bool] = ContextVar("ajedrez_mail_held", default=False)


@contextmanager
def held() -> Iterator[None]:
    """Queue no mail for the notifications committed inside this block.

    The demo's seed plays its games through the services, which notify as for any move:
    without this, the first ``./scripts/serve`` would mail a dozen made-up events and
    bury the console under them before anyone has played.
    """
    token = _held.set(True)
    try:
        yield
    finally:
        _held.reset(token)


def is_held() -> bool:
    """Whether the notifications committed now are history, not news (:func:`held`)."""
    return _held.get()


def site_url(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


@dataclass(frozen=True)
class Claim:
    """The outcome of claiming the "your move" mail of a game: send now (``previous``
    is what to give back if the send fails), wait until ``later``, or skip."""

    send: bool
    previous: datetime | None = None
    claimed: datetime | None = None
    later: datetime | None = None


def claim_move_mail(recipient_id: int, game_id: int, moved_at: datetime) -> Claim:
    now = timezone.now()
    window = timedelta(hours=settings.MAIL_MOVE_INTERVAL_HOURS)
    with transaction.atomic():
        row = MailedMove.objects.select_for_update().filter(
            recipient_id=recipient_id, game_id=game_id
        ).first()
        if row is None:
            try:
                with transaction.atomic():
                    MailedMove.objects.create(
                        recipient_id=recipient_id, game_id=game_id, sent_at=now
                    )
            except IntegrityError:
                # Another worker claimed it first: its mail covers this move.
                return Claim(send=False)
            return Claim(send=True, claimed=now)
        if row.sent_at >= moved_at:
            return Claim(send=False)  # a mail sent after this move told them
        if row.sent_at > now - window:
            return Claim(send=False, later=row.sent_at + window)
        previous, row.sent_at = row.sent_at, now
        row.save(update_fields=["sent_at"])
        return Claim(send=True, previous=previous, claimed=now)


def give_back(recipient_id: int, game_id: int, claim: Claim) -> None:
    """The send failed: the claim must not stop the retry (or the next move's mail)."""
    if claim.claimed is None:
        return
    mine = MailedMove.objects.filter(
        recipient_id=recipient_id, game_id=game_id, sent_at=claim.claimed
    )
    if claim.previous is None:
        mine.delete()
    else:
        mine.update(sent_at=claim.previous)


def _time_left(game: Game, now: datetime) -> str:
    if game.deadline is None or not game.is_active:
        return ""
    # A clock stopped for a vacation keeps what it had when it stopped.
    return clock.left_text(game.deadline - (game.paused_at or now))


def _deadline(game: Game) -> str:
    """When the running clock runs out, in the recipient's zone, the zone named; nothing
    while it stands still for a vacation."""
    if game.deadline is None or not game.is_active or game.paused_at is not None:
        return ""
    return local_datetime(timezone.localtime(game.deadline))


def build_message(notification: Notification) -> EmailMultiAlternatives:
    """The mail of ``notification``: subject, plain text and HTML, in the recipient's
    language (when they chose none, the one they last read the site in, else the site's)
    and time zone (UTC when they chose none), with the one-click links to stop this kind
    or all mail and the RFC 8058 headers."""
    preferences = preferences_of(notification.recipient)
    language = preferences.mail_language()
    with translation.override(language), timezone.override(time_zones.zone(preferences.time_zone)):
        return _build_message(notification)


def _build_message(notification: Notification) -> EmailMultiAlternatives:
    recipient = notification.recipient
    # The game as it stands now: one whose time ran out is over, sweep or not.
    game = None if notification.game is None else selectors.effective(notification.game)
    subject = notification_subject(notification)
    lead = notification_text(notification)
    link = site_url(
        reverse("game_detail", args=[game.pk]) if game else notification_target(notification)
    )
    stop_kind = site_url(
        reverse("mail_stop", args=[stop_token(recipient.pk, notification.kind)])
    )
    stop_all = site_url(reverse("mail_stop", args=[stop_token(recipient.pk, None)]))
    context: dict[str, Any] = {
        "subject": subject,
        "lead": lead,
        "link": link,
        "stop_kind": stop_kind,
        "stop_all": stop_all,
        "kind_label": NotificationKind(notification.kind).label,
        "recipient": recipient,
        "game": game,
        "preferences": site_url(reverse("preferences")),
    }
    if game is not None and notification.kind in {
        NotificationKind.OPPONENT_MOVED,
        NotificationKind.DRAW_OFFERED,
        NotificationKind.LOW_TIME,
        NotificationKind.GAME_OVER,
        NotificationKind.CHALLENGE_ACCEPTED,
    }:
        colour = game.colour_of(recipient.pk)
        rows = rules.diagram(game.fen, white_at_bottom=colour != rules.BLACK)
        context.update(
            board=rows,
            board_text="\n".join(
                " ".join(square.piece or "·" for square in row)
                + f"  {row[0].name[1]}"
                for row in rows
            )
            + "\n"
            + " ".join(square.name[0] for square in rows[-1]),
            last_move=game.last_move_san,
            # Only the recipient's own clock: the time they have for the step owed.
            time_left=_time_left(game, timezone.now()) if game.waits_for(recipient.pk) else "",
            deadline=_deadline(game) if game.waits_for(recipient.pk) else "",
            white=game.white.get_username(),
            black=game.black.get_username(),
        )
    text = render_to_string("mail/notification.txt", context)
    html = render_to_string("mail/notification.html", context)
    message = EmailMultiAlternatives(
        subject=f"[Ajedrez] {subject}",
        body=text,
        to=[recipient.email],
        headers={
            "List-Unsubscribe": f"<{stop_kind}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            # Not a reply address: answers go nowhere a player reads.
            "Auto-Submitted": "auto-generated",
        },
    )
    message.attach_alternative(html, "text/html")
    return message
