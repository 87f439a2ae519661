"""Moves: a player's move, checked and written, and the conditional replies it sets off.

There is one write path. A move is judged first, outside any transaction, on the game
as read then (python-chess, the repetition window, the opening: most of a move's work);
then one short transaction writes it. On SQLite every write transaction holds the
database's one write lock, so judging outside it keeps the other writers from waiting on
python-chess.

The game's UPDATE is its own check: it matches only the version the move was judged on
(every change of a game moves its version on), and takes the row's lock as a locked read
would. When it matches nothing, the game changed in between: it is read again locked and
the move judged again on it, which gives the answer. A move that ends the game is always
judged on the locked game (the ending writes more than the move).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

import games.services.statements as statements
from accounts.types import Player
from games import errors, openings, rules, selectors
from games.events import publish_game_event
from games.models import Game, Move, NotificationKind
from games.notifications import notify
from games.services.clocks import BANK_FIELDS, bank_the_move, deadline_for, pause_for_vacation
from games.services.conditional_lines import drop_lines_of, next_reply
from games.services.endings import finish
from games.services.guards import colour_in, is_due, lock_game, require_active, touch
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
    # The opponent's pending draw offer is declined by the move (lichess's rule, for the
    # lichess API's clients).
    declines_offer: bool = False
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
    """A move judged before the transaction, on ``game`` as read then (at ``version``):
    the move, or the refusal of a move the board refused."""

    game: Game
    version: int
    judged: JudgedMove | None
    refusal: errors.DomainError | None


class _GameChanged(Exception):
    """The game's version moved on since the move was judged: its UPDATE matched no row
    and nothing was written."""


def check_move(
    game: Game,
    player: Player,
    move_number: int,
    *,
    withdraws_offer: bool = False,
    declines_offer: bool = False,
) -> None:
    """Refuse a move by ``player`` as half-move ``move_number`` that ``game`` cannot take."""
    colour = colour_in(game, player)
    require_active(game)
    if move_number != game.next_move_number:
        raise errors.WrongMoveNumber(expected=game.next_move_number)
    if game.colour_to_move != colour:
        raise errors.NotYourTurn()
    if game.draw_offer_by:
        mine = game.draw_offer_by == colour
        if not ((withdraws_offer and mine) or (declines_offer and not mine)):
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
    check_move(
        game,
        request.player,
        number,
        withdraws_offer=request.withdraws_offer,
        declines_offer=request.declines_offer,
    )
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
    declines_offer: bool = False,
) -> Game:
    """Play ``move`` (UCI or SAN) as half-move ``move_number`` (ESPOL JGDA); returns the game.

    ``move_number`` must be the game's next one: a stale or repeated submission is
    refused with :class:`~games.errors.WrongMoveNumber`, so a move is never applied twice.
    ``None`` plays it as the next move, whichever that is when the game is read: for the
    protocols whose clients send no number (chessirc, distribuido), where a repeated
    submission is refused as not the player's turn.
    ``withdraws_offer``: the player's own pending draw offer is withdrawn by the move
    (chessirc's rule, where the player to move offers); ``declines_offer``: the
    opponent's pending offer is declined by the move (lichess's rule, the lichess API's);
    otherwise a pending offer refuses every move.

    When the opponent has a conditional line starting with this move, their reply is
    played too, as their own ordinary move in this transaction; the game returned is
    after it.
    """
    request = MoveRequest(
        player,
        move,
        move_number,
        reverse,
        withdraws_offer=withdraws_offer,
        declines_offer=declines_offer,
    )
    reading = _judge_before_locking(game_id, request)
    with transaction.atomic():
        if _writes_unlocked(reading):
            assert reading.judged is not None
            try:
                _play_with_replies(reading.game, reading.judged)
            except _GameChanged:
                pass  # nothing written: judged again below, on the locked game
            else:
                return reading.game
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


def _writes_unlocked(reading: _Reading) -> bool:
    """Whether the move can be written on the game as it was judged, its UPDATE checking
    the version: a legal move that does not end the game, on a clock still running."""
    judged = reading.judged
    return judged is not None and judged.played.outcome is None and not is_due(reading.game)


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
    game = statements.read_game(game_id)
    if game is None:
        raise errors.GameNotFound()
    number = game.next_move_number if request.number is None else request.number
    check_move(
        game,
        request.player,
        number,
        withdraws_offer=request.withdraws_offer,
        declines_offer=request.declines_offer,
    )
    try:
        judged = JudgedMove(request, number, _read_move_on(game, request.text))
    except errors.DomainError as exc:
        return _Reading(game, game.version, None, exc)
    return _Reading(game, game.version, judged, None)


@dataclass(frozen=True)
class _Ply:
    """A half-move just written on the locked game, for what is told of it afterwards."""

    player: Player
    uci: str
    san: str
    number: int
    conditional: bool
    # Its event's ``move`` field (games.state.move_state).
    move: dict[str, Any]
    # It ended the game: the ending has published its event and told both players.
    ended: bool


def _play_with_replies(game: Game, judged: JudgedMove) -> None:
    """Write ``judged`` on the locked ``game``, then the opponent's conditional reply to
    it, if one of their lines starts with it: an ordinary move of theirs, in this
    transaction (and so on, while a line answers). A reply no longer legal is not
    played, and its lines are dropped.

    Each move's event says whether a reply followed it at once (``replied``): its player
    is then not to move, whatever the event's position says. The players are told once,
    at the end, what the chain left them (:func:`_tell_of_moves`)."""
    plies = [_write(game, judged)]
    while True:
        ply = plies[-1]
        following = None if ply.ended else _conditional_reply(game, ply.uci)
        if not ply.ended:
            publish_game_event(game, "move", move=ply.move, replied=following is not None)
        if following is None:
            break
        plies.append(_write(game, following))
    _tell_of_moves(game, plies)


def _conditional_reply(game: Game, played_uci: str) -> JudgedMove | None:
    """The reply the conditional lines of the player to move give to ``played_uci``,
    judged on the locked ``game``; ``None`` when there is none, or when it is no longer
    legal (its lines are then dropped)."""
    reply = next_reply(game, played_uci)
    if reply is None:
        return None
    owner, uci = reply
    request = MoveRequest(owner, uci, game.next_move_number, conditional_reply=True)
    try:
        return _judge_on(game, request)
    except errors.DomainError:
        logger.warning("conditional reply %s refused in game %s", uci, game.pk)
        drop_lines_of(game, owner)
        return None


def _tell_of_moves(game: Game, plies: Sequence[_Ply]) -> None:
    """Tell each player, once, of the last move their opponent made in ``plies`` and,
    when their own conditional reply was played after it, of that reply too: the
    notification then says whose move it is ("your conditional move Bb5 was played; bob
    to move"), not "your move". A game the chain ended was told by its ending."""
    if not game.is_active:
        return
    last_of: dict[int, int] = {}
    for index, ply in enumerate(plies):
        last_of[ply.player.pk] = index
    for mover_id, index in sorted(last_of.items(), key=lambda item: item[1]):
        ply = plies[index]
        moves = sum(1 for p in plies if p.player.pk == mover_id)
        detail: dict[str, Any] = {
            "san": ply.san, "number": ply.number, "conditional": ply.conditional
        }
        if moves > 1:
            detail["count"] = moves
        if index + 1 < len(plies):
            # The recipient's own reply, played for them at once.
            detail["reply"] = plies[index + 1].san
        notify(
            recipient=game.opponent_of(mover_id),
            kind=NotificationKind.OPPONENT_MOVED,
            game=game,
            actor=ply.player,
            detail=detail,
        )


def _write(game: Game, judged: JudgedMove) -> _Ply:
    """Write ``judged`` on ``game``, checked against it: the game's new position and
    clock and the move row (or the game's end, its event and notifications). The move's
    own event and notification are the caller's (:func:`_play_with_replies`), which
    knows whether a reply follows.

    ``game`` is locked, or as read before the transaction: its UPDATE then matches only
    the version read, or raises :class:`_GameChanged` having written nothing."""
    request, played = judged.request, judged.played
    now = timezone.now()
    created = Move(
        game=game,
        number=judged.number,
        uci=played.uci,
        san=played.san,
        reverse=request.reverse,
        fen_after=played.fen_after,
        played_at=now,
        think_seconds=max(0, int((now - (game.last_move_at or game.created_at)).total_seconds())),
    )
    # The hot path: write only what a move changes (a shorter UPDATE to build and run).
    changed = ["fen", "next_move_number", "last_move_at", "last_move_san"]
    if game.fischer is not None:
        bank_the_move(game, now)
        changed += BANK_FIELDS
    game.fen = played.fen_after
    game.next_move_number = judged.number + 1
    game.last_move_at = now
    game.last_move_san = played.san
    if game.draw_offer_by:
        # Withdrawn by the offerer's move, or declined by the opponent's (checked before);
        # cleared first, so that the clock starts for the side now to move.
        game.draw_offer_by = ""
        changed.append("draw_offer_by")
    game.deadline = deadline_for(game, now)
    # A move withdrawing its player's own draw offer (chessirc) ends the wait for the
    # answer: the time kept for that player while it waited is spent.
    game.time_left = None
    pause_for_vacation(game, now)
    changed += ["deadline", "time_left", "paused_at"]
    if (opening := openings.opening_at(played.fen_after, judged.number)) is not None:
        game.opening_eco, game.opening_name = opening.eco, opening.name
        changed += ["opening_eco", "opening_name"]
    ply = _Ply(
        player=request.player,
        uci=played.uci,
        san=played.san,
        number=judged.number,
        conditional=request.conditional_reply,
        move=move_state(created),
        ended=played.outcome is not None,
    )
    if played.outcome is not None:
        # Only on the locked game (see _writes_unlocked).
        created.save(force_insert=True)
        # The player who moved knows, unless the service moved for them.
        actor = None if request.conditional_reply else request.player
        finish(game, played.outcome, at=now, event="move", actor=actor, also_changed=changed,
               move=ply.move)
        return ply
    judged_on = game.version
    touch(game, now)
    if not statements.update_game(game, judged_on, [*changed, "updated_at", "version"]):
        raise _GameChanged()
    statements.insert_move(created)
    return ply
