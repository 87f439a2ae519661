"""Games as PGN: one game (the page, the admin) or many (the archive's download)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from games import clock, rules
from games.models import Game, Move
from games.state.game import moves_of


def game_pgn(game: Game) -> str:
    """The whole game as PGN with the standard tags (Event, Site, Date, White, Black, …)."""
    return _pgn(game, moves_of(game).values_list("uci", flat=True))


def games_pgn(games: Iterable[Game], *, batch_size: int = 200) -> Iterator[str]:
    """Each of ``games`` (finished ones: their moves no longer change) as PGN, in order,
    for one file of many games: the moves of each batch of ``batch_size`` games are read
    in one query."""
    batch: list[Game] = []
    for game in games:
        batch.append(game)
        if len(batch) == batch_size:
            yield from _pgn_batch(batch)
            batch = []
    if batch:
        yield from _pgn_batch(batch)


def _pgn_batch(games: list[Game]) -> Iterator[str]:
    ucis: dict[int, list[str]] = {game.pk: [] for game in games}
    rows = (
        Move.objects.filter(game_id__in=list(ucis))
        .order_by("game_id", "number")
        .values_list("game_id", "uci")
    )
    for game_id, uci in rows:
        ucis[game_id].append(uci)
    for game in games:
        yield _pgn(game, ucis[game.pk])


def _pgn(game: Game, ucis: Iterable[str]) -> str:
    headers = {
        "Event": f"Ajedrez correspondence game {game.public_id}",
        "Site": game.site or "Ajedrez",
        "Date": rules.pgn_date(game.created_at),
        "Round": "-",
        "White": game.white.username,
        "Black": game.black.username,
        "TimeControl": clock.pgn_time_control(game.days_per_move),
    }
    if game.opening_eco:
        headers["ECO"] = game.opening_eco
        headers["Opening"] = game.opening_name
    if game.is_active:
        headers["Termination"] = "unterminated"
        comment = None
    else:
        headers["Termination"] = {
            rules.Termination.ABANDONMENT: "abandoned",
            rules.Termination.TIMEOUT: "time forfeit",
            rules.Termination.ABORTED: "unterminated",
        }.get(rules.Termination(game.termination), "normal")
        # PGN is an interchange format: the reason stays in English, whatever the language.
        comment = game.termination.replace("_", " ")
    return rules.pgn(
        headers, ucis, result=game.result, termination_comment=comment, start_fen=game.start_fen
    )
