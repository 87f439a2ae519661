"""Whether stored games replay: a read over every game, for ``manage.py check_games`` and
the admin's "Check that moves replay" action.

Each game's stored moves are played again from the starting position by
:func:`games.rules.replay`; a game is reported when a move is no move or illegal, when a
move's stored SAN or position differs from what the replay gives, when the moves go on
after the game ended, or when the game row (position, next move number, status) does not
match where its moves lead. Nothing is written: a reported game is for an administrator to
look at.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from games import rules
from games.models import Game

DEFAULT_BATCH_SIZE = 200
"""Games read per query: their moves come in the same query, so memory stays bounded."""

# Endings the service applies by itself when a move reaches them: a finished game with one
# of these terminations must have moves that reach it.
AUTOMATIC_ENDINGS = frozenset(
    {
        rules.Termination.CHECKMATE,
        rules.Termination.STALEMATE,
        rules.Termination.INSUFFICIENT_MATERIAL,
        rules.Termination.SEVENTYFIVE_MOVES,
        rules.Termination.FIVEFOLD_REPETITION,
    }
)


@dataclass(frozen=True)
class StoredMove:
    number: int
    uci: str
    san: str
    fen_after: str


@dataclass(frozen=True)
class StoredGame:
    """What the game row says, and its moves in order of number."""

    pk: int
    fen: str
    next_move_number: int
    status: str
    termination: str
    moves: Sequence[StoredMove]
    # The position before the first move (games may start from a FEN: chessirc).
    start_fen: str = rules.STARTING_FEN

    @property
    def public_id(self) -> str:
        return Game(pk=self.pk).public_id


@dataclass(frozen=True)
class GameReport:
    """One game checked: ``problems`` is empty when its moves replay to its stored state."""

    game_id: int
    public_id: str
    moves: int
    problems: tuple[str, ...]


def _ending(termination: str) -> str:
    """How a game ended, as the pages name it (``checkmate`` → "checkmate", translated)."""
    return str(Game.Termination(termination).label)


def replay_problems(game: StoredGame) -> list[str]:
    """What in ``game`` does not follow from replaying its moves; empty when all does."""
    problems: list[str] = []
    numbers = [move.number for move in game.moves]
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(
            _("the moves are not numbered 1 to %(n)d without gaps") % {"n": len(numbers)}
        )
        return problems
    final: rules.PlayedMove | None = None
    replayed = rules.replay((move.uci for move in game.moves), game.start_fen)
    for stored in game.moves:
        if final is not None and final.outcome is not None:
            problems.append(
                _("the game ended at move %(n)d (%(ending)s) but has moves after it")
                % {"n": stored.number - 1, "ending": _ending(final.outcome.termination)}
            )
            return problems
        try:
            played = next(replayed)
        except rules.MoveTextError:
            problems.append(
                _("move %(n)d (%(uci)s) is not a move") % {"n": stored.number, "uci": stored.uci}
            )
            return problems
        except rules.IllegalMoveError:
            problems.append(
                _("move %(n)d (%(uci)s) is not legal in its position")
                % {"n": stored.number, "uci": stored.uci}
            )
            return problems
        if played.san != stored.san:
            problems.append(
                _("move %(n)d is stored as %(stored)s but is %(san)s")
                % {"n": stored.number, "stored": stored.san, "san": played.san}
            )
        if played.fen_after != stored.fen_after:
            problems.append(
                _("the position stored after move %(n)d is not the one it leads to")
                % {"n": stored.number}
            )
        final = played
    reached_fen = final.fen_after if final is not None else game.start_fen
    if game.fen != reached_fen:
        problems.append(_("the game's position is not the one its moves lead to"))
    if game.next_move_number != len(game.moves) + 1:
        problems.append(
            _("the next move number is %(stored)d but the game has %(n)d moves")
            % {"stored": game.next_move_number, "n": len(game.moves)}
        )
    ending = final.outcome if final is not None else None
    if ending is not None and game.status == Game.Status.ACTIVE:
        problems.append(
            _("its moves end the game (%(ending)s) but it is still in progress")
            % {"ending": _ending(ending.termination)}
        )
    if (
        game.status == Game.Status.FINISHED
        and game.termination in AUTOMATIC_ENDINGS
        and (ending is None or ending.termination != game.termination)
    ):
        problems.append(
            _("it is recorded as ended by %(ending)s but its moves do not reach that")
            % {"ending": _ending(game.termination)}
        )
    return problems


def _stored_games(games: QuerySet[Game], batch_size: int) -> Iterator[StoredGame]:
    """``games`` with their moves, by increasing number, ``batch_size`` games per query.

    One query per batch: the games of the batch (a keyset page) joined with their moves,
    so the database never sends more than one batch and no query is made per game.
    """
    columns = (
        "pk", "fen", "next_move_number", "status", "termination", "initial_fen",
        "moves__number", "moves__uci", "moves__san", "moves__fen_after",
    )
    after = 0
    while True:
        page = games.filter(pk__gt=after).order_by("pk").values("pk")[:batch_size]
        rows = (
            Game.objects.filter(pk__in=page)
            .order_by("pk", "moves__number")
            .values_list(*columns)
        )
        count = 0
        for _pk, grouped in itertools.groupby(rows, key=lambda row: row[0]):
            group = list(grouped)
            pk, fen, next_number, status, termination, initial_fen = group[0][:6]
            moves = [StoredMove(*row[6:]) for row in group if row[6] is not None]
            yield StoredGame(
                pk, fen, next_number, status, termination, moves,
                initial_fen or rules.STARTING_FEN,
            )
            after = pk
            count += 1
        if count < batch_size:
            return


def check_games(
    games: QuerySet[Game] | None = None, *, batch_size: int = DEFAULT_BATCH_SIZE
) -> Iterator[GameReport]:
    """A report per game of ``games`` (every game by default), in order of number.

    Streams: at most ``batch_size`` games and their moves are in memory at a time.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    queryset = Game.objects.all() if games is None else games
    for stored in _stored_games(queryset, batch_size):
        yield GameReport(
            game_id=stored.pk,
            public_id=stored.public_id,
            moves=len(stored.moves),
            problems=tuple(replay_problems(stored)),
        )
