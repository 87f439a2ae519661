"""Each game's chat: its players' room, and its spectators' room, which the players
cannot read while the game runs. Posting, reading, and moderation (staff delete a
message or mute a player) are here; pages, sockets and the admin call these functions.

Messages are stored as typed and escaped wherever they are shown; they are limited in
length (:data:`MAX_LENGTH`) and, per player, in rate (``CHAT_MESSAGES_PER_WINDOW`` in
``CHAT_WINDOW_SECONDS``, counted in Django's cache as subscription requests are).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet

from accounts.throttling import count_request
from accounts.types import Player
from ajedrez.core.events import publish_on_commit
from games import errors, selectors
from games.events import game_group, game_players_group
from games.models import ChatMessage, ChatMute, Game

MAX_LENGTH = 300
SHOWN = 100
Room = ChatMessage.Room


def rooms_readable(game: Game, viewer: Player) -> list[str]:
    """The rooms ``viewer`` may read: a player reads the players' room, and the
    spectators' once the game is over; anyone else reads the spectators' room."""
    if game.colour_of(viewer.pk) is not None:
        return [Room.PLAYERS] if game.is_active else [Room.PLAYERS, Room.SPECTATORS]
    return [Room.SPECTATORS]


def room_to_write(game: Game, author: Player) -> str:
    """The room ``author`` writes in: the players' for a player, else the spectators'."""
    return Room.PLAYERS if game.colour_of(author.pk) is not None else Room.SPECTATORS


def messages_for(game: Game, viewer: Player) -> dict[str, list[ChatMessage]]:
    """The last :data:`SHOWN` messages of each room ``viewer`` may read, oldest first."""
    found: dict[str, list[ChatMessage]] = {}
    for room in rooms_readable(game, viewer):
        latest: QuerySet[ChatMessage] = (
            ChatMessage.objects.filter(game=game, room=room)
            .select_related("author")
            .order_by("-created_at", "-pk")[:SHOWN]
        )
        found[room] = list(reversed(latest))
    return found


def is_muted(player: Player) -> bool:
    return ChatMute.objects.filter(player=player).exists()


def message_state(message: ChatMessage) -> dict[str, Any]:
    """A message as pages and sockets receive it (the text is escaped where shown)."""
    return {
        "id": message.pk,
        "room": message.room,
        "author": message.author.get_username(),
        "text": message.text,
        "at": message.created_at.isoformat(),
    }


def _groups(game_id: int, room: str) -> list[str]:
    """Who hears a room: the players' pages for theirs, the spectators' for theirs."""
    return [game_players_group(game_id) if room == Room.PLAYERS else game_group(game_id)]


# Invisible characters that writing needs: the zero-width joiner and non-joiner (family and
# profession emoji, Indic and Persian scripts) and the tag characters of subdivision flags.
# Every other format or control character stays out (bidirectional overrides can make a
# line read as something else).
_JOINERS = frozenset("\u200c\u200d") | frozenset(map(chr, range(0xE0020, 0xE0080)))


def is_writable(text: str) -> bool:
    """Whether ``text`` holds only what a person writes: printable characters and the
    joiners emoji and scripts need."""
    return all(char.isprintable() or char in _JOINERS for char in text)


def post_message(*, game_id: int, author: Player, text: str) -> ChatMessage:
    """``author`` writes ``text`` in the game's room for them; published after commit."""
    text = text.strip()
    if not text or len(text) > MAX_LENGTH or not is_writable(text):
        raise errors.ChatMessageInvalid()
    game = selectors.game(game_id)
    room = room_to_write(game, author)
    if is_muted(author):
        raise errors.ChatMuted()
    allowance = count_request(
        "chat",
        str(author.pk),
        limit=settings.CHAT_MESSAGES_PER_WINDOW,
        window=settings.CHAT_WINDOW_SECONDS,
    )
    if not allowance.allowed:
        raise errors.ChatRateLimited(retry_after=allowance.retry_after)
    with transaction.atomic():
        message = ChatMessage.objects.create(game=game, room=room, author=author, text=text)
        state = {"type": "chat.message", "message": message_state(message)}
        groups = _groups(game.pk, room)
        if room == Room.SPECTATORS and not game.is_active:
            groups.append(game_players_group(game.pk))  # the game is over: they read it
        publish_on_commit(groups, lambda: state)
    return message


@transaction.atomic
def delete_message(*, message_id: int) -> None:
    """Staff remove a message; the pages showing it take it away."""
    message = ChatMessage.objects.select_related("game").filter(pk=message_id).first()
    if message is None:
        return
    groups = _groups(message.game_id, message.room)
    if message.room == Room.SPECTATORS and not message.game.is_active:
        # The players read the spectators' room once the game is over, not before: while
        # it runs, even the ids of its messages stay with the spectators.
        groups.append(game_players_group(message.game_id))
    message.delete()
    publish_on_commit(groups, lambda: {"type": "chat.deleted", "id": message_id})


@transaction.atomic
def mute(*, player: Player, by: Player | None) -> None:
    """Silence ``player`` in every chat until :func:`unmute`."""
    ChatMute.objects.get_or_create(player=player, defaults={"muted_by": by})


@transaction.atomic
def unmute(*, player: Player) -> None:
    ChatMute.objects.filter(player=player).delete()
