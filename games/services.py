"""Every change to challenges and games: the only writer of game state.

Each service runs in one transaction, locks the rows it changes, checks the request
against the stored state, raises a :mod:`games.errors` error when it does not fit, and
publishes an event once the transaction has committed. Web views, WebSocket consumers,
the admin and the TCP gateways all call these functions.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import errors as account_errors
from accounts import selectors as account_selectors
from accounts.types import Player
from games import errors, rules, selectors
from games.events import publish_challenge_event, publish_game_event
from games.models import Challenge, Game, Move
from games.state import move_state
from ranking.services import record_result

# --------------------------------------------------------------------------- challenges


def _active_game_between(a_id: int, b_id: int) -> bool:
    return Game.objects.filter(
        Q(white_id=a_id, black_id=b_id) | Q(white_id=b_id, black_id=a_id),
        status=Game.Status.ACTIVE,
    ).exists()


def _both_active(a_id: int, b_id: int) -> bool:
    return account_selectors.players().filter(pk__in=(a_id, b_id)).count() == 2


def _refuse_pending_between(challenger_id: int, challenged_id: int) -> None:
    pending = Challenge.objects.filter(
        Q(challenger_id=challenger_id, challenged_id=challenged_id)
        | Q(challenger_id=challenged_id, challenged_id=challenger_id),
        status=Challenge.Status.PENDING,
    ).values_list("challenger_id", flat=True)
    for from_id in pending:
        if from_id == challenger_id:
            raise errors.ChallengeExists()
        raise errors.OpponentChallengedFirst()


@transaction.atomic
def challenge(*, challenger: Player, challenged: Player) -> Challenge:
    """``challenger`` invites ``challenged`` to a game (ESPOL JUEG)."""
    if challenger.pk == challenged.pk:
        raise errors.SelfChallenge()
    # Read from the database, not the caller's object: the account may have been closed
    # since the caller loaded it.
    if not _both_active(challenger.pk, challenged.pk):
        raise account_errors.UserNotFound()
    if _active_game_between(challenger.pk, challenged.pk):
        raise errors.ActiveGameExists()
    _refuse_pending_between(challenger.pk, challenged.pk)
    try:
        with transaction.atomic():
            created = Challenge.objects.create(challenger=challenger, challenged=challenged)
    except IntegrityError as exc:
        # Another request for the same pair committed between our check and our insert:
        # look again to tell the caller which of the two it was.
        _refuse_pending_between(challenger.pk, challenged.pk)
        raise errors.ChallengeExists() from exc
    publish_challenge_event(created, "challenge_created")
    return created


def _lock_pending_challenge(challenge_id: int) -> Challenge:
    try:
        found = (
            Challenge.objects.select_for_update(of=("self",))
            .select_related("challenger", "challenged")
            .get(pk=challenge_id)
        )
    except Challenge.DoesNotExist as exc:
        raise errors.ChallengeNotFound() from exc
    if found.status != Challenge.Status.PENDING:
        raise errors.ChallengeNotFound()
    return found


def _close_challenge(found: Challenge, status: str) -> Challenge:
    found.status = status
    found.decided_at = timezone.now()
    found.save(update_fields=["status", "decided_at", "game"])
    publish_challenge_event(found, f"challenge_{status}")
    return found


@transaction.atomic
def accept_challenge(*, challenge_id: int, player: Player, colour: str) -> Game:
    """The challenged ``player`` accepts, playing ``colour`` (ESPOL ACEP). Returns the game."""
    found = _lock_pending_challenge(challenge_id)
    if found.challenged_id != player.pk:
        raise errors.ChallengeNotFound()
    if colour not in (rules.WHITE, rules.BLACK):
        raise errors.InvalidColour()
    if not (found.challenger.is_active and found.challenged.is_active):
        # A challenge left over from an account closed in the meantime: no game can start.
        raise account_errors.UserNotFound()
    if colour == rules.WHITE:
        white, black = found.challenged, found.challenger
    else:
        white, black = found.challenger, found.challenged
    now = timezone.now()
    try:
        with transaction.atomic():
            game = Game.objects.create(
                white=white, black=black, created_at=now, updated_at=now, version=1
            )
    except IntegrityError as exc:
        raise errors.ActiveGameExists() from exc
    found.game = game
    _close_challenge(found, Challenge.Status.ACCEPTED)
    publish_game_event(game, "game_started")
    return game


@transaction.atomic
def decline_challenge(*, challenge_id: int, player: Player) -> Challenge:
    """The challenged ``player`` turns the challenge down."""
    found = _lock_pending_challenge(challenge_id)
    if found.challenged_id != player.pk:
        raise errors.ChallengeNotFound()
    return _close_challenge(found, Challenge.Status.DECLINED)


@transaction.atomic
def withdraw_challenge(*, challenge_id: int, player: Player) -> Challenge:
    """The ``player`` who made the challenge takes it back."""
    found = _lock_pending_challenge(challenge_id)
    if found.challenger_id != player.pk:
        raise errors.ChallengeNotFound()
    return _close_challenge(found, Challenge.Status.WITHDRAWN)


# --------------------------------------------------------------------------- games


def _lock_game(game_id: int) -> Game:
    try:
        return (
            Game.objects.select_for_update(of=("self",))
            .select_related("white", "black")
            .get(pk=game_id)
        )
    except Game.DoesNotExist as exc:
        raise errors.GameNotFound() from exc


def _colour_in(game: Game, player: Player) -> str:
    colour = game.colour_of(player.pk)
    if colour is None:
        raise errors.NotAPlayer()
    return colour


def _require_active(game: Game) -> None:
    if not game.is_active:
        raise errors.GameFinished()


def _other(colour: str) -> str:
    return rules.BLACK if colour == rules.WHITE else rules.WHITE


def _touch(game: Game, now: dt.datetime | None = None) -> None:
    game.updated_at = now or timezone.now()
    game.version += 1


def _finish(
    game: Game, outcome: rules.Outcome, now: dt.datetime, *, by: str | None = None
) -> None:
    """End ``game``; ``by`` is the colour whose action ended it (None: the board did)."""
    game.status = Game.Status.FINISHED
    game.ended_by = by or ""
    # An offer left open (a claim does not wait for it) is moot once the game is over.
    game.draw_offer_by = ""
    game.result = outcome.result
    game.termination = outcome.termination.value
    game.finished_at = now
    record_result(white_id=game.white_id, black_id=game.black_id, result=outcome.result)


def _check_move(game: Game, player: Player, move_number: int) -> None:
    """Refuse a move by ``player`` as half-move ``move_number`` that ``game`` cannot take."""
    colour = _colour_in(game, player)
    _require_active(game)
    if move_number != game.next_move_number:
        raise errors.WrongMoveNumber(expected=game.next_move_number)
    if game.colour_to_move != colour:
        raise errors.NotYourTurn()
    if game.draw_offer_by:
        raise errors.DrawOfferPending()


def _read_move(base_fen: str, history: Sequence[str], move: str) -> rules.PlayedMove:
    """``move`` played on the position ``history`` leads to, or the domain error."""
    try:
        return rules.play(base_fen, history, move)
    except rules.MoveTextError as exc:
        raise errors.InvalidMove() from exc
    except rules.AmbiguousMoveError as exc:
        raise errors.IllegalMove(
            _("“%(text)s” could be more than one move here (%(moves)s): write the one you mean.")
            % {"text": exc.text, "moves": ", ".join(exc.readings)},
            readings=list(exc.readings),
        ) from exc
    except rules.IllegalMoveError as exc:
        raise errors.IllegalMove() from exc


def preview_move(*, game_id: int, player: Player, move_number: int, move: str) -> rules.PlayedMove:
    """What ``move`` (UCI or SAN) would be if ``player`` played it now as half-move
    ``move_number``: checked as :func:`make_move` checks it, and nothing written.

    The game page shows a typed move on the board this way before the player confirms
    it; :func:`make_move` checks everything again when it is sent. The stored position
    is enough to read a move; the ``outcome`` returned leaves repetitions out.
    """
    game = selectors.game(game_id)
    _check_move(game, player, move_number)
    return _read_move(game.fen, [], move)


@transaction.atomic
def make_move(
    *,
    game_id: int,
    player: Player,
    move_number: int,
    move: str,
    reverse: bool = False,
) -> Game:
    """Play ``move`` (UCI or SAN) as half-move ``move_number`` (ESPOL JGDA); returns the game.

    ``move_number`` must be the game's next one: a stale or repeated submission is
    refused with :class:`~games.errors.WrongMoveNumber`, so a move is never applied twice.
    """
    game = _lock_game(game_id)
    _check_move(game, player, move_number)
    if rules.move_can_repeat_fivefold(game.fen):
        base_fen, history = selectors.repetition_window(game)
    else:
        # Most moves: no repetition can end the game yet, the stored position suffices.
        base_fen, history = game.fen, []
    played = _read_move(base_fen, history, move)
    now = timezone.now()
    created = Move.objects.create(
        game=game,
        number=move_number,
        uci=played.uci,
        san=played.san,
        reverse=reverse,
        fen_after=played.fen_after,
        played_at=now,
        think_seconds=max(0, int((now - (game.last_move_at or game.created_at)).total_seconds())),
    )
    game.fen = played.fen_after
    game.next_move_number = move_number + 1
    game.last_move_at = now
    game.last_move_san = played.san
    _touch(game, now)
    # The hot path: write only what a move changes (a shorter UPDATE to build and run).
    changed = ["fen", "next_move_number", "last_move_at", "last_move_san", "updated_at", "version"]
    if played.outcome is not None:
        _finish(game, played.outcome, now)
        changed += ["status", "result", "termination", "finished_at", "ended_by", "draw_offer_by"]
    game.save(update_fields=changed)
    publish_game_event(game, "move", move=move_state(created))
    return game


@transaction.atomic
def offer_draw(*, game_id: int, player: Player) -> Game:
    """``player`` offers a draw (ESPOL TBLS). Only one offer may be pending at a time."""
    game = _lock_game(game_id)
    colour = _colour_in(game, player)
    _require_active(game)
    if game.draw_offer_by:
        raise errors.DrawOfferPending()
    game.draw_offer_by = colour
    _touch(game)
    game.save()
    publish_game_event(game, "draw_offered", by=colour)
    return game


@transaction.atomic
def answer_draw(*, game_id: int, player: Player, accept: bool) -> Game:
    """``player`` accepts (the game is drawn) or declines the opponent's draw offer (RTBL)."""
    game = _lock_game(game_id)
    colour = _colour_in(game, player)
    _require_active(game)
    if game.draw_offer_by != _other(colour):
        raise errors.NoDrawOffer()
    now = timezone.now()
    game.draw_offer_by = ""
    if accept:
        _finish(game, rules.Outcome(rules.Termination.AGREEMENT, None), now, by=colour)
    _touch(game, now)
    game.save()
    publish_game_event(game, "draw_accepted" if accept else "draw_declined", by=colour)
    return game


