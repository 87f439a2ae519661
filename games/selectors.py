"""Reads of challenges and games. Each returns in a bounded number of indexed queries."""

from __future__ import annotations

import datetime as dt
from importlib import import_module

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.sessions.models import Session
from django.db.models import Exists, Q, QuerySet
from django.utils import timezone

from games import errors, rules
from games.models import Challenge, Game, Move

User = get_user_model()


def active_player(username: str) -> AbstractBaseUser:
    """The active account named ``username``; :class:`~games.errors.UserNotFound` otherwise."""
    try:
        return User.objects.get(username=username, is_active=True)
    except User.DoesNotExist as exc:
        raise errors.UserNotFound() from exc


def game(game_id: int) -> Game:
    """The game with both players loaded; :class:`~games.errors.GameNotFound` otherwise."""
    try:
        return Game.objects.select_related("white", "black").get(pk=game_id)
    except Game.DoesNotExist as exc:
        raise errors.GameNotFound() from exc


def game_for_player(game_id: int, player: AbstractBaseUser) -> Game:
    """The game, if ``player`` plays in it; :class:`~games.errors.GameNotFound` otherwise."""
    found = game(game_id)
    if found.colour_of(player.pk) is None:
        raise errors.GameNotFound()
    return found


def games_of(player: AbstractBaseUser, *, status: str | None = None) -> QuerySet[Game]:
    """``player``'s games, most recently changed first."""
    filters = {} if status is None else {"status": status}
    games = Game.objects.of_player(player, **filters).select_related("white", "black")
    return games.order_by("-updated_at", "-pk")


def games_changed_since(player: AbstractBaseUser, since: dt.datetime) -> QuerySet[Game]:
    """``player``'s games created or changed after ``since``, finished ones included."""
    return games_of(player).filter(updated_at__gt=since).order_by("pk")


def moves(game_id: int, *, after: int = 0) -> QuerySet[Move]:
    """The moves of a game numbered after ``after`` (0 = all), in order."""
    return Move.objects.filter(game_id=game_id, number__gt=after).order_by("number")


def last_move(game_id: int) -> Move | None:
    return Move.objects.filter(game_id=game_id).order_by("-number").first()


def pending_challenges_to(
    player: AbstractBaseUser, *, since: dt.datetime | None = None
) -> QuerySet[Challenge]:
    challenges = Challenge.objects.filter(
        challenged=player, status=Challenge.Status.PENDING
    ).select_related("challenger", "challenged")
    if since is not None:
        challenges = challenges.filter(created_at__gt=since)
    return challenges.order_by("created_at")


def pending_challenges_from(player: AbstractBaseUser) -> QuerySet[Challenge]:
    return (
        Challenge.objects.filter(challenger=player, status=Challenge.Status.PENDING)
        .select_related("challenger", "challenged")
        .order_by("created_at")
    )


def pending_challenge(*, challenger_name: str, challenged: AbstractBaseUser) -> Challenge:
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


def players_changed_since(since: dt.datetime, *, exclude: AbstractBaseUser) -> QuerySet:
    """Active players who joined, or whose access was restored, after ``since`` (ESPOL JAUT).

    Seed 000 keeps one date per user, "joined or status last changed"; JAUT lists the
    players whose date is later than the client's, so a reopened account reaches clients
    that synchronised before it was reopened.
    """
    return (
        User.objects.filter(
            Q(date_joined__gt=since) | Q(access_change__changed_at__gt=since), is_active=True
        )
        .exclude(pk=exclude.pk)
        .order_by("username")
    )


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


def claimable_draw(game: Game) -> str | None:
    """The draw either player could claim now (``"threefold_repetition"``,
    ``"fifty_moves"``), or ``None``; always ``None`` for a finished game.

    Reads the same window of moves as :func:`games.services.claim_draw`, so the page
    offers a claim exactly when the service would grant it (one query, ≤151 rows).
    """
    if not game.is_active or not draw_claim_possible(game.fen):
        return None
    from games.services import _repetition_window  # the claim's own window, not a copy

    base_fen, history = _repetition_window(game)
    termination = rules.claimable_draw(base_fen, history)
    return None if termination is None else termination.value


def draw_claim_possible(fen: str) -> bool:
    """Whether a draw could be claimable in ``fen`` at all, from the FEN alone.

    A position can occur a third time only 8 plies or more after the last capture or
    pawn move (and the fifty-move rule needs 100), so below 8 no moves need be read.
    """
    return rules.halfmove_clock(fen) >= rules.THREEFOLD_MIN_PLIES


def is_active_account(player_id: int) -> bool:
    """Whether the account ``player_id`` is still open: one EXISTS, no row fetched.

    The ESPOL gateway asks before every command of a logged-in connection, so that an
    account closed meanwhile loses its session at once.
    """
    return _open_account(player_id).exists()


def _open_account(player_id: int) -> QuerySet:
    return User.objects.filter(pk=player_id, is_active=True)


def is_live_session(player_id: int, session_key: str) -> bool:
    """Whether the login session ``session_key`` has not ended (logged out or expired)
    and ``player_id``'s account is still open.

    The WebSocket consumers ask before each message a socket sends. With the database
    session store this is one query (an EXISTS inside an EXISTS); other stores are asked
    through their own ``exists``.
    """
    if settings.SESSION_ENGINE != "django.contrib.sessions.backends.db":
        store = import_module(settings.SESSION_ENGINE).SessionStore()
        return store.exists(session_key) and is_active_account(player_id)
    live = Session.objects.filter(session_key=session_key, expire_date__gt=timezone.now())
    return _open_account(player_id).filter(Exists(live)).exists()


def move_records(game_id: int, *, after: int = 0) -> list[tuple[int, str, bool]]:
    """``(number, uci, reverse)`` of the moves numbered after ``after``, in order.

    What ESPOL SPAR sends, read as tuples: a client catching up may ask for a long game,
    and building a Move object per row would cost more than the query.
    """
    return list(moves(game_id, after=after).values_list("number", "uci", "reverse"))


def player_names_changed_since(since: dt.datetime, *, exclude: AbstractBaseUser) -> list[str]:
    """The user names of :func:`players_changed_since`, in the same order (ESPOL JAUT)."""
    return list(
        players_changed_since(since, exclude=exclude).values_list("username", flat=True)
    )
