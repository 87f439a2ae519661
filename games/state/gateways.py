"""A game as the TCP gateways keep it: the read model's own fields, built from a game or
from the state an event already carries, so that a gateway neither builds its own view
of a game nor reads the game and its moves again for every connection on every event.

A gateway calls :func:`game_view` after its own action (or to start following a game),
then :meth:`GameView.after` with each live event (:func:`games.state.event_message`):
the next view, or ``None`` when the event does not follow the view it holds (a version
was missed), and only then reads the game again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from games import rules, selectors
from games.models import Game
from games.state.game import game_state


@dataclass(frozen=True)
class GameView:
    """What a gateway answers with and follows a game by; ``sans``: the moves in SAN
    from the start, when asked for (chessirc shows them, the ``#`` protocol's HISTORIAL
    reads them on request)."""

    id: int
    public_id: str
    version: int
    white: str
    black: str
    fen: str
    start_fen: str
    status: str
    result: str
    termination: str
    # The colour whose action ended the game, and whose draw offer awaits an answer
    # ("" for none), as ESPOL's STAT requests need them.
    ended_by: str
    draw_offer_by: str
    turn: str
    # Half-moves played + 1, and the chess move number of the move to play.
    next_move_number: int
    move_number: int
    sans: tuple[str, ...] | None = None

    @classmethod
    def of_state(cls, state: dict[str, Any], sans: tuple[str, ...] | None = None) -> GameView:
        """The view of a :func:`games.state.game_state` (a snapshot's or an event's
        ``game``)."""
        return cls(
            id=state["id"],
            public_id=state["public_id"],
            version=state["version"],
            white=state["white"],
            black=state["black"],
            fen=state["fen"],
            start_fen=state["initial_fen"],
            status=state["status"],
            result=state["result"],
            termination=state["termination"],
            ended_by=state["ended_by"] or "",
            draw_offer_by=state["draw_offer_by"] or "",
            turn=state["turn"],
            next_move_number=state["next_move_number"],
            move_number=state["move_number"],
            sans=sans,
        )

    @classmethod
    def of(cls, game: Game, *, with_moves: bool = False) -> GameView:
        """The view of ``game`` (as :func:`games.selectors.game` shows it); with its
        moves in SAN when ``with_moves`` (one query)."""
        sans = None
        if with_moves:
            played = selectors.moves(game.pk, until=game.next_move_number - 1)
            sans = tuple(played.values_list("san", flat=True))
        return cls.of_state(game_state(game), sans)

    @property
    def finished(self) -> bool:
        return self.status != Game.Status.ACTIVE

    @property
    def winner(self) -> str | None:
        """``"white"``, ``"black"``, or ``None`` (in progress, drawn, aborted)."""
        return {"1-0": rules.WHITE, "0-1": rules.BLACK}.get(self.result)

    def as_state(self) -> dict[str, Any]:
        """Position and outcome, as the ``#`` protocol's codec writes a reply."""
        return {
            "fen": self.fen,
            "status": self.status,
            "result": self.result,
            "termination": self.termination,
        }

    def after(self, message: dict[str, Any]) -> GameView | None:
        """The view once the live event ``message`` has happened, from the event alone;
        ``None`` when it does not follow this view (another game, or a version in
        between was missed): read the game again then. An event this view already holds
        (the reply to the gateway's own action came first) leaves it as it is."""
        state = message["game"]
        if state["id"] != self.id:
            return None
        if message["version"] <= self.version:
            return self
        if message["version"] != self.version + 1:
            return None
        sans = self.sans
        if sans is not None and message.get("move") is not None:
            sans = (*sans, message["move"]["san"])
        return replace(GameView.of_state(state), sans=sans)


def game_view(game_id: int, *, with_moves: bool = False) -> GameView:
    """The view of the game numbered ``game_id`` as it stands now (a game whose time ran
    out is shown ended); :class:`~games.errors.GameNotFound` when there is none."""
    return GameView.of(selectors.game(game_id), with_moves=with_moves)
