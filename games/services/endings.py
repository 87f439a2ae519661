"""The end of a game, however it comes (lichess's Finisher): mate or stalemate on the
board, a repetition, resignation, a draw agreed or claimed, time run out, a player
leaving or withdrawing from a tournament, an abort. Every one goes through
:func:`finish`, which also writes a tournament game's result into its event's table."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from accounts.types import Player
from games import rules
from games.events import publish_game_event
from games.models import ConditionalLines, Game, NotificationKind
from games.notifications import notify
from games.services.clocks import stop_clock
from games.services.guards import touch
from games.services.tournament_rounds import game_ended as tournament_game_ended
from games.state import outcome_for
from ranking.services import record_result

# What an ending writes to the game row (with the version), whatever ended it.
ENDING_FIELDS = (
    "status", "result", "termination", "finished_at", "ended_by", "draw_offer_by",
    "deadline", "time_left", "paused_at", "white_bank", "black_bank", "has_conditional_lines",
    "updated_at", "version",
)


def finish(
    game: Game,
    outcome: rules.Outcome,
    *,
    at: dt.datetime,
    event: str,
    ended_by: str = "",
    actor: Player | None = None,
    tell_actor: bool = True,
    now: dt.datetime | None = None,
    also_changed: Sequence[str] = (),
    **event_fields: Any,
) -> None:
    """End the locked, active ``game`` with ``outcome`` at ``at``: the clock stops, the
    conditional lines go, the players' records count it, the row is saved (with
    ``also_changed``, the fields the caller changed too), ``event`` is published with
    ``event_fields`` and both players are told.

    ``ended_by``: the colour whose action ended it (empty: the board or the clock did);
    ``actor``: the player whose own action it was, whose notification is kept as read
    (``tell_actor=False``: not even written, a player leaving for good); ``now``: when
    the change is made, when later than the ending (a sweep ending a game at its
    deadline).
    """
    # The banks as they stood at the end (a time-out's: none left), while the game still
    # says whose clock ran.
    stop_clock(game, at)
    game.status = Game.Status.FINISHED
    game.ended_by = ended_by
    # An offer left open (a claim does not wait for it) is moot once the game is over.
    game.draw_offer_by = ""
    game.result = outcome.result
    game.termination = outcome.termination.value
    game.finished_at = at
    ConditionalLines.objects.filter(game=game).delete()
    game.has_conditional_lines = False
    # An aborted game counts nowhere, nor one with a gateway's guest; one that ended
    # before both players moved counts as played but moves no rating.
    if game.rated and outcome.termination != rules.Termination.ABORTED:
        record_result(
            white_id=game.white_id,
            black_id=game.black_id,
            result=outcome.result,
            game_id=game.pk,
            at=at,
            rated=rules.both_sides_have_moved(
                start_fen=game.start_fen, plies=game.next_move_number - 1
            ),
        )
    touch(game, now or at)
    game.save(update_fields=list(dict.fromkeys([*also_changed, *ENDING_FIELDS])))
    if game.tournament_group_id is not None:
        # The event's table counts it now, and its round may be over.
        tournament_game_ended(game, now=now or at)
    publish_game_event(game, event, **event_fields)
    _notify_game_over(game, by=actor, tell_by=tell_actor)


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
