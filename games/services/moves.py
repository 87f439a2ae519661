"""Moves: a player's move, checked and written, and the conditional replies it sets off.

There is one write path. A move is judged first, outside any transaction, on the game
as read then (python-chess, the repetition window, the opening: most of a move's work);
then one short transaction locks the game, checks it again and writes. On SQLite every
write transaction holds the database's one write lock, so judging outside it keeps the
other writers from waiting on python-chess. When the game changed in between (its
version moved on), the move is judged again on the locked game, which gives the answer.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import NotificationKind
from accounts.types import Player
from games import clock, errors, openings, rules, selectors
from games.events import publish_game_event
from games.models import Game, Move
from games.notifications import notify
from games.services.clocks import pause_for_vacation
from games.services.conditional_lines import drop_lines_of, next_reply
from games.services.endings import finish
from games.services.guards import colour_in, lock_game, require_active, touch
from games.services.timeouts import on_the_clock
from games.state import move_state

logger = logging.getLogger("games.clock")


@dataclass(frozen=True)
class MoveRequest:
    """A move as it is asked for: by ``player``, ``text`` in UCI or SAN, as half-move
    ``number`` (``None``: the next one, whichever that is when the game is read)."""

    player: Player
    text: str
    number: int | None = None
    reverse: bool = False
    # The player's own pending draw offer is withdrawn by the move (chessirc's rule);
    # otherwise a pending offer refuses every move.
    withdraws_offer: bool = False
    # The service plays it for ``player``, from their conditional lines.
    conditional_reply: bool = False


@dataclass(frozen=True)
class JudgedMove:
    """``request`` found legal as half-move ``number``, and what it leads to."""

    request: MoveRequest
    number: int
    played: rules.PlayedMove


@dataclass(frozen=True)
class _Reading:
    """A move judged before the transaction, on the game at ``version``: the move, or
    the refusal of a move the board refused."""

    version: int
    judged: JudgedMove | None
    refusal: errors.DomainError | None


def check_move(
    game: Game, player: Player, move_number: int, *, withdraws_offer: bool = False
) -> None:
    """Refuse a move by ``player`` as half-move ``move_number`` that ``game`` cannot take."""
    colour = colour_in(game, player)
    require_active(game)
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


def _judge_on(game: Game, request: MoveRequest) -> JudgedMove:
    """``request`` checked and read on ``game``, or the domain error."""
    number = game.next_move_number if request.number is None else request.number
    check_move(game, request.player, number, withdraws_offer=request.withdraws_offer)
    return JudgedMove(request, number, _read_move_on(game, request.text))


@on_the_clock
def preview_move(*, game_id: int, player: Player, move_number: int, move: str) -> rules.PlayedMove:
    """What ``move`` (UCI or SAN) would be if ``player`` played it now as half-move
    ``move_number``: checked as :func:`make_move` checks it, and nothing written.

    The game page shows a typed move on the board this way before the player confirms
    it; :func:`make_move` checks everything again when it is sent. The stored position
    is enough to read a move; the ``outcome`` returned leaves repetitions out.
    """
    game = selectors.game(game_id)
    check_move(game, player, move_number)
    return _read_move(game.fen, [], move)


@on_the_clock
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
    played too, as their own ordinary move in this transaction; the game returned is
    after it.
    """
    request = MoveRequest(player, move, move_number, reverse, withdraws_offer)
    reading = _judge_before_locking(game_id, request)
    with transaction.atomic():
        game = lock_game(game_id)
        if game.version == reading.version:
            # Unchanged since it was judged: only the clock, which ran meanwhile, is
            # looked at again.
            require_active(game)
            if reading.refusal is not None:
                raise reading.refusal
            assert reading.judged is not None
            judged = reading.judged
        else:
            judged = _judge_on(game, request)
        _play_with_replies(game, judged)
    return game


