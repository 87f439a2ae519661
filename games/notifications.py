"""In-app notifications (the bell): written by the services, inside their transaction.

:func:`notify` saves the row; after the commit the recipient's pages are told the new
unread count (group ``player-<id>``, the socket the dashboard and the tab title already
use) and :data:`games.signals.notification_created` is sent, for whoever acts on a
notification elsewhere (e-mail). A write that rolls back tells nobody anything.

Guests of the gateways (``accounts.GuestIdentity``) and closed accounts are never
notified: no door shows them a bell, and nothing could reach them.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from typing import Any

from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts import presence
from accounts.models import GuestIdentity
from accounts.types import Player
from ajedrez.core.events import send_to_groups
from games.models import Challenge, Game, Notification, NotificationKind
from games.signals import notification_created

logger = logging.getLogger(__name__)

# Kinds of which one unread row per (recipient, game) is enough: the next move updates
# it (lichess shows "opponent moved" once, however many moves wait).
COLLAPSING = frozenset({NotificationKind.OPPONENT_MOVED})
# Spelt out in the conflict target as in the constraint's index: SQLite takes a partial
# index as the target only when the WHERE is the index's own, term for term in order.
_COLLAPSING_KIND = NotificationKind.OPPONENT_MOVED.value


def unread_of(player_id: int) -> QuerySet[Notification]:
    return Notification.objects.filter(recipient_id=player_id, read_at__isnull=True)


def unread_count(player_id: int) -> int:
    return unread_of(player_id).count()


def count_message(player_id: int, about: Notification | None = None) -> dict[str, Any]:
    """What a player's pages are sent when their unread count changes; ``about``: the
    notification that changed it, whose id and game let the page of that very game,
    open before the player's eyes, mark it read at once."""
    message: dict[str, Any] = {"type": "notifications.count", "unread": unread_count(player_id)}
    if about is not None:
        message.update(id=about.pk, game=about.game_id)
    return message


def _can_be_notified(recipient: Player) -> bool:
    if not recipient.is_active:
        return False
    # A guest's user name is always "name@gateway" (accounts.models.guest_username):
    # without an "@" the recipient is no guest, and a move costs no query to say so.
    if "@" not in recipient.get_username():
        return True
    return not GuestIdentity.objects.filter(player_id=recipient.pk).exists()


def notify(
    *,
    recipient: Player,
    kind: str,
    game: Game | None = None,
    challenge: Challenge | None = None,
    actor: Player | None = None,
    detail: dict[str, Any] | None = None,
    read: bool = False,
) -> Notification | None:
    """Tell ``recipient`` about ``kind`` (an :class:`accounts.models.NotificationKind`);
    ``None`` when they are not notified at all (a guest, a closed account). ``read``: it
    is already known to them (their own act): kept in their list, but no news, so no
    count is pushed and nothing is mailed.

    Called by the services inside their transaction: the live count and the signal go out
    after it commits.
    """
    kind = NotificationKind(kind)
    if not _can_be_notified(recipient):
        return None
    now = timezone.now()
    collapsed = False
    if kind == _COLLAPSING_KIND and game is not None and challenge is None and not read:
        notification, collapsed = _insert_or_collapse(recipient, kind, game, actor, detail, now)
    else:
        notification = Notification.objects.create(
            recipient=recipient,
            kind=kind,
            game=game,
            challenge=challenge,
            actor=actor,
            detail=detail or {},
            created_at=now,
            read_at=now if read else None,
        )
    if not read:
        _announce_on_commit(notification, collapsed=collapsed)
    return notification


# The JSON of an updated row: the new move's detail, with ``count`` the moves the row now
# tells of (what it told, 1 when unsaid, plus what the new detail tells).
_COLLAPSED_DETAIL = {
    "sqlite": (
        "json_set(excluded.detail, '$.count',"
        " COALESCE(json_extract(n.detail, '$.count'), 1)"
        " + COALESCE(json_extract(excluded.detail, '$.count'), 1))"
    ),
    "postgresql": (
        "jsonb_set(excluded.detail, '{count}', to_jsonb("
        "COALESCE((n.detail ->> 'count')::integer, 1)"
        " + COALESCE((excluded.detail ->> 'count')::integer, 1)))"
    ),
}


