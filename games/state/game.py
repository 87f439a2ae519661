"""A game as live clients see it: its state, clock, moves, legal destinations, the draw
that may be claimed, both ratings, and the snapshot a page draws from."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from games import clock, conditional, rules, selectors
from games.models import Challenge, Game, Move
from games.state.text import result_label
from ranking import selectors as ranking_selectors
from ranking.models import change_label, rating_label
from ranking.rating_rules import PROVISIONAL_DEVIATION


def game_ratings(game: Game) -> dict[str, Any]:
    """Each player's rating beside the game: for a game in progress, as it stands now;
    for a finished rated game, as that game left it, with its change (``+12``); ``rated``
    says whether the game changed ratings at all (false for a game in progress)."""
    changes = {} if game.is_active else ranking_selectors.game_rating_changes(game.pk)
    records = ranking_selectors.records_of([game.white_id, game.black_id])
    # Why a finished game changes no rating: it was imported, a gateway's guest played
    # (such games never count), or it ended before both players moved. A rated game
    # whose time ran out has no change yet until the sweep ends it: ratings as they
    # stand, the change to come.
    why_unrated = None
    if not game.is_active and not changes:
        if game.imported_by_id is not None:
            why_unrated = "imported"
        elif not game.rated:
            why_unrated = "guest"
        elif not rules.both_sides_have_moved(
            start_fen=game.start_fen, plies=game.next_move_number - 1
        ):
            why_unrated = "early"
    sides: dict[str, Any] = {"rated": bool(changes), "why_unrated": why_unrated}
    for colour, player_id in ((rules.WHITE, game.white_id), (rules.BLACK, game.black_id)):
        if not game.rated:
            # A guest has no rating, and a registered player's is not at stake here.
            sides[colour] = {"rating": "", "change": None}
            continue
        change = changes.get(player_id)
        if change is not None:
            provisional = change.deviation_after > PROVISIONAL_DEVIATION
            label = rating_label(change.rating_after, provisional=provisional)
            sides[colour] = {"rating": label, "change": change_label(change.change)}
        else:
            sides[colour] = {"rating": records[player_id].rating_label, "change": None}
    return sides


def vacation_state(game: Game) -> dict[str, bool]:
    """Which of the game's players are on vacation now (one indexed query): pages mark
    them, and the vacation's start and end are events of each of their games."""
    away = game.away_when_read
    if away is None:
        away = frozenset(selectors.on_vacation([game.white_id, game.black_id]))
    return {rules.WHITE: game.white_id in away, rules.BLACK: game.black_id in away}


def fullmove_number(fen: str) -> int:
    """The chess move number of the move to play in ``fen`` (its sixth field)."""
    return int(fen.split(" ")[5])


def game_state(game: Game) -> dict[str, Any]:
    """The game as live clients see it (no moves: they come one by one)."""
    return {
        "id": game.pk,
        "public_id": game.public_id,
        "short_id": game.short_id,
        "white": game.white.username,
        "black": game.black.username,
        "status": game.status,
        "result": game.result,
        "result_label": result_label(game.result),
        "termination": game.termination,
        "ended_by": game.ended_by or None,
        "draw_offer_by": game.draw_offer_by or None,
        "fen": game.fen,
        "initial_fen": game.start_fen,
        "turn": game.colour_to_move,
        "next_move_number": game.next_move_number,
        # The chess move number of the move to play (the FEN's): a game begun from a
        # position may start at any number, with either side to move.
        "move_number": fullmove_number(game.fen),
        "version": game.version,
        "updated_at": game.updated_at.isoformat(),
        "clock": clock_state(game),
    }


def clock_state(game: Game) -> dict[str, Any]:
    """The game's time control and, while it runs, whose clock and until when (UTC):
    pages count down to ``deadline`` themselves and show it in the reader's own time."""
    running = game.is_active and game.deadline is not None
    paused = running and game.paused_at is not None
    left = None
    if paused and game.deadline is not None and game.paused_at is not None:
        left = max(0, int((game.deadline - game.paused_at).total_seconds()))
    fischer = game.fischer
    banks = None
    if fischer is not None:
        now = timezone.now()
        banks = {
            colour: int(bank.total_seconds())
            for colour in (rules.WHITE, rules.BLACK)
            if (bank := clock.bank_of(game, colour, now)) is not None
        }
    return {
        "days_per_move": game.days_per_move,
        # A Fischer clock's days (None without one), and what each side's bank holds
        # now, in whole seconds: the side on the clock counts down to ``deadline``.
        "fischer": (
            {
                "base_days": fischer.base_days,
                "increment_days": fischer.increment_days,
                "cap_days": fischer.cap_days,
            }
            if fischer is not None
            else None
        ),
        "banks": banks,
        "label": game.time_control_label,
        "deadline": game.deadline.isoformat() if running and not paused and game.deadline else None,
        "colour": game.colour_on_clock if running else None,
        # The player on the clock is on vacation: it stands still with this much left.
        "paused": paused,
        "paused_left_seconds": left,
    }