def _judge_before_locking(game_id: int, request: MoveRequest) -> _Reading:
    """``request`` judged on the game as read now, before any transaction.

    A refusal that the game row alone decides (no such game, not a player, finished,
    time run out, stale number, not their turn, a draw offer pending) is raised at once:
    the row is one consistent read, so it is the answer a locked read would have given
    a moment earlier, and a stale submission costs no write transaction. A refusal of
    the move itself is kept, to be given if the game is still at this version under the
    lock (the repetition window is a second read, which a later move may have changed:
    the version tells).
    """
    try:
        game = Game.objects.select_related("white", "black").get(pk=game_id)
    except Game.DoesNotExist as exc:
        raise errors.GameNotFound() from exc
    number = game.next_move_number if request.number is None else request.number
    check_move(game, request.player, number, withdraws_offer=request.withdraws_offer)
    try:
        judged = JudgedMove(request, number, _read_move_on(game, request.text))
    except errors.DomainError as exc:
        return _Reading(game.version, None, exc)
    return _Reading(game.version, judged, None)


def _play_with_replies(game: Game, judged: JudgedMove) -> None:
    """Write ``judged`` on the locked ``game``, then the opponent's conditional reply to
    it, if one of their lines starts with it: an ordinary move of theirs, in this
    transaction. A reply no longer legal is not played, and its lines are dropped."""
    played = _write(game, judged)
    while (reply := next_reply(game, played)) is not None:
        owner, uci = reply
        request = MoveRequest(owner, uci, game.next_move_number, conditional_reply=True)
        try:
            played = _write(game, _judge_on(game, request))
        except errors.DomainError:
            logger.warning("conditional reply %s refused in game %s", uci, game.pk)
            drop_lines_of(game, owner)
            break


def _write(game: Game, judged: JudgedMove) -> str:
    """Write ``judged`` on the locked ``game``, checked against it: the move row, the
    game's new position and clock, the event and the notifications (or the game's end).
    Returns the move in UCI."""
    request, played = judged.request, judged.played
    now = timezone.now()
    created = Move.objects.create(
        game=game,
        number=judged.number,
        uci=played.uci,
        san=played.san,
        reverse=request.reverse,
        fen_after=played.fen_after,
        played_at=now,
        think_seconds=max(0, int((now - (game.last_move_at or game.created_at)).total_seconds())),
    )
    game.fen = played.fen_after
    game.next_move_number = judged.number + 1
    game.last_move_at = now
    game.last_move_san = played.san
    game.deadline = clock.deadline_after(now, game.days_per_move)
    # A move withdrawing its player's own draw offer (chessirc) ends the wait for the
    # answer: the time kept for that player while it waited is spent.
    game.time_left = None
    pause_for_vacation(game, now)
    # The hot path: write only what a move changes (a shorter UPDATE to build and run).
    changed = ["fen", "next_move_number", "last_move_at", "last_move_san"]
    if game.draw_offer_by:
        game.draw_offer_by = ""  # withdrawn by the offerer's move (checked before)
        changed.append("draw_offer_by")
    changed += ["deadline", "time_left", "paused_at"]
    if (opening := openings.opening_at(played.fen_after, judged.number)) is not None:
        game.opening_eco, game.opening_name = opening.eco, opening.name
        changed += ["opening_eco", "opening_name"]
    if played.outcome is not None:
        # The player who moved knows, unless the service moved for them.
        actor = None if request.conditional_reply else request.player
        finish(game, played.outcome, at=now, event="move", actor=actor, also_changed=changed,
               move=move_state(created))
        return played.uci
    touch(game, now)
    game.save(update_fields=[*changed, "updated_at", "version"])
    publish_game_event(game, "move", move=move_state(created))
    notify(
        recipient=game.opponent_of(request.player.pk),
        kind=NotificationKind.OPPONENT_MOVED,
        game=game,
        actor=request.player,
        detail={
            "san": played.san,
            "number": judged.number,
            "conditional": request.conditional_reply,
        },
    )
    return played.uci