@transaction.atomic
def resign(*, game_id: int, player: Player) -> Game:
    """``player`` resigns; the opponent wins (ESPOL REND)."""
    game = _lock_game(game_id)
    colour = _colour_in(game, player)
    _require_active(game)
    now = timezone.now()
    _finish(game, rules.Outcome(rules.Termination.RESIGNATION, _other(colour)), now, by=colour)
    _touch(game, now)
    game.save()
    publish_game_event(game, "resigned", by=colour)
    return game


@transaction.atomic
def claim_draw(*, game_id: int, player: Player) -> Game:
    """``player`` claims a draw by threefold repetition or the fifty-move rule (ESPOL FINP)."""
    game = _lock_game(game_id)
    colour = _colour_in(game, player)
    _require_active(game)
    base_fen, history = selectors.repetition_window(game)
    termination = rules.claimable_draw(base_fen, history)
    if termination is None:
        raise errors.NothingToClaim()
    now = timezone.now()
    _finish(game, rules.Outcome(termination, None), now, by=colour)
    _touch(game, now)
    game.save()
    publish_game_event(game, "draw_claimed", termination=termination.value)
    return game


@transaction.atomic
def abandon_games(*, player: Player) -> Sequence[Game]:
    """End each of ``player``'s active games as a loss for them (unsubscribe, revocation)."""
    # Challenges first: an accept running now holds its challenge row, so waiting for that
    # row here means the game it creates is committed, and found, when the games are read.
    for pending in Challenge.objects.select_for_update().filter(
        Q(challenger=player) | Q(challenged=player), status=Challenge.Status.PENDING
    ):
        _close_challenge(pending, Challenge.Status.WITHDRAWN)
    ended = []
    game_ids = list(
        Game.objects.of_player(player, status=Game.Status.ACTIVE)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    now = timezone.now()
    for game_id in game_ids:
        game = _lock_game(game_id)
        if not game.is_active:
            continue
        colour = _colour_in(game, player)
        _finish(
            game, rules.Outcome(rules.Termination.ABANDONMENT, _other(colour)), now, by=colour
        )
        _touch(game, now)
        game.save()
        publish_game_event(game, "abandoned", by=colour)
        ended.append(game)
    return ended


@transaction.atomic
def delete_finished_games(*, older_than_days: int) -> int:
    """Delete games finished more than ``older_than_days`` days ago (AdmChess maintenance).

    Active games are never touched. Returns how many games were deleted.
    """
    if older_than_days < 0:
        raise ValueError("older_than_days must not be negative")
    cutoff = timezone.now() - dt.timedelta(days=older_than_days)
    return _delete_games(Game.objects.filter(status=Game.Status.FINISHED, finished_at__lt=cutoff))


@transaction.atomic
def delete_game(*, game_id: int) -> None:
    """Delete one finished game with its moves (AdmChess). A game in progress is refused."""
    game = _lock_game(game_id)
    _require_finished(game)
    _delete_games(Game.objects.filter(pk=game.pk))


def _require_finished(game: Game) -> None:
    if game.is_active:
        raise errors.GameInProgress()


def _delete_games(games: QuerySet) -> int:
    # One UPDATE for the challenges that led to these games instead of Django's row-by-row
    # SET_NULL: the purge may take thousands of games at once.
    Challenge.objects.filter(game__in=games).update(game=None)
    _total, per_model = games.delete()
    return per_model.get("games.Game", 0)
