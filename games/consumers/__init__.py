"""WebSocket consumers: a game's live page (``ws/games/<id>/``), a player's pages
(``ws/player/``) and the live lobby (``ws/lobby/``).

They authenticate from the session, join the channel-layer groups that
:mod:`games.events` publishes to, relay those events, and hand each action to
:mod:`games.services`. No chess rules here: a domain error becomes an error frame and
nothing changes on the server.

One module per role: :mod:`.base` (the socket every page's consumer is: session checks,
frame and rate caps, socket limits, the close codes), :mod:`.game` and :mod:`.player`.
``games.routing`` names the consumers from here.
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
from games.consumers.player import LobbyConsumer, PlayerConsumer

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
    "error_frame",
    "handshake_language",
]
