"""Every change to challenges and games: the only writer of game state.

Each service runs in one transaction, locks the rows it changes, checks the request
against the stored state, raises a :mod:`games.errors` error when it does not fit, and
publishes an event once the transaction has committed. Web views, WebSocket consumers,
the admin and the TCP gateways all call these functions.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
from collections.abc import Callable, Sequence
from typing import ParamSpec, TypeVar

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import errors as account_errors
from accounts import selectors as account_selectors
from accounts.models import NotificationKind
from accounts.types import Player
from games import clock, conditional, errors, openings, rules, selectors
from games.events import publish_challenge_event, publish_game_event
from games.models import Challenge, ConditionalLines, Game, Move, Vacation
from games.notifications import mark_read, notify
from games.state import move_state, outcome_for
from ranking.rating_rules import is_rated
from ranking.services import record_result

logger = logging.getLogger("games.clock")
User = get_user_model()

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
def challenge(
    *, challenger: Player, challenged: Player, days_per_move: int | None = None
) -> Challenge:
    """``challenger`` invites ``challenged`` to a game (ESPOL JUEG), with
    ``days_per_move`` per move (one of :data:`games.clock.DAYS_PER_MOVE`) or no clock."""
    if not clock.is_valid_days(days_per_move):
        raise errors.InvalidTimeControl()
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
            created = Challenge.objects.create(
                challenger=challenger, challenged=challenged, days_per_move=days_per_move
            )
    except IntegrityError as exc:
        # Another request for the same pair committed between our check and our insert:
        # look again to tell the caller which of the two it was.
        _refuse_pending_between(challenger.pk, challenged.pk)
        raise errors.ChallengeExists() from exc
    publish_challenge_event(created, "challenge_created")
    notify(
        recipient=challenged,
        kind=NotificationKind.CHALLENGE_RECEIVED,
        challenge=created,
        actor=challenger,
        detail={"days_per_move": days_per_move},
    )
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
    # Whatever became of it, the challenge no longer waits for its challenged player.
    mark_read(found.challenged_id, challenge_id=found.pk)
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
    game = _create_game(white=white, black=black, days_per_move=found.days_per_move)
    found.game = game
    _close_challenge(found, Challenge.Status.ACCEPTED)
    publish_game_event(game, "game_started")
    notify(
        recipient=found.challenger,
        kind=NotificationKind.CHALLENGE_ACCEPTED,
        game=game,
        challenge=found,
        actor=player,
        detail={"colour": _other(colour)},
    )
    return game


def _create_game(
    *, white: Player, black: Player, days_per_move: int | None, **fields: object
) -> Game:
    """A new game in progress between ``white`` and ``black``, its clock started (and
    stopped at once if the player to move is on vacation). The one place a game is
    created, for challenges and for gateways alike."""
    now = timezone.now()
    try:
        # A savepoint: the pair's one-active-game constraint fails here, not the caller's
        # whole transaction.
        with transaction.atomic():
            game = Game.objects.create(
                white=white,
                black=black,
                created_at=now,
                updated_at=now,
                version=1,
                days_per_move=days_per_move,
                deadline=clock.deadline_after(now, days_per_move),
                **fields,
            )
    except IntegrityError as exc:
        raise errors.ActiveGameExists() from exc
    if _pause_for_vacation(game, now):
        game.save(update_fields=["paused_at"])
    return game


@transaction.atomic
def start_gateway_game(
    *,
    white: Player,
    black: Player,
    initial_fen: str = "",
    site: str = "",
    days_per_move: int | None = None,
) -> Game:
    """Start a game between two players a gateway paired as they arrived (seed 001's
    ``#`` protocol, seed 004's IRC sessions), without a challenge: they asked for a game
    by registering. Unrated when either is a guest (``docs/protocols/guests.md``).

    ``initial_fen``: a position to start from instead of the standard one (chessirc's
    START); ``site``: where it is played (an IRC channel), for the PGN;
    ``days_per_move``: the clock both asked for (one of :data:`games.clock.DAYS_PER_MOVE`,
    or none).
    """
    if not clock.is_valid_days(days_per_move):
        raise errors.InvalidTimeControl()
    if white.pk == black.pk:
        raise errors.SelfChallenge()
    fen = rules.STARTING_FEN
    if initial_fen:
        try:
            fen = rules.starting_position(initial_fen)
        except rules.InvalidPositionError as exc:
            raise errors.InvalidPosition() from exc
    if User.objects.filter(pk__in=(white.pk, black.pk), is_active=True).count() != 2:
        raise account_errors.UserNotFound()
    rated = not (account_selectors.is_guest(white.pk) or account_selectors.is_guest(black.pk))
    game = _create_game(
        white=white,
        black=black,
        days_per_move=days_per_move,
        rated=rated,
        fen=fen,
        initial_fen="" if fen == rules.STARTING_FEN else fen,
        site=site[:60],
    )
    publish_game_event(game, "game_started")
    return game


@transaction.atomic
def decline_challenge(*, challenge_id: int, player: Player) -> Challenge:
    """The challenged ``player`` turns the challenge down."""
    found = _lock_pending_challenge(challenge_id)
    if found.challenged_id != player.pk:
        raise errors.ChallengeNotFound()
    _close_challenge(found, Challenge.Status.DECLINED)
    notify(
        recipient=found.challenger,
        kind=NotificationKind.CHALLENGE_DECLINED,
        challenge=found,
        actor=player,
    )
    return found


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


class _TimeRanOut(Exception):
    """The locked game's deadline has passed: it must end on time, not take the request.

    Raised inside the service's transaction, which rolls back; :func:`_on_the_clock`
    then ends the game in a transaction of its own and refuses the request."""


def _is_due(game: Game, now: dt.datetime | None = None) -> bool:
    return (
        game.is_active
        and game.deadline is not None
        and game.paused_at is None
        and game.deadline <= (now or timezone.now())
    )


def _require_active(game: Game) -> None:
    if not game.is_active:
        raise errors.GameFinished()
    if _is_due(game):
        raise _TimeRanOut()


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _on_the_clock(service: Callable[_P, _R]) -> Callable[_P, _R]:
    """Let ``service`` (called with ``game_id=``) end a game whose time has run out.

    The request is refused as on a finished game: no move, offer or resignation counts
    once the deadline has passed, whether or not the sweep has come by yet.
    """

    @functools.wraps(service)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return service(*args, **kwargs)
        except _TimeRanOut:
            game_id = kwargs["game_id"]
            assert isinstance(game_id, int)
            expire_game(game_id=game_id)
            raise errors.GameFinished(_("Time ran out: the game is over.")) from None

    return run


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
    _stop_clock(game)
    ConditionalLines.objects.filter(game=game).delete()
    # A game with a gateway's guest counts nowhere; one that ended before both players
    # moved counts as played but moves no rating (ranking.rating_rules.is_rated).
    if game.rated:
        record_result(
            white_id=game.white_id,
            black_id=game.black_id,
            result=outcome.result,
            game_id=game.pk,
            at=now,
            rated=is_rated(game.next_move_number - 1),
        )


def _check_move(
    game: Game, player: Player, move_number: int, *, withdraws_offer: bool = False
) -> None:
    """Refuse a move by ``player`` as half-move ``move_number`` that ``game`` cannot take."""
    colour = _colour_in(game, player)
    _require_active(game)
    if move_number != game.next_move_number:
        raise errors.WrongMoveNumber(expected=game.next_move_number)
    if game.colour_to_move != colour:
        raise errors.NotYourTurn()
    if game.draw_offer_by and not (withdraws_offer and game.draw_offer_by == colour):
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


def _read_move_on(game: Game, move: str) -> rules.PlayedMove:
    """``move`` played on ``game``'s position, with the moves a repetition needs."""
    if rules.move_can_repeat_fivefold(game.fen):
        base_fen, history = selectors.repetition_window(game)
    else:
        # Most moves: no repetition can end the game yet, the stored position suffices.
        base_fen, history = game.fen, []
    return _read_move(base_fen, history, move)


def _claim(game: Game) -> None:
    """Lock ``game``'s row if it is still at the version it was read at (:class:`_Conflict`
    if not): the UPDATE takes the row lock on PostgreSQL, waiting for one held, and then
    sees the latest version; on SQLite the transaction holds the write lock already."""
    if not Game.objects.filter(pk=game.pk, version=game.version).update(version=game.version):
        raise _Conflict()


@_on_the_clock
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


class _Conflict(Exception):
    """The game changed between the read that checked a move and the transaction that
    was to write it: :func:`make_move` plays the move again on the locked game."""


@_on_the_clock
def make_move(
    *,
    game_id: int,
    player: Player,
    move_number: int | None,
    move: str,
    reverse: bool = False,
    withdraws_offer: bool = False,
) -> Game:
    """Play ``move`` (UCI or SAN) as half-move ``move_number`` (ESPOL JGDA); returns the game.

    ``move_number`` must be the game's next one: a stale or repeated submission is
    refused with :class:`~games.errors.WrongMoveNumber`, so a move is never applied twice.
    ``None`` plays it as the next move, whichever that is when the game is read: for the
    protocols whose clients send no number (chessirc, distribuido), where a repeated
    submission is refused as not the player's turn.
    ``withdraws_offer``: the player's own pending draw offer is withdrawn by the move
    (chessirc's rule, where the player to move offers); otherwise a pending offer refuses
    every move.

    When the opponent has a conditional line starting with this move, their reply is
    played too, as their own ordinary move in this transaction (:mod:`games.conditional`);
    the game returned is after it.

    The move is read and checked first, outside any transaction (python-chess, the
    repetition window, the opening: most of a move's work), then written in a short
    transaction that first claims the game row at the version it was checked against
    (:func:`_play`). On SQLite every write transaction holds the database's one write
    lock, so the checking no longer makes the other writers wait. When the game changed
    in between, or the read found the move illegal, the move is played as it was before:
    on the game locked from the start of the transaction, which gives the answer.
    """
    checked = _check_before_writing(game_id, player, move_number, move, withdraws_offer)
    if checked is not None:
        game, number, played = checked
        try:
            with transaction.atomic():
                uci = _play(game, player, number, move, reverse, withdraws_offer, checked=played)
                _play_conditional_replies(game, uci)
            return game
        except _Conflict:
            pass
    return _make_move_locked(
        game_id=game_id,
        player=player,
        move_number=move_number,
        move=move,
        reverse=reverse,
        withdraws_offer=withdraws_offer,
    )


def _check_before_writing(
    game_id: int, player: Player, move_number: int | None, move: str, withdraws_offer: bool
) -> tuple[Game, int, rules.PlayedMove] | None:
    """The game as read now, the move's number and ``move`` checked on it, for
    :func:`_play` to write if the game is still unchanged then; ``None``: play it on the
    locked game instead.

    A refusal that the game row alone decides (no such game, not a player, finished,
    time run out, stale number, not their turn, a draw offer pending) is given at once:
    the row is one consistent read, so it is the answer a locked read would have given
    a moment earlier, and a stale submission costs no write transaction. A move found
    illegal is judged again under the lock, since the repetition window it was read
    with is a second read, which may have seen a later move than the row.
    """
    try:
        game = Game.objects.select_related("white", "black").get(pk=game_id)
    except Game.DoesNotExist as exc:
        raise errors.GameNotFound() from exc
    number = game.next_move_number if move_number is None else move_number
    _check_move(game, player, number, withdraws_offer=withdraws_offer)
    try:
        return game, number, _read_move_on(game, move)
    except errors.DomainError:
        return None


@transaction.atomic
def _make_move_locked(
    *,
    game_id: int,
    player: Player,
    move_number: int | None,
    move: str,
    reverse: bool,
    withdraws_offer: bool,
) -> Game:
    game = _lock_game(game_id)
    number = game.next_move_number if move_number is None else move_number
    played = _play(game, player, number, move, reverse, withdraws_offer)
    _play_conditional_replies(game, played)
    return game


def _play_conditional_replies(game: Game, played: str) -> None:
    """The opponent's conditional reply to ``played``, if one of their lines starts with
    it: an ordinary move of theirs, in this transaction, on the game it holds. A reply
    no longer legal is not played."""
    while (reply := _conditional_reply(game, played)) is not None:
        owner, uci = reply
        try:
            played = _play(game, owner, game.next_move_number, uci, conditional_reply=True)
        except errors.DomainError:
            logger.warning("conditional reply %s refused in game %s", uci, game.pk)
            ConditionalLines.objects.filter(game=game, player=owner).delete()
            break


def _conditional_reply(game: Game, played_uci: str) -> tuple[Player, str] | None:
    """The player to move, and the reply their lines give to ``played_uci``, the move
    just played on the locked ``game``; their lines kept with what follows the reply, or
    dropped when none starts with the move. ``None``: nothing to play.

    A pending draw offer suspends the lines: they are kept and nothing is played until
    it is answered. (A move withdraws its player's own offer and no other move is let
    through while one is pending, so this guards the rule rather than a case the move
    path reaches today.)
    """
    if not game.is_active or game.draw_offer_by:
        return None
    owner = game.white if game.colour_to_move == rules.WHITE else game.black
    found = ConditionalLines.objects.filter(game=game, player=owner).first()
    if found is None:
        return None
    reply: str | None = None
    rest: list[list[str]] = []
    if found.from_move == game.next_move_number - 1:
        reply, rest = conditional.answer(found.lines, played_uci)
    if rest:
        found.lines, found.from_move = rest, game.next_move_number + 1
        found.save(update_fields=["lines", "from_move"])
    else:
        found.delete()
    return None if reply is None else (owner, reply)


def _play(
    game: Game,
    player: Player,
    move_number: int,
    move: str,
    reverse: bool = False,
    withdraws_offer: bool = False,
    *,
    checked: rules.PlayedMove | None = None,
    conditional_reply: bool = False,
) -> str:
    """Play ``move`` on ``game`` (make_move's checks, writes, event and notifications);
    returns it in UCI. ``conditional_reply``: the service plays it for ``player``, from
    their conditional lines.

    Either ``game`` is locked by this transaction, or ``checked`` is ``move`` as
    :func:`_check_before_writing` read it on ``game`` before the transaction: the row is
    then claimed first, at the version the move was checked against (:class:`_Conflict`,
    nothing written, when another change came in between), which locks it as
    :func:`_lock_game` does; only the clock, which ran meanwhile, is looked at again.
    What follows is the same either way, under the lock.
    """
    if checked is None:
        _check_move(game, player, move_number, withdraws_offer=withdraws_offer)
        played = _read_move_on(game, move)
    else:
        _claim(game)
        if _is_due(game):
            raise _TimeRanOut()
        played = checked
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
    game.deadline = clock.deadline_after(now, game.days_per_move)
    # A move withdrawing its player's own draw offer (chessirc) ends the wait for the
    # answer: the time kept for that player while it waited is spent.
    game.time_left = None
    _pause_for_vacation(game, now)
    _touch(game, now)
    # The hot path: write only what a move changes (a shorter UPDATE to build and run).
    changed = ["fen", "next_move_number", "last_move_at", "last_move_san", "updated_at", "version"]
    if game.draw_offer_by:
        game.draw_offer_by = ""  # withdrawn by the offerer's move (checked above)
        changed.append("draw_offer_by")
    changed += ["deadline", "time_left", "paused_at"]
    if (opening := openings.opening_at(played.fen_after, move_number)) is not None:
        game.opening_eco, game.opening_name = opening.eco, opening.name
        changed += ["opening_eco", "opening_name"]
    if played.outcome is not None:
        _finish(game, played.outcome, now)
        changed += ["status", "result", "termination", "finished_at", "ended_by", "draw_offer_by"]
    game.save(update_fields=changed)
    publish_game_event(game, "move", move=move_state(created))
    if played.outcome is not None:
        # The player who moved knows, unless the service moved for them.
        _notify_game_over(game, by=None if conditional_reply else player)
    else:
        notify(
            recipient=game.opponent_of(player.pk),
            kind=NotificationKind.OPPONENT_MOVED,
            game=game,
            actor=player,
            detail={"san": played.san, "number": move_number, "conditional": conditional_reply},
        )
    return played.uci


def _notify_game_over(game: Game, *, by: Player | None, tell_by: bool = True) -> None:
    """Tell both players how ``game`` ended. ``by``: the player whose own action ended
    it (resigned, claimed, mated…), whose notification is kept as already read: it is
    the game's record in their list, not news for their bell; ``tell_by=False``: not
    even that (a player leaving for good)."""
    detail = {
        "result": game.result,
        "termination": game.termination,
        "ended_by": game.ended_by,
        "last_move": game.last_move_san,
    }
    for recipient in (game.white, game.black):
        if not tell_by and by is not None and by.pk == recipient.pk:
            continue
        opponent = game.opponent_of(recipient.pk)
        notify(
            recipient=recipient,
            kind=NotificationKind.GAME_OVER,
            game=game,
            actor=by if by is not None and by.pk == opponent.pk else None,
            # As the recipient reads it: "You lost P0000004 against bob (checkmate)."
            detail=dict(
                detail,
                outcome=outcome_for(game, recipient.pk),
                opponent=opponent.get_username(),
            ),
            read=by is not None and by.pk == recipient.pk,
        )


@_on_the_clock
@transaction.atomic
def set_conditional_lines(
    *, game_id: int, player: Player, move_number: int, lines: object
) -> list[list[str]]:
    """Replace ``player``'s conditional moves on the game with ``lines`` (a list of lists
    of moves in UCI or SAN, each starting with the opponent's move due as half-move
    ``move_number``); an empty list clears them. Judged move by move from the game's
    position (:mod:`games.conditional`); refused on the player's own turn. Returns the
    lines kept, in UCI.

    ``move_number`` must be the game's next one, as for :func:`make_move`: lines written
    for a position the game has left (the opponent moved, a reply was played) are
    refused with :class:`~games.errors.WrongMoveNumber`, never read against another one.
    """
    game = _lock_game(game_id)
    colour = _colour_in(game, player)
    _require_active(game)
    if move_number != game.next_move_number:
        raise errors.WrongMoveNumber(expected=game.next_move_number)
    if game.colour_to_move == colour:
        raise errors.ConditionalOnYourTurn()
    kept = conditional.read_lines(game, lines)
    if not kept:
        ConditionalLines.objects.filter(game=game, player=player).delete()
        return kept
    ConditionalLines.objects.update_or_create(
        game=game,
        player=player,
        defaults={"from_move": game.next_move_number, "lines": kept, "updated_at": timezone.now()},
    )
    return kept


@transaction.atomic
def clear_conditional_lines(*, game_id: int, player: Player) -> None:
    """Drop ``player``'s conditional moves on the game (allowed at any time)."""
    game = _lock_game(game_id)
    _colour_in(game, player)
    ConditionalLines.objects.filter(game=game, player=player).delete()


@_on_the_clock
@transaction.atomic
def offer_draw(*, game_id: int, player: Player) -> Game:
    """``player`` offers a draw (ESPOL TBLS). Only one offer may be pending at a time.

    With a clock, the game now waits for the answer: an offer made by the player to
    move stops their clock (the time they had is kept) and gives the opponent the days
    of a move to answer; an offer made to the player to move leaves their clock running.
    """
    return _offer_draw_on(_lock_game(game_id), player)


def _offer_draw_on(game: Game, player: Player) -> Game:
    """:func:`offer_draw` on the locked ``game``."""
    colour = _colour_in(game, player)
    _require_active(game)
    if game.draw_offer_by:
        raise errors.DrawOfferPending()
    now = timezone.now()
    game.draw_offer_by = colour
    if game.deadline is not None and colour == game.colour_to_move:
        # The clock passes to the player who owes the answer.
        game.time_left = game.deadline - (game.paused_at or now)
        game.deadline = clock.deadline_after(now, game.days_per_move)
        _pause_for_vacation(game, now)
    _touch(game, now)
    game.save()
    publish_game_event(game, "draw_offered", by=colour)
    notify(
        recipient=game.opponent_of(player.pk),
        kind=NotificationKind.DRAW_OFFERED,
        game=game,
        actor=player,
    )
    return game


@_on_the_clock
@transaction.atomic
def offer_or_accept_draw(*, game_id: int, player: Player) -> tuple[str, Game]:
    """chessirc's one ``draw`` command: the player to move offers a draw, the other
    accepts the one offered. Decided on the locked game, so a move through another door
    in between cannot turn an acceptance into an offer. Returns ``"offered"`` or
    ``"accepted"``, and the game."""
    game = _lock_game(game_id)
    colour = _colour_in(game, player)
    _require_active(game)
    if colour == game.colour_to_move:
        return "offered", _offer_draw_on(game, player)
    return "accepted", _answer_draw_on(game, player, accept=True)


@_on_the_clock
@transaction.atomic
def answer_draw(*, game_id: int, player: Player, accept: bool) -> Game:
    """``player`` accepts (the game is drawn) or declines the opponent's draw offer (RTBL).

    A declined offer gives the player to move back the time they had when they made it.
    """
    return _answer_draw_on(_lock_game(game_id), player, accept=accept)


def _answer_draw_on(game: Game, player: Player, *, accept: bool) -> Game:
    """:func:`answer_draw` on the locked ``game``."""
    colour = _colour_in(game, player)
    _require_active(game)
    if game.draw_offer_by != _other(colour):
        raise errors.NoDrawOffer()
    now = timezone.now()
    game.draw_offer_by = ""
    if game.time_left is not None:
        game.deadline = now + game.time_left
        game.time_left = None
        _pause_for_vacation(game, now)
    if accept:
        _finish(game, rules.Outcome(rules.Termination.AGREEMENT, None), now, by=colour)
    _touch(game, now)
    game.save()
    publish_game_event(game, "draw_accepted" if accept else "draw_declined", by=colour)
    if accept:
        # The answer is the end of the game: one notification says both.
        _notify_game_over(game, by=player)
    else:
        notify(
            recipient=game.opponent_of(player.pk),
            kind=NotificationKind.DRAW_ANSWERED,
            game=game,
            actor=player,
            detail={"accepted": False},
        )
    return game


@_on_the_clock
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
    _notify_game_over(game, by=player)
    return game


@_on_the_clock
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
    _notify_game_over(game, by=player)
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
        _abandon(game, player, now)
        ended.append(game)
    return ended


def _abandon(game: Game, player: Player, now: dt.datetime) -> None:
    """``player`` leaves ``game`` (locked, active) for good: the opponent wins, or, if
    ``player`` had not moved yet, the game is aborted (it costs nothing and wins the
    opponent nothing, lichess's rule)."""
    colour = _colour_in(game, player)
    if not _has_moved(game, colour):
        _abort(game, now, by=colour)
        event = "aborted"
    else:
        _finish(
            game, rules.Outcome(rules.Termination.ABANDONMENT, _other(colour)), now, by=colour
        )
        event = "abandoned"
    _touch(game, now)
    game.save()
    publish_game_event(game, event, by=colour)
    _notify_game_over(game, by=player, tell_by=False)


@transaction.atomic
def leave_gateway_game(*, game_id: int, player: Player | None = None) -> Game | None:
    """A gateway's session closed with ``game_id`` unfinished. Nothing can bring a guest
    back to its game (the name lives as long as the connection), so the guest ``player``
    leaves it for good: the opponent wins, or before the guest's first move the game is
    aborted; without ``player``, the player the game waits for, when a guest (chessirc,
    where one connection may hold both sides). A registered player keeps the game, to go
    on through another door. A clock that ran out first ends the game on time instead.
    Returns the game when this ended it, ``None`` when nothing changed."""
    game = _lock_game(game_id)
    if not game.is_active:
        return None
    if _is_due(game):
        # Time ran out before the session closed: the clock decides, not the leaving.
        return expire_game(game_id=game_id)
    if player is None:
        player = game.player_on_clock
    elif game.colour_of(player.pk) is None:
        return None
    if not account_selectors.is_guest(player.pk):
        return None
    _abandon(game, player, timezone.now())
    return game


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


# --------------------------------------------------------------------------- clocks


def _stop_clock(game: Game) -> None:
    game.deadline = None
    game.time_left = None
    game.paused_at = None


def _on_vacation(player_id: int) -> bool:
    return selectors.on_vacation([player_id]) == {player_id}


def _pause_for_vacation(game: Game, now: dt.datetime) -> bool:
    """The clock has just been set for the player it now waits for: stop it at once if
    that player is on vacation. A game without a clock costs no query. Returns whether
    it is paused."""
    game.paused_at = None
    if game.deadline is None:
        return False
    if _on_vacation(game.player_on_clock_id):
        game.paused_at = now
        return True
    return False


def _has_moved(game: Game, colour: str) -> bool:
    """Whether ``colour`` has made a move in ``game`` (white plays the odd half-moves)."""
    played = game.next_move_number - 1
    return played >= (1 if colour == rules.WHITE else 2)


def _abort(game: Game, now: dt.datetime, *, by: str | None = None) -> None:
    """End ``game`` with no result: nobody wins, and the ranking does not count it."""
    game.status = Game.Status.FINISHED
    game.ended_by = by or ""
    game.draw_offer_by = ""
    game.result = rules.ABORTED.result
    game.termination = rules.Termination.ABORTED.value
    game.finished_at = now
    _stop_clock(game)
    ConditionalLines.objects.filter(game=game).delete()


@transaction.atomic
def expire_game(*, game_id: int, now: dt.datetime | None = None) -> Game | None:
    """End ``game_id`` if the time of the player it waits for has run out; returns the
    game it ended, or ``None`` when there was nothing to do (no clock, time left, over).

    Idempotent and safe to run from several processes at once: the game row is locked
    and its deadline read again under the lock, so a game ends once. The player who ran
    out loses (a draw when the opponent has no mating material); before both players
    have moved the game is aborted instead (no result, not rated).
    """
    now = now or timezone.now()
    try:
        game = _lock_game(game_id)
    except errors.GameNotFound:
        return None
    if not _is_due(game, now):
        return None
    loser = game.colour_on_clock
    ended_at = game.deadline or now
    if game.next_move_number - 1 < 2:
        _abort(game, ended_at)
        event = "aborted"
    else:
        _finish(game, rules.timeout_outcome(game.fen, loser), ended_at)
        event = "timeout"
    _touch(game, now)
    game.save()
    publish_game_event(game, event, by=loser)
    _notify_game_over(game, by=None)
    return game


def _expire_each(game_ids: Sequence[int], now: dt.datetime) -> int:
    ended = 0
    for game_id in game_ids:
        if expire_game(game_id=game_id, now=now) is not None:
            ended += 1
    return ended


def expire_due_games(*, now: dt.datetime | None = None, batch_size: int = 500) -> int:
    """End every game whose deadline has passed (the sweep: ``manage.py expire_games``
    and the job inside ``manage.py serve``); returns how many this call ended.

    Finding them is one query on the ``game_deadline_running`` partial index (only games
    whose clock runs have a deadline: it is cleared when a game ends); each is then
    ended in its own short transaction, so a sweep never holds many locks and another
    sweep running at the same time ends none twice.
    """
    now = now or timezone.now()
    end_spent_vacations(now=now)
    ended = _expire_pages(now, batch_size)
    warn_low_time(now=now, batch_size=batch_size)
    return ended


def _expire_pages(now: dt.datetime, batch_size: int) -> int:
    ended = 0
    while True:
        due = list(selectors.games_run_out(now)[:batch_size])
        if not due:
            return ended
        ended_now = _expire_each(due, now)
        ended += ended_now
        if len(due) < batch_size or ended_now == 0:
            # A short page was the last; a page that ended nothing was ended meanwhile
            # by another sweep, which goes on with the rest.
            return ended


def expire_due_games_of(player: Player, *, now: dt.datetime | None = None) -> int:
    """End ``player``'s games whose time has run out: the reads of a player's games call
    this first, so no list shows a game in progress whose time is up."""
    now = now or timezone.now()
    ended = _expire_each(_run_out_games_of(player, now), now)
    # The 24-hour warning too, when a read comes before the sweep.
    low = _low_time_games(now).filter(Q(white=player) | Q(black=player))
    _warn_each(list(low.values_list("pk", flat=True)), now)
    return ended


def _run_out_games_of(player: Player, now: dt.datetime) -> list[int]:
    """``player``'s games in progress whose running clock passed its deadline by ``now``."""
    due = Game.objects.of_player(
        player, status=Game.Status.ACTIVE, deadline__lte=now, paused_at__isnull=True
    )
    return list(due.values_list("pk", flat=True))


def _low_time_games(now: dt.datetime) -> QuerySet[Game]:
    """The games whose running clock has at most :data:`games.clock.LOW_TIME` left and
    whose player has not been warned about this deadline: a range scan of the
    ``game_deadline_unwarned`` partial index (the filters repeat its condition, which is
    what lets the planners use it). One-day games are left out: their whole move is the
    24 hours, which "opponent moved" already says."""
    return Game.objects.filter(
        Q(low_time_warned_for__isnull=True) | Q(low_time_warned_for__lt=F("deadline")),
        deadline__isnull=False,
        paused_at__isnull=True,
        deadline__gt=now,
        deadline__lte=now + clock.LOW_TIME,
        days_per_move__gt=clock.LOW_TIME.days,
    )


def warn_low_time(*, now: dt.datetime | None = None, batch_size: int = 500) -> int:
    """Tell each player whose clock has a day or less left, once per deadline ("24 hours
    left"); returns how many were told. The sweep runs it after ending the games run
    out; reads of a player's games run it for that player (:func:`expire_due_games_of`).
    """
    now = now or timezone.now()
    warned = 0
    while True:
        found = _low_time_games(now).order_by("deadline").values_list("pk", flat=True)
        due = list(found[:batch_size])
        warned_now = _warn_each(due, now)
        warned += warned_now
        if len(due) < batch_size or warned_now == 0:
            return warned


def _warn_each(game_ids: Sequence[int], now: dt.datetime) -> int:
    warned = 0
    for game_id in game_ids:
        with transaction.atomic():
            try:
                game = _lock_game(game_id)
            except errors.GameNotFound:
                continue
            deadline = game.deadline
            # Read again under the lock: another sweep may have warned, a move may have
            # set a new deadline, the game may have ended.
            if (
                not game.is_active
                or deadline is None
                or game.paused_at is not None
                or not now < deadline <= now + clock.LOW_TIME
                or (game.low_time_warned_for is not None and game.low_time_warned_for >= deadline)
            ):
                continue
            game.low_time_warned_for = deadline
            game.save(update_fields=["low_time_warned_for"])
            on_clock = game.player_on_clock
            notify(
                recipient=on_clock,
                kind=NotificationKind.LOW_TIME,
                game=game,
                actor=game.opponent_of(on_clock.pk),
                detail={"deadline": deadline.isoformat()},
            )
            warned += 1
    return warned


def advance_clocks(*, by: dt.timedelta, game_id: int | None = None) -> int:
    """Demo time travel: move the deadlines of the games in progress (or of ``game_id``)
    ``by`` earlier, as if that much time had passed. Returns how many games it moved.

    Only ``manage.py travel_clock`` calls it, and only where the settings allow it
    (``DEMO_TIME_TRAVEL``): a newcomer sees a game end on time without waiting days.
    """
    if by <= dt.timedelta(0):
        raise ValueError("the clock only moves forward")
    moved = 0
    games = Game.objects.filter(status=Game.Status.ACTIVE, deadline__isnull=False)
    if game_id is not None:
        games = games.filter(pk=game_id)
    for pk in games.order_by("pk").values_list("pk", flat=True):
        with transaction.atomic():
            game = _lock_game(pk)
            if not game.is_active or game.deadline is None:
                continue
            game.deadline -= by
            _touch(game)
            game.save(update_fields=["deadline", "updated_at", "version"])
            publish_game_event(game, "clock_changed")
            moved += 1
    return moved


# --------------------------------------------------------------------------- vacation


def _games_on_clock_of(player: Player) -> list[int]:
    return list(
        Game.objects.of_player(player, status=Game.Status.ACTIVE, deadline__isnull=False)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def start_vacation(*, player: Player) -> Vacation:
    """``player`` goes on vacation: every clock where they are to move stops, with the
    time they had kept; opponents see it. Refused while on vacation already, and once
    the year's allowance is spent. It ends by itself when the allowance runs out (the
    sweep), or when the player ends it.

    Like every action, it first ends the player's games whose time has run out, each
    in its own transaction (kept when the vacation is refused): a clock that ran out
    before the vacation began is not stopped, the game is lost on time."""
    now = timezone.now()
    _expire_each(_run_out_games_of(player, now), now)
    return _start_vacation(player, now)


@transaction.atomic
def _start_vacation(player: Player, now: dt.datetime) -> Vacation:
    # The user row, locked, orders two requests of the same player.
    account_selectors.players().select_for_update(no_key=True, of=("self",)).filter(
        pk=player.pk
    ).first()
    if _on_vacation(player.pk):
        raise errors.AlreadyOnVacation()
    left = selectors.vacation_left(player, now=now)
    if left < dt.timedelta(hours=1):
        raise errors.NoVacationLeft()
    spell = Vacation.objects.create(player=player, started_at=now, ends_by=now + left)
    _tell_opponents_of_vacation(player, spell)
    for game_id in _games_on_clock_of(player):
        game = _lock_game(game_id)
        if not game.is_active or game.deadline is None or game.paused_at is not None:
            continue
        if game.player_on_clock_id == player.pk:
            game.paused_at = now
            _touch(game, now)
            game.save(update_fields=["paused_at", "updated_at", "version"])
            publish_game_event(game, "clock_paused")
    return spell


def _tell_opponents_of_vacation(player: Player, spell: Vacation) -> None:
    active = Game.objects.of_player(player, status=Game.Status.ACTIVE).select_related(
        "white", "black"
    )
    for game in active.order_by("pk"):
        notify(
            recipient=game.opponent_of(player.pk),
            kind=NotificationKind.OPPONENT_ON_VACATION,
            game=game,
            actor=player,
            detail={"until": spell.ends_by.isoformat()},
        )


@transaction.atomic
def end_vacation(*, player: Player, now: dt.datetime | None = None) -> Vacation:
    """``player`` is back: their clocks run again with the time they had left."""
    now = now or timezone.now()
    account_selectors.players().select_for_update(no_key=True, of=("self",)).filter(
        pk=player.pk
    ).first()
    spell = Vacation.objects.filter(player=player, ended_at__isnull=True).first()
    if spell is None:
        raise errors.NotOnVacation()
    # A spell the sweep ends late still ends when the allowance ran out: the clocks
    # run again from then, not from the sweep.
    back_at = min(now, spell.ends_by)
    spell.ended_at = back_at
    spell.save(update_fields=["ended_at"])
    for game_id in _games_on_clock_of(player):
        game = _lock_game(game_id)
        if not game.is_active or game.paused_at is None or game.deadline is None:
            continue
        if game.player_on_clock_id == player.pk:
            # The time left when the clock stopped, counted again from the return.
            warned = game.low_time_warned_for is not None and (
                game.low_time_warned_for >= game.deadline
            )
            game.deadline += max(dt.timedelta(0), back_at - game.paused_at)
            game.paused_at = None
            changed = ["deadline", "paused_at", "updated_at", "version"]
            if warned:
                # The same clock, moved later by the days away: its 24-hour warning
                # was given, and the player has no less time than when it was.
                game.low_time_warned_for = game.deadline
                changed.append("low_time_warned_for")
            _touch(game, now)
            game.save(update_fields=changed)
            publish_game_event(game, "clock_resumed")
    return spell


def end_spent_vacations(*, now: dt.datetime | None = None) -> int:
    """End the vacations whose allowance has run out (the sweep runs this first)."""
    now = now or timezone.now()
    ended = 0
    spent = Vacation.objects.filter(ended_at__isnull=True, ends_by__lte=now).select_related(
        "player"
    )
    for spell in spent:
        try:
            end_vacation(player=spell.player, now=now)
        except errors.NotOnVacation:
            continue  # ended meanwhile
        ended += 1
    return ended


def name_openings(*, batch_size: int = 500) -> int:
    """Give every stored game without an opening the one its moves reached (games played
    before openings were kept, or before the book named their line); returns how many
    were named. Keyset pages of ``batch_size`` games, each read with its first moves in
    one query and written in one short transaction."""
    named, after = 0, 0
    while True:
        ids = list(
            Game.objects.filter(pk__gt=after, opening_eco="", next_move_number__gt=1)
            .order_by("pk")
            .values_list("pk", flat=True)[:batch_size]
        )
        if not ids:
            return named
        after = ids[-1]
        found: dict[int, openings.Opening] = {}
        positions = (
            Move.objects.filter(game_id__in=ids, number__lte=openings.MAX_PLIES)
            .order_by("game_id", "number")
            .values_list("game_id", "number", "fen_after")
        )
        for game_id, number, fen in positions:
            if (opening := openings.opening_at(fen, number)) is not None:
                found[game_id] = opening
        with transaction.atomic():
            for game_id, opening in found.items():
                named += Game.objects.filter(pk=game_id, opening_eco="").update(
                    opening_eco=opening.eco, opening_name=opening.name
                )
