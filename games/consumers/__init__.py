"""WebSocket consumers: a game's live page (``ws/games/<id>/``), a player's pages
(``ws/player/``), the live lobby (``ws/lobby/``), the open challenges (``ws/seeks/``)
and an event's crosstables (``ws/tournaments/<id>/``).

They authenticate from the session, join the channel-layer groups that
:mod:`games.events` publishes to, relay those events, and hand each action to
:mod:`games.services`. No chess rules here: a domain error becomes an error frame and
nothing changes on the server.

One module per role: :mod:`.base` (the socket every page's consumer is: session checks,
frame and rate caps, the close codes), :mod:`.game`, :mod:`.player` and
:mod:`.tournament`. The socket limits per session and address come before any consumer
(:mod:`accounts.socket_limits`). ``games.routing`` names the consumers from here.
"""

from games.consumers.base import (
    CLOSE_FRAME_TOO_LARGE,
    CLOSE_NOT_FOUND,
    CLOSE_RATE_LIMITED,
    CLOSE_TOO_MANY_SOCKETS,
    CLOSE_UNAUTHENTICATED,
    CLOSE_UNAVAILABLE,
    MAX_FRAME_BYTES,
    RATE_LIMIT_MESSAGES,
    RATE_LIMIT_SECONDS,
    HandshakeRequest,
    LimitedJsonConsumer,
    error_frame,
    handshake_language,
)
from games.consumers.game import MAX_MOVE_TEXT, MAX_NUMBER, GameConsumer, InvalidField
from games.consumers.player import LobbyConsumer, PlayerConsumer, SeeksConsumer
from games.consumers.tournament import TournamentConsumer

__all__ = [
    "CLOSE_FRAME_TOO_LARGE",
    "CLOSE_NOT_FOUND",
    "CLOSE_RATE_LIMITED",
    "CLOSE_TOO_MANY_SOCKETS",
    "CLOSE_UNAUTHENTICATED",
    "CLOSE_UNAVAILABLE",
    "MAX_FRAME_BYTES",
    "MAX_MOVE_TEXT",
    "MAX_NUMBER",
    "RATE_LIMIT_MESSAGES",
    "RATE_LIMIT_SECONDS",
    "GameConsumer",
    "HandshakeRequest",
    "InvalidField",
    "LimitedJsonConsumer",
    "LobbyConsumer",
    "PlayerConsumer",
    "SeeksConsumer",
    "TournamentConsumer",
    "error_frame",
    "handshake_language",
]
