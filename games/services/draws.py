"""Draws by agreement and by claim (lichess's Drawer): an offer, its answer, chessirc's
one ``draw`` command, and a claim of threefold repetition or the fifty-move rule."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.types import Player
from games import errors, rules, selectors
from games.events import publish_game_event
from games.models import Game, NotificationKind
from games.notifications import notify
from games.services.clocks import deadline_for, keep_banks, pause_for_vacation
from games.services.endings import finish
from games.services.guards import colour_in, lock_game, other, require_active, touch
from games.services.timeouts import on_the_clock


@on_the_clock
@transaction.atomic
def offer_draw(*, game_id: int, player: Player) -> Game:
    """``player`` offers a draw (ESPOL TBLS). Only one offer may be pending at a time.

    With a clock, the game now waits for the answer: an offer made by the player to
    move stops their clock (the time they had is kept) and gives the opponent the days
    of a move to answer; an offer made to the player to move leaves their clock running.
    """
    return _offer_draw_on(lock_game(game_id), player)


def _offer_draw_on(game: Game, player: Player) -> Game:
    """:func:`offer_draw` on the locked ``game``."""
    colour = colour_in(game, player)
    require_active(game)
    if game.draw_offer_by:
        raise errors.DrawOfferPending()
    made = rules.plies_played_by(colour, start_fen=game.start_fen, plies=game.next_move_number - 1)
    offered_after = f"{colour}_offered_after"
    last = getattr(game, offered_after)
    if last is not None and made <= last:
        raise errors.DrawOfferTooSoon()
    setattr(game, offered_after, made)
    now = timezone.now()
    game.draw_offer_by = colour
    if game.deadline is not None and colour == game.colour_to_move:
        # The clock passes to the player who owes the answer (a Fischer clock: to their
        # bank).
        game.time_left = game.deadline - (game.paused_at or now)
        game.deadline = deadline_for(game, now)
        pause_for_vacation(game, now)
    touch(game, now)
    game.save()
    publish_game_event(game, "draw_offered", by=colour)
    notify(
        recipient=game.opponent_of(player.pk),
        kind=NotificationKind.DRAW_OFFERED,
        game=game,
        actor=player,
    )
    return game


@on_the_clock
@transaction.atomic
def offer_or_accept_draw(*, game_id: int, player: Player) -> tuple[str, Game]:
    """chessirc's one ``draw`` command: the player to move offers a draw, the other
    accepts the one offered. Decided on the locked game, so a move through another door
    in between cannot turn an acceptance into an offer. Returns ``"offered"`` or
    ``"accepted"``, and the game."""
    game = lock_game(game_id)
    colour = colour_in(game, player)
    require_active(game)
    if colour == game.colour_to_move:
        return "offered", _offer_draw_on(game, player)
    return "accepted", _answer_draw_on(game, player, accept=True)


@on_the_clock
@transaction.atomic
def accept_or_offer_draw(*, game_id: int, player: Player) -> tuple[str, Game]:
    """The lichess API's ``draw/yes``: ``player`` accepts the opponent's pending offer,
    or, with none pending, offers a draw. Decided on the locked game, so an offer made
    meanwhile through another door is accepted rather than refused. Returns
    ``"accepted"`` or ``"offered"``, and the game."""
    game = lock_game(game_id)
    colour = colour_in(game, player)
    require_active(game)
    if game.draw_offer_by == other(colour):
        return "accepted", _answer_draw_on(game, player, accept=True)
    return "offered", _offer_draw_on(game, player)


@on_the_clock
@transaction.atomic
def answer_draw(*, game_id: int, player: Player, accept: bool) -> Game:
    """``player`` accepts (the game is drawn) or declines the opponent's draw offer (RTBL).

    A declined offer gives the player to move back the time they had when they made it.
    """
    return _answer_draw_on(lock_game(game_id), player, accept=accept)


def _answer_draw_on(game: Game, player: Player, *, accept: bool) -> Game:
    """:func:`answer_draw` on the locked ``game``."""
    colour = colour_in(game, player)
    require_active(game)
    if game.draw_offer_by != other(colour):
        raise errors.NoDrawOffer()
    now = timezone.now()
    if accept:
        # The answer is the end of the game: one notification says both.
        agreed = rules.Outcome(rules.Termination.AGREEMENT, None)
        finish(game, agreed, at=now, event="draw_accepted", ended_by=colour, actor=player,
               by=colour)
        return game
    if game.time_left is not None:
        # The answerer's Fischer bank keeps what its answer left it.
        keep_banks(game, now)
    game.draw_offer_by = ""
    if game.time_left is not None:
        game.deadline = now + game.time_left
        game.time_left = None
        pause_for_vacation(game, now)
    touch(game, now)
    game.save()
    publish_game_event(game, "draw_declined", by=colour)
    notify(
        recipient=game.opponent_of(player.pk),
        kind=NotificationKind.DRAW_ANSWERED,
        game=game,
        actor=player,
        detail={"accepted": False},
    )
    return game


@on_the_clock
@transaction.atomic
def claim_draw(*, game_id: int, player: Player) -> Game:
    """``player`` claims a draw by threefold repetition or the fifty-move rule (ESPOL FINP)."""
    game = lock_game(game_id)
    colour = colour_in(game, player)
    require_active(game)
    base_fen, history = selectors.repetition_window(game)
    termination = rules.claimable_draw(base_fen, history)
    if termination is None:
        raise errors.NothingToClaim()
    finish(game, rules.Outcome(termination, None), at=timezone.now(), event="draw_claimed",
           ended_by=colour, actor=player, termination=termination.value)
    return game
