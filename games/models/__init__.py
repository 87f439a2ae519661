"""Challenges, games and moves of correspondence chess, and what hangs off them.

One module per role: :mod:`.games` (a game and its moves), :mod:`.challenges`,
:mod:`.plans` (vacations, conditional lines), :mod:`.social` (chat, notifications, move
mail), :mod:`.analysis` (the engine's analyses, private notes), :mod:`.notification_kinds`,
:mod:`.site` (the rules an administrator sets) and :mod:`.tournaments`. The integrity rules
live in the database as well as in the service layer, so that two front doors racing each
other cannot break them: one move per (game, number), at most one pending challenge from
one player to another. The games two players may have in progress together outside
tournaments (the site rules) are counted by the services under a lock on both players.
Callers import the models from here (``from games.models import Game``).
"""

from games.models.analysis import GameAnalysis, PositionEvaluation, PrivateNote
from games.models.challenges import Challenge
from games.models.games import TERMINATION_LABELS, Colour, Game, GameQuerySet, Move
from games.models.notification_kinds import (
    MAILED_BY_DEFAULT,
    NotificationKind,
    mail_kind_on,
    wants_mail,
)
from games.models.plans import ConditionalLines, Vacation
from games.models.seeks import Seek
from games.models.site import MAX_GAMES_PER_PAIR, SiteRules
from games.models.social import (
    ChatMessage,
    ChatMute,
    DailyDigest,
    MailedMove,
    Notification,
)
from games.models.tournaments import (
    GroupStanding,
    Tournament,
    TournamentEntry,
    TournamentGroup,
)

__all__ = [
    "MAILED_BY_DEFAULT",
    "MAX_GAMES_PER_PAIR",
    "TERMINATION_LABELS",
    "Challenge",
    "ChatMessage",
    "ChatMute",
    "Colour",
    "ConditionalLines",
    "DailyDigest",
    "Game",
    "GameAnalysis",
    "GameQuerySet",
    "GroupStanding",
    "MailedMove",
    "Move",
    "Notification",
    "NotificationKind",
    "PositionEvaluation",
    "PrivateNote",
    "Seek",
    "SiteRules",
    "Tournament",
    "TournamentEntry",
    "TournamentGroup",
    "Vacation",
    "mail_kind_on",
    "wants_mail",
]
