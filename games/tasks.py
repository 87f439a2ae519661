"""The mail queue of the games app (django-tasks, database backend): which notifications
get a mail task, and the task itself, run by the worker thread of ``manage.py serve`` or by
``manage.py db_worker``, outside any request and any write transaction.

When :data:`games.signals.notification_created` arrives (after the commit), a task is
enqueued for the notification if it could be mailed now (:func:`queue_mail`: an address,
the kind wanted, the player not on the site). The worker then decides again with what
holds at that moment, since minutes or hours may have passed (:func:`deliver`): the
notification and its game still exist; the recipient has an address and wants this kind;
they have not read it; they are not on the site (a socket open: :mod:`accounts.presence`);
and for a move, it is still their move and no "your move" mail went out for this game in
the last ``MAIL_MOVE_INTERVAL_HOURS`` (a later move waits for the window's end rather
than being lost). A send that fails is tried again with a doubling delay, each failure
logged; after ``MAIL_SEND_ATTEMPTS`` it is logged as an error and the task is kept as
failed (the admin's task results). Nothing here can fail a move: the move committed
before any of it ran. What a mail says is :mod:`games.mail`'s.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone
from django_tasks import task

from accounts import presence
from accounts.selectors import preferences_of
from games import mail, selectors
from games.models import Notification, NotificationKind, wants_mail

logger = logging.getLogger("ajedrez.mail")


@task(queue_name="mail")
def send_notification_mail(notification_id: int, attempt: int = 1) -> str:
    """Mail one notification to its recipient, if it still should be (:func:`deliver`)."""
    return deliver(notification_id, attempt=attempt)


class MailNotSent(Exception):
    """Every attempt to send a notification's mail failed."""


def queue_mail(sender: Any, notification: Notification, **kwargs: Any) -> None:
    """Receiver of ``notification_created`` (after the commit): queue its mail.

    A task is a write (on SQLite, a second turn at the one write lock for every move), so
    it is queued only for a mail that could be sent now: a recipient with an address, who
    wants this kind and is not on the site. These are reads; :func:`deliver` checks them
    again when it runs, with the rest. A player on the site when the news came has seen
    it: no mail is queued for it later either. A queue that cannot be written is logged,
    never raised: the action that notified has committed.
    """
    if mail.is_held():
        return
    if notification.kind == NotificationKind.OPPONENT_MOVED and (notification.detail or {}).get(
        "reply"
    ):
        # The recipient's conditional reply was played at once: the game waits for the
        # opponent, so there is no "your move" to mail (the bell tells it).
        return
    try:
        recipient = notification.recipient
        if (
            not recipient.email
            or not wants_mail(preferences_of(recipient), notification.kind)
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


def deliver(notification_id: int, *, attempt: int = 1) -> str:
    """Send the mail of a notification if it still should go; says what was done."""
    notification = (
        Notification.objects.select_related(
            "recipient", "actor", "game", "game__white", "game__black", "challenge",
            "game__tournament", "game__tournament_group",
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
    if not wants_mail(preferences_of(recipient), kind):
        return "skipped: not wanted"
    if notification.read_at is not None:
        return "skipped: already read"
    if presence.is_online(recipient.pk):
        return "skipped: on the site"
    claim = None
    # The game as it stands now: one whose time ran out is over, sweep or not.
    game = None if notification.game is None else selectors.effective(notification.game)
    if kind == NotificationKind.OPPONENT_MOVED:
        if game is None or not game.waits_for(recipient.pk):
            return "skipped: no longer their move"
        claim = mail.claim_move_mail(recipient.pk, game.pk, notification.created_at)
        if claim.later is not None:
            send_notification_mail.using(run_after=claim.later).enqueue(
                notification_id, attempt=attempt
            )
            return f"batched: waits until {claim.later.isoformat()}"
        if not claim.send:
            return "skipped: already mailed about this move"
    message = mail.build_message(notification)
    try:
        message.send()
    except Exception as exc:
        if claim is not None and game is not None:
            mail.give_back(recipient.pk, game.pk, claim)
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
