"""Reads of challenges and games. Each returns in a bounded number of indexed queries."""

from __future__ import annotations

import datetime as dt

from django.db.models import Q, QuerySet

from accounts.types import Player
from games import errors, rules
from games.models import Challenge, Game, Move


def game(game_id: int) -> Game:
    """The game with both players loaded; :class:`~games.errors.GameNotFound` otherwise."""
    try:
        return Game.objects.select_related("white", "black").get(pk=game_id)
    except Game.DoesNotExist as exc:
        raise errors.GameNotFound() from exc


def game_for_player(game_id: int, player: Player) -> Game:
    """The game, if ``player`` plays in it; :class:`~games.errors.GameNotFound` otherwise."""
    found = game(game_id)
    if found.colour_of(player.pk) is None:
        raise errors.GameNotFound()
    return found


def games_of(player: Player, *, status: str | None = None) -> QuerySet[Game]:
    """``player``'s games, most recently changed first."""
    filters = {} if status is None else {"status": status}
    games = Game.objects.of_player(player, **filters).select_related("white", "black")
    return games.order_by("-updated_at", "-pk")


def games_changed_since(player: Player, since: dt.datetime) -> QuerySet[Game]:
    """``player``'s games created or changed after ``since``, finished ones included."""
    return games_of(player).filter(updated_at__gt=since).order_by("pk")


def moves(game_id: int, *, after: int = 0) -> QuerySet[Move]:
    """The moves of a game numbered after ``after`` (0 = all), in order."""
    return Move.objects.filter(game_id=game_id, number__gt=after).order_by("number")


def pending_challenges_to(
    player: Player, *, since: dt.datetime | None = None
) -> QuerySet[Challenge]:
    challenges = Challenge.objects.filter(
        challenged=player, status=Challenge.Status.PENDING
    ).select_related("challenger", "challenged")
    if since is not None:
        challenges = challenges.filter(created_at__gt=since)
    return challenges.order_by("created_at")


def pending_challenges_from(player: Player) -> QuerySet[Challenge]:
    return (
        Challenge.objects.filter(challenger=player, status=Challenge.Status.PENDING)
        .select_related("challenger", "challenged")
        .order_by("created_at")
    )


def pending_challenges_between(player: Player) -> QuerySet[Challenge]:
    """Every pending challenge ``player`` made or received."""
    return Challenge.objects.filter(
        Q(challenger=player) | Q(challenged=player), status=Challenge.Status.PENDING
    )


def opponents_in_active_games(player: Player) -> dict[int, int]:
    """``{opponent id: game id}`` for each of ``player``'s games in progress (one query)."""
    active = Game.objects.of_player(player, status=Game.Status.ACTIVE)
    return {
        (white_id if black_id == player.pk else black_id): game_id
        for game_id, white_id, black_id in active.values_list("pk", "white_id", "black_id")
    }


def pending_challenge(*, challenger_name: str, challenged: Player) -> Challenge:
    """The pending challenge from the player named ``challenger_name`` to ``challenged``."""
    found = (
        Challenge.objects.filter(
            challenger__username=challenger_name,
            challenged=challenged,
            status=Challenge.Status.PENDING,
        )
        .select_related("challenger", "challenged")
        .first()
    )
    if found is None:
        raise errors.ChallengeNotFound()
    return found


def game_pgn(game: Game) -> str:
    """The whole game as PGN with the standard tags (Event, Site, Date, White, Black, …)."""
    ucis = Move.objects.filter(game=game).order_by("number").values_list("uci", flat=True)
    headers = {
        "Event": f"Ajedrez correspondence game {game.public_id}",
        "Site": "Ajedrez",
        "Date": rules.pgn_date(game.created_at),
        "Round": "-",
        "White": game.white.username,
        "Black": game.black.username,
    }
    if game.is_active:
        headers["Termination"] = "unterminated"
        comment = None
    else:
        headers["Termination"] = (
            "abandoned" if game.termination == rules.Termination.ABANDONMENT else "normal"
        )
        # PGN is an interchange format: the reason stays in English, whatever the language.
        comment = game.termination.replace("_", " ")
    return rules.pgn(headers, ucis, result=game.result, termination_comment=comment)


def repetition_window(game: Game) -> tuple[str, list[str]]:
    """The moves a repetition can reach in ``game``'s current position, and where they start.

    Returns (FEN before the window, UCI moves of the window). Only moves since the last
    capture or pawn move can repeat a position, and the 75-move rule caps them at 150
    plies, so this reads at most 151 rows through the (game, number) index, however
    long the game. The services judge fivefold repetition and draw claims on it; the read
    model tells the players what they may claim from the same rows.
    """
    played = game.next_move_number - 1
    clock = rules.halfmove_clock(game.fen)
    if played == 0:
        return rules.STARTING_FEN, []
    first = max(1, played - clock)
    rows = list(
        Move.objects.filter(game_id=game.pk, number__gte=first)
        .order_by("number")
        .values_list("number", "uci", "fen_after")
    )
    if rows[0][0] == played - clock:
        # The first row is the move just before the window: its position is the base.
        base_fen, window = rows[0][2], rows[1:]
    else:
        base_fen, window = rules.STARTING_FEN, rows
    return base_fen, [uci for _, uci, _ in window]


def move_records(game_id: int, *, after: int = 0) -> list[tuple[int, str, bool]]:
    """``(number, uci, reverse)`` of the moves numbered after ``after``, in order.

    What ESPOL SPAR sends, read as tuples: a client catching up may ask for a long game,
    and building a Move object per row would cost more than the query.
    """
    return list(moves(game_id, after=after).values_list("number", "uci", "reverse"))


