"""A player's private notes on their games: written by them, read by them alone."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.types import Player
from games import errors
from games.models import Game, PrivateNote


def save_note(*, game_id: int, player: Player, text: str) -> PrivateNote | None:
    """Keep ``text`` as ``player``'s note on one of their games (in progress or not),
    replacing the one before; an empty text deletes it (returns None). Only the game's
    players have notes on it."""
    if not isinstance(text, str):
        raise errors.NoteInvalid()
    text = text.strip()
    if len(text) > PrivateNote.MAX_LENGTH or "\x00" in text:
        raise errors.NoteInvalid()
    game = Game.objects.filter(pk=game_id).only("pk", "white_id", "black_id").first()
    if game is None:
        raise errors.GameNotFound()
    if game.colour_of(player.pk) is None:
        raise errors.NotAPlayer()
    with transaction.atomic():
        if not text:
            PrivateNote.objects.filter(game_id=game_id, player=player).delete()
            return None
        note, _created = PrivateNote.objects.update_or_create(
            game_id=game_id, player=player,
            defaults={"text": text, "updated_at": timezone.now()},
        )
    return note
