"""Every change to challenges and games: the only writer of game state.

Each service runs in one transaction, locks the rows it changes, checks the request
against the stored state, raises a :mod:`games.errors` error when it does not fit, and
publishes an event once the transaction has committed. Web views, WebSocket consumers,
the admin and the TCP gateways all call these functions, through this package.

One module per role, as lichess's round module has Drawer, Finisher, Forecast and
CorresAlarm:

- :mod:`~games.services.challenges`: challenges, and the games they (or a gateway) start;
- :mod:`~games.services.moves`: a move, checked and written, and the replies it sets off;
- :mod:`~games.services.conditional_lines`: the conditional moves a player sets;
- :mod:`~games.services.draws`: draw offers, answers and claims;
- :mod:`~games.services.resignations`: resigning, leaving for good;
- :mod:`~games.services.endings`: the one way a game ends, whatever ends it;
- :mod:`~games.services.clocks`: the clocks, paused, warned, travelled;
- :mod:`~games.services.timeouts`: time run out;
- :mod:`~games.services.vacations`: vacations;
- :mod:`~games.services.upkeep`: the sweep, the purge, naming openings;
- :mod:`~games.services.guards`: the checks every service makes first.
"""

from games.services.challenges import (
    accept_challenge,
    challenge,
    decline_challenge,
    start_gateway_game,
    withdraw_challenge,
)
from games.services.clocks import advance_clocks, warn_low_time
from games.services.conditional_lines import clear_conditional_lines, set_conditional_lines
from games.services.draws import answer_draw, claim_draw, offer_draw, offer_or_accept_draw
from games.services.moves import make_move, preview_move
from games.services.resignations import abandon_games, leave_gateway_game, resign
from games.services.timeouts import expire_due_games_of, expire_game
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
    "accept_challenge",
    "advance_clocks",
    "answer_draw",
    "challenge",
    "claim_draw",
    "clear_conditional_lines",
    "decline_challenge",
    "delete_finished_games",
    "delete_game",
    "end_spent_vacations",
    "end_vacation",
    "expire_due_games",
    "expire_due_games_of",
    "expire_game",
    "leave_gateway_game",
    "make_move",
    "name_openings",
    "offer_draw",
    "offer_or_accept_draw",
    "preview_move",
    "purge_idle_guests",
    "resign",
    "set_conditional_lines",
    "start_gateway_game",
    "start_vacation",
    "warn_low_time",
    "withdraw_challenge",
]