def move_state(move: Move) -> dict[str, Any]:
    # ``number`` counts half-moves from the game's start; ``colour`` and ``move_number``
    # are the chess ones, read from the position after the move, since a game started
    # from a FEN (chessirc) may begin with Black to move or at any move number.
    side_after, fullmove_after = move.fen_after.split(" ")[1], int(move.fen_after.split(" ")[5])
    colour = rules.BLACK if side_after == "w" else rules.WHITE
    return {
        "number": move.number,
        "colour": colour,
        "move_number": fullmove_after - 1 if colour == rules.BLACK else fullmove_after,
        "uci": move.uci,
        "san": move.san,
        "fen_after": move.fen_after,
        "played_at": move.played_at.isoformat(),
        "think_seconds": move.think_seconds,
        "reverse": move.reverse,
    }


def challenge_state(challenge: Challenge) -> dict[str, Any]:
    return {
        "id": challenge.pk,
        "short_id": challenge.short_id,
        "challenger": challenge.challenger.username,
        "challenged": challenge.challenged.username,
        "status": challenge.status,
        "days_per_move": challenge.days_per_move,
        "time_control": challenge.time_control_label,
        # Who picks the colours, and the challenger's when they chose ("" otherwise).
        "colour_choice": challenge.colour_choice,
        "challenger_colour": challenge.challenger_colour,
        "created_at": challenge.created_at.isoformat(),
        "game_id": challenge.game_id,
    }


def destinations(game: Game) -> dict[str, list[str]]:
    """Legal destinations per origin square (``{"e2": ["e3", "e4"]}``); none once finished."""
    return rules.legal_moves(game.fen) if game.is_active else {}


def claimable_draw(game: Game) -> str | None:
    """The draw either player could claim now (``"threefold_repetition"``,
    ``"fifty_moves"``), or ``None``; always ``None`` for a finished game.

    Reads the same window of moves as :func:`games.services.claim_draw`, so a page
    offers a claim exactly when the service would grant it. Most positions need no
    query: a third occurrence needs 8 plies since the last capture or pawn move.
    """
    if not game.is_active or rules.halfmove_clock(game.fen) < rules.THREEFOLD_MIN_PLIES:
        return None
    base_fen, history = selectors.repetition_window(game)
    termination = rules.claimable_draw(base_fen, history)
    return None if termination is None else termination.value


def moves_of(game: Game, *, after: int = 0) -> QuerySet[Move]:
    """The moves of ``game`` after ``after`` up to its last as ``game`` holds it: a move
    committed since ``game`` was read belongs to the next version, not to this one."""
    return selectors.moves(game.pk, after=after, until=game.next_move_number - 1)


def snapshot(game: Game, *, viewer_id: int | None, after: int = 0) -> dict[str, Any]:
    """What a page needs to draw the game: its state, the moves after ``after``, the
    legal destinations, both ratings, who is on vacation and, for its players, the draw
    they may claim and their conditional moves. Pages and sockets
    receive this same shape, so a page has one way to apply it."""
    is_player = viewer_id is not None and game.colour_of(viewer_id) is not None
    return {
        "type": "snapshot",
        "version": game.version,
        "game": game_state(game),
        "after": after,
        "moves": [move_state(m) for m in moves_of(game, after=after)],
        "dests": destinations(game),
        "claimable": claimable_draw(game) if is_player else None,
        "ratings": game_ratings(game),
        "away": vacation_state(game),
        # Sent to each viewer alone (pages, the state view, a socket's own snapshot):
        # a player's own lines, never anyone else's.
        "conditional": conditional_state(game, viewer_id=viewer_id) if is_player else None,
    }


def conditional_state(game: Game, *, viewer_id: int | None) -> dict[str, Any] | None:
    """The viewer's own conditional moves on ``game`` (:mod:`games.conditional`), each
    move in UCI and SAN; ``None`` for anyone but a player of the game in progress. Lines
    are private: nothing else in the read model, and no event, ever carries them."""
    if viewer_id is None or not game.is_active or game.colour_of(viewer_id) is None:
        return None
    found = conditional.lines_of(game, game.white if viewer_id == game.white_id else game.black)
    lines = [] if found is None else found.lines
    return {
        "move_number": game.next_move_number,
        "lines": [conditional.line_moves(game.fen, line) for line in lines],
        "max_lines": conditional.MAX_LINES,
        "max_plies": conditional.MAX_PLIES,
    }
