"""Games as the lichess API exports them (``GET /game/export/{id}``, ``GET
/api/games/user/{username}``): lichess's ``GameJson`` or PGN, with what the request's
flags ask for (the moves, the tags, the engine's analysis, the opening, the last
position). One game or a page of a player's games, read in a bounded number of queries
per page; reads only.

The PGN is the site's own (:func:`games.state.pgn.pgn_of`), with the analysis as the
site writes it (:func:`games.state.analysis.pgn_annotations`); the JSON analysis is
:mod:`games.state.lichess_analysis`'s. A game in progress carries no engine data.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet

from accounts.types import Player
from games import selectors
from games.models import Game, GameAnalysis, Move
from games.state import lichess_analysis
from games.state.analysis import pgn_annotations
from games.state.lichess import game_json
from games.state.lichess_reads import people
from games.state.pgn import PgnOptions, pgn_elos, pgn_of


@dataclass(frozen=True)
class ExportOptions:
    """lichess's export flags, as far as they apply here (``clocks`` does not: a
    correspondence game keeps no clock per move)."""

    moves: bool = True
    pgn_in_json: bool = False
    tags: bool = True
    evals: bool = True
    accuracy: bool = False
    opening: bool = True
    last_fen: bool = False

    @property
    def pgn(self) -> PgnOptions:
        return PgnOptions(tags=self.tags, moves=self.moves, evals=self.evals, opening=self.opening)

    @property
    def engine(self) -> bool:
        return self.evals or self.accuracy


@dataclass(frozen=True)
class UserGamesFilter:
    """``GET /api/games/user/{username}``'s filters: ``created_since``/``created_until``
    (inclusive), the opponent, rated or not, the player's colour, finished and ongoing
    games, the order (oldest first with ``ascending``)."""

    since: dt.datetime | None = None
    until: dt.datetime | None = None
    opponent_id: int | None = None
    opponent_unknown: bool = False
    rated: bool | None = None
    colour: str = ""
    finished: bool = True
    ongoing: bool = False
    ascending: bool = False


# --------------------------------------------------------------------------- pages


def user_games(player: Player, wanted: UserGamesFilter) -> QuerySet[Game]:
    """``player``'s games matching ``wanted``, by creation (and id) in the order asked:
    games as :func:`games.selectors.effective` shows them."""
    if wanted.opponent_unknown or not (wanted.finished or wanted.ongoing):
        return Game.objects.none()
    if wanted.finished and wanted.ongoing:
        games = selectors.games_of(player)
    else:
        games = selectors.games_of(
            player, status=Game.Status.FINISHED if wanted.finished else Game.Status.ACTIVE
        )
    if wanted.since is not None:
        games = games.filter(created_at__gte=wanted.since)
    if wanted.until is not None:
        games = games.filter(created_at__lte=wanted.until)
    if wanted.opponent_id is not None:
        games = games.filter(Q(white_id=wanted.opponent_id) | Q(black_id=wanted.opponent_id))
    if wanted.rated is not None:
        games = games.filter(rated=wanted.rated)
    if wanted.colour == "white":
        games = games.filter(white=player)
    elif wanted.colour == "black":
        games = games.filter(black=player)
    order = ("created_at", "pk") if wanted.ascending else ("-created_at", "-pk")
    return games.select_related("tournament", "tournament_group").order_by(*order)


def page_after(
    games: QuerySet[Game], last: Game | None, *, ascending: bool, size: int
) -> list[Game]:
    """The next ``size`` of ``games`` after ``last`` (keyset: no offset to walk, and
    nothing kept between pages but the last game)."""
    if last is not None:
        if ascending:
            later = Q(created_at__gt=last.created_at) | Q(
                created_at=last.created_at, pk__gt=last.pk
            )
        else:
            later = Q(created_at__lt=last.created_at) | Q(
                created_at=last.created_at, pk__lt=last.pk
            )
        games = games.filter(later)
    return list(games[:size])


# --------------------------------------------------------------------------- what a page says


def _moves_of(games: list[Game]) -> dict[int, list[tuple[str, str]]]:
    """Each game's moves (UCI, SAN) up to its last as read (one query)."""
    found: dict[int, list[tuple[str, str]]] = defaultdict(list)
    if not games:
        return found
    last = {game.pk: game.next_move_number - 1 for game in games}
    rows = (
        Move.objects.filter(game_id__in=list(last))
        .order_by("game_id", "number")
        .values_list("game_id", "number", "uci", "san")
    )
    for game_id, number, uci, san in rows:
        if number <= last[game_id]:
            found[game_id].append((uci, san))
    return found


def _done_analyses(games: list[Game], options: ExportOptions) -> dict[int, GameAnalysis]:
    """The done analyses of the finished ``games`` (one query; none without the flags)."""
    finished = [game.pk for game in games if not game.is_active]
    if not options.engine or not finished:
        return {}
    done = GameAnalysis.objects.filter(game_id__in=finished, status=GameAnalysis.Status.DONE)
    return {analysis.game_id: analysis for analysis in done}


def pgn_texts(games: list[Game], options: ExportOptions) -> list[str]:
    """``games`` as PGN, each as the site's export writes it, with the flags' options."""
    moves = _moves_of(games)
    elos = pgn_elos(games)
    analysed = _done_analyses(games, options)
    texts = []
    for game in games:
        annotations = (pgn_annotations(game) or ()) if game.pk in analysed else ()
        texts.append(
            pgn_of(
                game,
                [uci for uci, _san in moves[game.pk]],
                annotations=annotations if options.evals else (),
                elos=elos[game.pk],
                options=options.pgn,
            )
        )
    return texts


def json_lines(games: list[Game], options: ExportOptions) -> list[dict[str, Any]]:
    """``games`` as lichess's ``GameJson``, with the flags' options."""
    moves = _moves_of(games)
    named = people([p for game in games for p in (game.white, game.black)])
    elos = pgn_elos(games) if options.pgn_in_json else {}
    analysed = _done_analyses(games, options)
    lines = []
    for game in games:
        pgn = None
        if options.pgn_in_json:
            annotations = (pgn_annotations(game) or ()) if game.pk in analysed else ()
            pgn = pgn_of(
                game,
                [uci for uci, _san in moves[game.pk]],
                annotations=annotations if options.evals else (),
                elos=elos[game.pk],
                options=options.pgn,
            )
        lines.append(
            _json(game, [san for _uci, san in moves[game.pk]], named, options, pgn,
                  analysed.get(game.pk))
        )
    return lines


def _json(
    game: Game,
    sans: list[str],
    named: Any,
    options: ExportOptions,
    pgn: str | None,
    analysis: GameAnalysis | None,
) -> dict[str, Any]:
    exported = (
        lichess_analysis.exported_analysis(game, analysis)
        if analysis is not None and options.engine
        else None
    )
    return game_json(
        game,
        sans if options.moves else None,
        named,
        pgn=pgn,
        opening=options.opening,
        last_fen=options.last_fen,
        analysis=(
            lichess_analysis.move_analysis(exported.points)
            if exported is not None and options.evals
            else None
        ),
        player_analysis=(
            lichess_analysis.player_analysis(
                game, exported, evals=options.evals, accuracy=options.accuracy
            )
            if exported is not None
            else None
        ),
    )


def game_export_json(game: Game, options: ExportOptions) -> dict[str, Any]:
    """One game (``GET /game/export/{id}``) as ``GameJson``."""
    return json_lines([game], options)[0]


def game_export_pgn(game: Game, options: ExportOptions) -> str:
    """One game (``GET /game/export/{id}``) as PGN."""
    return pgn_texts([game], options)[0]
