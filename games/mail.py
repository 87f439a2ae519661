"""E-mail about notifications: queued after the commit that saved one, sent by the task
worker, outside any request and any write transaction.

When :data:`games.signals.notification_created` arrives (after the commit), a task is
enqueued for the notification if it could be mailed now (:func:`queue_mail`: an address,
the kind wanted, the player not on the site). The worker then decides again with
what holds at that moment, since minutes or hours may have passed (:func:`deliver`):
the notification and its game still exist; the recipient has an address and wants this
kind; they have not read it; they are not on the site (a socket open:
:mod:`accounts.presence`); and for a move, it is still their move and no "your move" mail
went out for this game in the last ``MAIL_MOVE_INTERVAL_HOURS`` (a later move waits for
the window's end rather than being lost). A send that fails is tried again with a
doubling delay, each failure logged; after ``MAIL_SEND_ATTEMPTS`` it is logged as an
error and the task is kept as failed (the admin's task results). Nothing here can fail a
move: the move committed before any of it ran.
"""

from __future__ import annotations

import logging
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

from accounts import presence
from accounts.mail_links import stop_token
from accounts.models import NotificationKind
from accounts.selectors import preferences_of
from games import clock, rules
from games.models import Game, MailedMove, Notification
from games.state import notification_subject, notification_text

logger = logging.getLogger("ajedrez.mail")

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


class MailNotSent(Exception):
    """Every attempt to send a notification's mail failed."""


def site_url(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def queue_mail(sender: Any, notification: Notification, **kwargs: Any) -> None:
    """Receiver of ``notification_created`` (after the commit): queue its mail.

    A task is a write (on SQLite, a second turn at the one write lock for every move), so
    it is queued only for a mail that could be sent now: a recipient with an address, who
    wants this kind and is not on the site. These are reads; :func:`deliver` checks them
    again when it runs, with the rest. A player on the site when the news came has seen
    it: no mail is queued for it later either. A queue that cannot be written is logged,
    never raised: the action that notified has committed.
    """
    from games.tasks import send_notification_mail

    if _held.get():
        return
    try:
        recipient = notification.recipient
        if (
            not recipient.email
            or not preferences_of(recipient).wants_mail(notification.kind)
            or notification.read_at is not None
            or presence.is_online(recipient.pk)
        ):
            return
    except Exception:
        # A failing read (the cache down) must not lose the mail: queue it, and let
        # the worker decide.
        logger.exception("could not check the mail of notification %s", notification.pk)
    try:
        send_notification_mail.enqueue(notification.pk)
    except Exception:
        logger.exception("could not queue the mail of notification %s", notification.pk)


@dataclass(frozen=True)
class Claim:
    """The outcome of claiming the "your move" mail of a game: send now (``previous``
    is what to give back if the send fails), wait until ``later``, or skip."""

    send: bool
    previous: datetime | None = None
    claimed: datetime | None = None
    later: datetime | None = None


def _claim_move_mail(recipient_id: int, game_id: int, moved_at: datetime) -> Claim:
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


def _give_back(recipient_id: int, game_id: int, claim: Claim) -> None:
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


def deliver(notification_id: int, *, attempt: int = 1) -> str:
    """Send the mail of a notification if it still should go; says what was done."""
    from games.tasks import send_notification_mail

    notification = (
        Notification.objects.select_related(
            "recipient", "actor", "game", "game__white", "game__black", "challenge"
        )
        .filter(pk=notification_id)
        .first()
    )
    if notification is None:
        return "skipped: the notification is gone (its game or challenge was deleted)"
    recipient = notification.recipient
    if not recipient.is_active or not recipient.email:
        return "skipped: no address"
    kind = notification.kind
    if not preferences_of(recipient).wants_mail(kind):
        return "skipped: not wanted"
    if notification.read_at is not None:
        return "skipped: already read"
    if presence.is_online(recipient.pk):
        return "skipped: on the site"
    claim = None
    game = notification.game
    if kind == NotificationKind.OPPONENT_MOVED:
        if game is None or not game.waits_for(recipient.pk):
            return "skipped: no longer their move"
        claim = _claim_move_mail(recipient.pk, game.pk, notification.created_at)
        if claim.later is not None:
            send_notification_mail.using(run_after=claim.later).enqueue(
                notification_id, attempt=attempt
            )
            return f"batched: waits until {claim.later.isoformat()}"
        if not claim.send:
            return "skipped: already mailed about this move"
    message = build_message(notification)
    try:
        message.send()
    except Exception as exc:
        if claim is not None and game is not None:
            _give_back(recipient.pk, game.pk, claim)
        if attempt >= settings.MAIL_SEND_ATTEMPTS:
            logger.error(
                "mail of notification %s to %s not sent after %d attempts, given up: %r",
                notification_id, recipient.email, attempt, exc,
            )
            raise MailNotSent(f"given up after {attempt} attempts: {exc!r}") from exc
        delay = settings.MAIL_RETRY_SECONDS * 2 ** (attempt - 1)
        retry_at = timezone.now() + timedelta(seconds=delay)
        logger.warning(
            "mail of notification %s to %s failed (attempt %d of %d), retrying at %s: %r",
            notification_id, recipient.email, attempt, settings.MAIL_SEND_ATTEMPTS,
            retry_at.isoformat(), exc,
        )
        send_notification_mail.using(run_after=retry_at).enqueue(
            notification_id, attempt=attempt + 1
        )
        return f"failed (attempt {attempt}), retrying at {retry_at.isoformat()}: {exc!r}"
    logger.info("mailed notification %s (%s) to %s", notification_id, kind, recipient.email)
    return "sent"


def _time_left(game: Game, now: datetime) -> str:
    if game.deadline is None or not game.is_active:
        return ""
    # A clock stopped for a vacation keeps what it had when it stopped.
    return clock.left_text(game.deadline - (game.paused_at or now))


def build_message(notification: Notification) -> EmailMultiAlternatives:
    """The mail of ``notification``: subject, plain text and HTML, in the recipient's
    language (the site's when they chose none), with the one-click links to stop this
    kind or all mail and the RFC 8058 headers."""
    language = preferences_of(notification.recipient).language or settings.LANGUAGE_CODE
    with translation.override(language):
        return _build_message(notification)


def _build_message(notification: Notification) -> EmailMultiAlternatives:
    recipient = notification.recipient
    game = notification.game
    subject = notification_subject(notification)
    lead = notification_text(notification)
    link = site_url(reverse("game_detail", args=[game.pk]) if game else reverse("dashboard"))
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
