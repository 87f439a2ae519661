"""The rules of correspondence tournaments, as pure functions: no database, no Django.

- :mod:`.berger`: who plays whom with which colour in a round robin (FIDE's Berger tables);
- :mod:`.seeding`: players split into groups of even strength (snake seeding by rating);
- :mod:`.scoring`: standings and their tiebreaks (Sonneborn–Berger, wins, the direct
  encounter) and ICCF's rule for the games of a player who withdraws.

The services (:mod:`games.services.tournaments`) store what these decide; the read model
shows it.
"""

from games.tournament_rules.berger import Pairing, berger_table, round_robin
from games.tournament_rules.scoring import (
    GameResult,
    Standing,
    annuls_on_withdrawal,
    standings,
)
from games.tournament_rules.seeding import group_count, snake_groups

__all__ = [
    "GameResult",
    "Pairing",
    "Standing",
    "annuls_on_withdrawal",
    "berger_table",
    "group_count",
    "round_robin",
    "snake_groups",
    "standings",
]
