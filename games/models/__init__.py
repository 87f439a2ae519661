"""Challenges, games and moves of correspondence chess, and what hangs off them.

One module per role: :mod:`.games` (a game and its moves), :mod:`.challenges`,
:mod:`.plans` (vacations, conditional lines) and :mod:`.social` (chat, notifications,
move mail). The integrity rules live in the database as well as in the service layer, so
that two front doors racing each other cannot break them: one move per (game, number), at
most one active game per pair of players, at most one pending challenge per pair of
players. Callers import the models from here (``from games.models import Game``).
"""

from games.models.challenges import Challenge
from games.models.games import TERMINATION_LABELS, Colour, Game, GameQuerySet, Move
from games.models.plans import ConditionalLines, Vacation
from games.models.social import ChatMessage, ChatMute, MailedMove, Notification

__all__ = [
    "TERMINATION_LABELS",
    "Challenge",
    "ChatMessage",
    "ChatMute",
    "Colour",
    "ConditionalLines",
    "Game",
    "GameQuerySet",
    "MailedMove",
    "Move",
    "Notification",
    "Vacation",
]
