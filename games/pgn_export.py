"""Many finished games as one PGN file, written as it is read, and at most
``PGN_DOWNLOADS_PER_PLAYER`` such files being written for one player at a time.

The text is the same as :func:`games.state.game_pgn` gives for each game (tags from
:func:`games.state.pgn_tags`), but written from the SAN stored with each move
(:func:`games.rules.pgn_from_sans`) instead of replaying the moves on a board, and read a
batch of games at a time: the games' ids first (one query), then per batch one query for
the games, one for their moves and two for the players' ratings (a third when a guest
played). Each batch is a self-contained piece of work (no
cursor or transaction stays open between batches), so the batches can run one by one in
a worker thread while the event loop sends what the previous ones wrote.

Under ASGI the file is an asynchronous iterator (:func:`astream`): Django reads a
synchronous one to its end before sending a byte (``StreamingHttpResponse.__aiter__``),
which is what kept a whole download in memory.

The per-player bound lives in Django's cache (Redis with ``REDIS_URL``: shared by every
process) as one key per slot, added only if absent and expiring ``SLOT_SECONDS`` after the
start of the last batch, so that a process that dies mid-download frees its slot by itself.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import cache
from django.db.models import QuerySet

from games import rules
from games.models import Game, Move
from games.state import pgn_elos, pgn_tags

# Games per batch: one query for them, one for their moves (200 plies each: 20,000 rows).
BATCH_GAMES = 100
# How long a slot outlives the start of its download's last batch: a download whose
# process died, or whose client stopped reading, no longer counts after this.
SLOT_SECONDS = 120
_ONE_BATCH_AT_A_TIME = threading.Lock()


def game_ids(games: QuerySet[Game]) -> list[int]:
    """The ids of ``games`` in their order: all the state a download keeps between
    batches."""
    return list(games.values_list("pk", flat=True))


def batch_text(ids: Sequence[int]) -> str:
    """The PGN of the games ``ids``, in that order, each followed by a blank line.

    One batch at a time in a process: downloads take turns a batch each, and the other
    requests share the interpreter with one such thread rather than with all of them
    (eight at once, each holding the GIL in turn, kept a plain request waiting seconds)."""
    with _ONE_BATCH_AT_A_TIME:
        return _batch_text(ids)


def _batch_text(ids: Sequence[int]) -> str:
    games = Game.objects.select_related(
        "white", "black", "tournament", "tournament_group"
    ).in_bulk(ids)
    moves: dict[int, list[tuple[str, str]]] = {pk: [] for pk in ids}
    rows = (
        Move.objects.filter(game_id__in=list(ids))
        .order_by("game_id", "number")
        .values_list("game_id", "uci", "san")
    )
    for game_id, uci, san in rows:
        moves[game_id].append((uci, san))
    elos = pgn_elos(list(games.values()))
    return "".join(
        _game_text(games[pk], moves[pk], elos[pk]) + "\n\n" for pk in ids if pk in games
    )


def _game_text(game: Game, moves: list[tuple[str, str]], elos: tuple[str, str]) -> str:
    headers, comment = pgn_tags(game, elos=elos)
    if all(san for _, san in moves):
        return rules.pgn_from_sans(
            headers,
            [san for _, san in moves],
            result=game.result,
            termination_comment=comment,
            start_fen=game.start_fen,
        )
    # A move stored without its SAN: replay the game, as the single game's file does.
    return rules.pgn(
        headers,
        [uci for uci, _ in moves],
        result=game.result,
        termination_comment=comment,
        start_fen=game.start_fen,
    )


def stream(games: QuerySet[Game], slot: Slot | None = None) -> Iterator[bytes]:
    """The file, a batch at a time, for a synchronous server (WSGI, the test client)."""
    try:
        ids = game_ids(games)
        for start in range(0, len(ids), BATCH_GAMES):
            if slot is not None:
                slot.extend()
            yield batch_text(ids[start : start + BATCH_GAMES]).encode()
    finally:
        if slot is not None:
            slot.release()


async def astream(games: QuerySet[Game], slot: Slot | None = None) -> AsyncIterator[bytes]:
    """The file, a batch at a time, for an asynchronous server: each batch is read and
    written in a worker thread, and sent before the next is read. When the client goes
    away Django stops reading and closes the response, which frees the slot (the view's
    response does; this generator's end does too, if it is closed first)."""
    try:
        ids = await sync_to_async(game_ids)(games)
        for start in range(0, len(ids), BATCH_GAMES):
            if slot is not None:
                await sync_to_async(slot.extend)()
            text = await sync_to_async(batch_text)(ids[start : start + BATCH_GAMES])
            yield text.encode()
    finally:
        if slot is not None:
            # Not awaited: a cancelled generator must still free its slot.
            slot.release()


# --------------------------------------------------------------------------- the bound


@dataclass(frozen=True)
class Slot:
    """One of a player's download slots, held until released or expired."""

    key: str
    token: str

    def extend(self) -> None:
        cache.touch(self.key, SLOT_SECONDS)

    def release(self) -> None:
        """Free the slot, if it is still this download's (it may have expired and been
        taken by another download since); releasing twice does nothing."""
        if cache.get(self.key) == self.token:
            cache.delete(self.key)


def take_slot(player_id: int) -> Slot | None:
    """A free download slot of ``player_id``'s, now taken; ``None`` when all are taken.
    ``PGN_DOWNLOADS_PER_PLAYER`` of 0 turns the bound off (every request gets a slot)."""
    limit = settings.PGN_DOWNLOADS_PER_PLAYER
    token = secrets.token_hex(8)
    if limit <= 0:
        return Slot(f"pgn-download:{player_id}:unbounded:{token}", token)
    for number in range(limit):
        key = f"pgn-download:{player_id}:{number}"
        if cache.add(key, token, timeout=SLOT_SECONDS):
            return Slot(key, token)
    return None