def _insert_or_collapse(
    recipient: Player,
    kind: str,
    game: Game,
    actor: Player | None,
    detail: dict[str, Any] | None,
    now: dt.datetime,
) -> tuple[Notification, bool]:
    """The unread ``kind`` of ``recipient`` on ``game``: a new row, or the one already
    unread updated (actor, time, detail with the moves added up), in one statement on
    both databases. The partial unique constraint ``one_unread_collapsing_per_game`` is
    the conflict that makes it an update. Returns the row and whether it was updated."""
    table = connection.ops.quote_name(Notification._meta.db_table)
    stored_detail = Notification._meta.get_field("detail")
    value = stored_detail.get_db_prep_value(detail or {}, connection)
    sql = f"""
        INSERT INTO {table} AS n
            (recipient_id, kind, game_id, challenge_id, actor_id, detail, created_at, read_at)
        VALUES (%s, %s, %s, NULL, %s, %s, %s, NULL)
        ON CONFLICT (recipient_id, game_id) WHERE kind = '{_COLLAPSING_KIND}' AND read_at IS NULL
        DO UPDATE SET actor_id = excluded.actor_id, created_at = excluded.created_at,
            detail = {_COLLAPSED_DETAIL[connection.vendor]}
        RETURNING id, detail"""
    actor_id = None if actor is None else actor.pk
    with connection.cursor() as cursor:
        cursor.execute(sql, [recipient.pk, kind, game.pk, actor_id, value, now])
        pk, stored = cursor.fetchone()
    # PostgreSQL's driver reads jsonb as Python values; SQLite returns the text.
    stored = stored if isinstance(stored, dict) else json.loads(stored)
    added = int((detail or {}).get("count", 1))
    # A row already unread told of one move at least: the count grew past the new one's.
    collapsed = int(stored.get("count", 1)) > added
    notification = Notification(
        pk=pk, recipient=recipient, kind=kind, game=game, actor=actor, detail=stored,
        created_at=now,
    )
    notification._state.adding = False
    notification._state.db = connection.alias
    return notification, collapsed


def _announce_on_commit(notification: Notification, *, collapsed: bool) -> None:
    def announce() -> None:
        publish_count(notification.recipient_id, about=notification)
        # Receivers' failures are logged, never raised: the write has committed, and an
        # exception from a commit hook would reach the caller as if it had not.
        for receiver, result in notification_created.send_robust(
            sender=Notification, notification=notification, collapsed=collapsed
        ):
            if isinstance(result, Exception):
                logger.error(
                    "notification_created receiver %r failed",
                    receiver,
                    exc_info=(type(result), result, result.__traceback__),
                )

    transaction.on_commit(announce)


def publish_count(player_id: int, about: Notification | None = None) -> None:
    """Send the player's pages their unread count now (callers run this after commit).
    Nothing, not even the count's query, when no page of theirs is open (presence): each
    page shows the count it was rendered with and reads it again when its socket comes
    back, so a correspondence move to a player away from the site costs no COUNT."""
    from games.events import player_group

    if not presence.is_online(player_id):
        return
    try:
        message = count_message(player_id, about)
    except Exception:
        logger.exception("could not count the notifications of %s", player_id)
        return
    send_to_groups([player_group(player_id)], message)


def publish_count_on_commit(player_id: int) -> None:
    transaction.on_commit(lambda: publish_count(player_id))


def mark_read(player_id: int, **about: Any) -> int:
    """Mark ``player_id``'s unread notifications matching ``about`` (``game_id=``,
    ``challenge_id=``, ``pk=``; nothing: all) read; the count goes out after the commit.
    Returns how many were marked: marking again marks none and sends nothing.

    Looked for first with a read: every game page a player opens marks, and most have
    nothing unread; an UPDATE matching no row still takes SQLite's write lock."""
    unread = unread_of(player_id).filter(**about)
    if not unread.exists():
        return 0
    marked = unread.update(read_at=timezone.now())
    if marked:
        publish_count_on_commit(player_id)
    return marked


def withdraw_unread(player_id: int, **about: Any) -> int:
    """Delete ``player_id``'s unread notifications matching ``about`` (news taken back
    before it was read, such as a withdrawn challenge); the count goes out after the
    commit. A mail queued for one finds it gone and is not sent."""
    unread = unread_of(player_id).filter(**about)
    if not unread.exists():
        return 0
    deleted, _ = unread.delete()
    if deleted:
        publish_count_on_commit(player_id)
    return deleted


def delete_old_read(*, older_than_days: int, batch_size: int = 5000) -> int:
    """Delete the notifications read more than ``older_than_days`` days ago (unread ones
    stay, however old); returns how many. In short batches through the
    ``notification_read`` index, so a first purge of a large table holds no long lock."""
    if older_than_days < 0:
        raise ValueError("older_than_days must not be negative")
    cutoff = timezone.now() - dt.timedelta(days=older_than_days)
    deleted = 0
    while True:
        ids = list(
            Notification.objects.filter(read_at__lt=cutoff).values_list("pk", flat=True)[
                :batch_size
            ]
        )
        if not ids:
            return deleted
        count, _ = Notification.objects.filter(pk__in=ids).delete()
        deleted += count
