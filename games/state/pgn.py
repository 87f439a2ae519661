"""Games as PGN: the tags every export writes and one game's file (the page, the admin).
The archive's file of many games is streamed by :mod:`games.pgn_export` with these tags."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from accounts import selectors as account_selectors
from games import clock, rules
from games.models import Game
from games.state.analysis import note_of, pgn_annotations
from games.state.event_labels import pgn_round
from games.state.game import moves_of
from ranking import selectors as ranking_selectors

# PGN standard 9.1.2: the rating tags of a player without a rating (a gateway's guest).
UNRATED_PLAYER = "-"


def game_pgn(
    game: Game, *, viewer_id: int | None = None, options: PgnOptions | None = None
) -> str:
    """The whole game as PGN with the standard tags (Event, Site, Date, White, Black, …);
    once its computer analysis is done, each move's evaluation (``[%eval …]``) and marks
    (NAGs, lichess's ``?!``, ``?``, ``??``); for a player of the game (``viewer_id``), their
    private note as the comment before the first move. ``options``: what an export leaves
    out (the lichess API's flags); everything by default."""
    options = options or PgnOptions()
    return pgn_of(
        game,
        moves_of(game).values_list("uci", flat=True),
        annotations=(pgn_annotations(game) or ()) if options.evals else (),
        game_comment=note_of(game, viewer_id) or None,
        options=options,
    )


@dataclass(frozen=True)
class PgnOptions:
    """What a PGN export writes (the lichess API's ``tags``, ``moves``, ``evals``,
    ``opening``)."""

    tags: bool = True
    moves: bool = True
    evals: bool = True
    opening: bool = True


def pgn_of(
    game: Game,
    ucis: Iterable[str],
    *,
    annotations: Sequence[tuple[str | None, int | None]] = (),
    game_comment: str | None = None,
    elos: tuple[str, str] | None = None,
    options: PgnOptions | None = None,
) -> str:
    """``game``'s PGN from its moves ``ucis`` and the ``annotations`` after them (one
    game's file here, many in the lichess API's export of a player's games)."""
    options = options or PgnOptions()
    headers, comment = pgn_tags(game, elos=elos if elos is not None else pgn_elos([game])[game.pk])
    if not options.opening:
        headers.pop("Opening", None)
    return rules.pgn(
        headers, ucis if options.moves else (), result=game.result,
        termination_comment=comment if options.moves else None,
        start_fen=game.start_fen, annotations=annotations, game_comment=game_comment,
        with_tags=options.tags,
    )


def pgn_elos(games: Sequence[Game]) -> dict[int, tuple[str, str]]:
    """Each game's ``WhiteElo`` and ``BlackElo`` by game id: the rating each player's game
    was rated from (stored with its rating change), else the player's rating now (a game
    in progress, or one whose change is not written yet); ``-`` for a gateway's guest,
    who has no rating (PGN standard 9.1.2). Three queries at most, however many games."""
    before = ranking_selectors.ratings_before_games(g.pk for g in games)
    players = {p for g in games for p in (g.white_id, g.black_id)}
    records = ranking_selectors.records_of(players)
    # Only a game with a guest in it is unrated: ask about those games' players alone.
    guests = account_selectors.guests_among(
        {p for g in games if not g.rated for p in (g.white_id, g.black_id)}
    )

    def elo(game: Game, player_id: int) -> str:
        if player_id in guests:
            return UNRATED_PLAYER
        rating = before.get((game.pk, player_id), records[player_id].rating)
        return str(round(rating))

    return {g.pk: (elo(g, g.white_id), elo(g, g.black_id)) for g in games}


def pgn_tags(
    game: Game, *, elos: tuple[str, str] | None = None
) -> tuple[dict[str, str], str | None]:
    """A game's PGN tags, and the comment after its last move (how it ended), as every
    PGN export writes them (the game's file here, the archive's and an event's in
    :mod:`games.pgn_export`). ``elos``: the players' rating tags (:func:`pgn_elos`), read
    here when not given. Reads a tournament game's event and group: select them."""
    white_elo, black_elo = elos if elos is not None else pgn_elos([game])[game.pk]
    tournament = game.tournament if game.tournament_id is not None else None
    headers = {
        # A tournament's game names its event and round (event_labels.pgn_round).
        "Event": tournament.name if tournament else (
            f"Ajedrez correspondence game {game.public_id}"
        ),
        "Site": game.site or "Ajedrez",
        "Date": rules.pgn_date(game.created_at),
        "Round": pgn_round(game),
        "White": game.white.username,
        "Black": game.black.username,
        "WhiteElo": white_elo,
        "BlackElo": black_elo,
        # Correspondence in the standard's moves/seconds form (9.6.1): "1/259200" is one
        # move in three days, as chess.com writes its daily games; "-" without a clock.
        "TimeControl": (
            clock.pgn_fischer_time_control(fischer)
            if (fischer := game.fischer) is not None
            else clock.pgn_time_control(game.days_per_move)
        ),
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
