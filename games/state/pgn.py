"""Games as PGN: the tags every export writes and one game's file (the page, the admin).
The archive's file of many games is streamed by :mod:`games.pgn_export` with these tags."""

from __future__ import annotations

from collections.abc import Iterable

from games import clock, rules
from games.models import Game
from games.state.game import moves_of


def game_pgn(game: Game) -> str:
    """The whole game as PGN with the standard tags (Event, Site, Date, White, Black, …)."""
    return _pgn(game, moves_of(game).values_list("uci", flat=True))


def _pgn(game: Game, ucis: Iterable[str]) -> str:
    headers, comment = pgn_tags(game)
    return rules.pgn(
        headers, ucis, result=game.result, termination_comment=comment, start_fen=game.start_fen
    )


def pgn_tags(game: Game) -> tuple[dict[str, str], str | None]:
    """A game's PGN tags, and the comment after its last move (how it ended), as every
    PGN export writes them (the game's file here, the archive's in :mod:`games.pgn_export`)."""
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
    return headers, comment
