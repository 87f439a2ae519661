"""Every change to challenges and games: the only writer of game state.

Each service runs in one transaction, locks the rows it changes, checks the request
against the stored state, raises a :mod:`games.errors` error when it does not fit, and
publishes an event once the transaction has committed. Web views, WebSocket consumers,
the admin and the TCP gateways all call these functions, through this package.

One module per role, as lichess's round module has Drawer, Finisher, Forecast and
CorresAlarm:

- :mod:`~games.services.challenges`: challenges, and the games they (or a gateway) start;
- :mod:`~games.services.seeks`: open challenges (seeks) in the lobby;
- :mod:`~games.services.moves`: a move, checked and written, and the replies it sets off;
- :mod:`~games.services.conditional_lines`: the conditional moves a player sets;
- :mod:`~games.services.draws`: draw offers, answers and claims;
- :mod:`~games.services.resignations`: resigning, leaving for good;
- :mod:`~games.services.endings`: the one way a game ends, whatever ends it;
- :mod:`~games.services.clocks`: the clocks, paused, warned, travelled;
- :mod:`~games.services.timeouts`: time run out;
- :mod:`~games.services.vacations`: vacations;
- :mod:`~games.services.upkeep`: the sweep, the purge, naming openings;
- :mod:`~games.services.site_rules`: the rules of play an administrator sets;
- :mod:`~games.services.tournaments`: tournaments' settings, registration, start;
- :mod:`~games.services.tournament_rounds`: their rounds, tables and advancing players;
- :mod:`~games.services.tournament_withdrawals`: leaving a tournament being played;
- :mod:`~games.services.bots`: accounts upgraded to bots (the lichess API);
- :mod:`~games.services.analysis`: the engine's analyses and positions, asked and recorded;
- :mod:`~games.services.imports`: games imported from PGN;
- :mod:`~games.services.notes`: a player's private notes on their games;
- :mod:`~games.services.guards`: the checks every service makes first.
"""

from games.services.analysis import (
    claim_analysis,
    fail_analysis,
    finish_analysis,
    record_evaluations,
    record_position_evaluation,
    request_analysis,
    request_position_evaluation,
)
from games.services.bots import upgrade_to_bot
from games.services.challenges import (
    accept_challenge,
    challenge,
    decline_challenge,
    start_gateway_game,
    withdraw_challenge,
)
from games.services.clocks import advance_clocks, warn_low_time
from games.services.conditional_lines import clear_conditional_lines, set_conditional_lines
from games.services.draws import (
    accept_or_offer_draw,
    answer_draw,
    claim_draw,
    offer_draw,
    offer_or_accept_draw,
)
from games.services.imports import import_game, read_import
from games.services.moves import make_move, preview_move
from games.services.notes import save_note
from games.services.resignations import abandon_games, abort, leave_gateway_game, resign
from games.services.seeks import accept_seek, cancel_seek, create_seek
from games.services.site_rules import set_site_rules
from games.services.timeouts import claim_victory, expire_due_games_of, expire_game
from games.services.tournament_withdrawals import withdraw, withdraw_everywhere
from games.services.tournaments import (
    cancel_tournament,
    join_tournament,
    leave_tournament,
    save_tournament,
    start_due_tournaments,
    start_tournament,
)
from games.services.upkeep import (
    delete_finished_games,
    delete_game,
    expire_due_games,
    name_openings,
    purge_idle_guests,
)
from games.services.vacations import end_spent_vacations, end_vacation, start_vacation

__all__ = [
    "abandon_games",
    "abort",
    "accept_challenge",
    "accept_or_offer_draw",
    "accept_seek",
    "advance_clocks",
    "answer_draw",
    "cancel_seek",
    "cancel_tournament",
    "challenge",
    "claim_analysis",
    "claim_draw",
    "claim_victory",
    "clear_conditional_lines",
    "create_seek",
    "decline_challenge",
    "delete_finished_games",
    "delete_game",
    "end_spent_vacations",
    "end_vacation",
    "expire_due_games",
    "expire_due_games_of",
    "expire_game",
    "fail_analysis",
    "finish_analysis",
    "import_game",
    "join_tournament",
    "leave_gateway_game",
    "leave_tournament",
    "make_move",
    "name_openings",
    "offer_draw",
    "offer_or_accept_draw",
    "preview_move",
    "purge_idle_guests",
    "read_import",
    "record_evaluations",
    "record_position_evaluation",
    "request_analysis",
    "request_position_evaluation",
    "resign",
    "save_note",
    "save_tournament",
    "set_conditional_lines",
    "set_site_rules",
    "start_due_tournaments",
    "start_gateway_game",
    "start_tournament",
    "start_vacation",
    "upgrade_to_bot",
    "warn_low_time",
    "withdraw",
    "withdraw_challenge",
    "withdraw_everywhere",
]
