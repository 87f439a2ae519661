"""The label a tournament's game carries wherever it is named: notifications, mail, the
PGN's Round tag. Reads the game's tournament and group: select them with it."""

from __future__ import annotations

from django.utils.translation import gettext

from games.models import Game


def game_event_label(game: Game) -> str:
    """"Spring Cup, round 3" (a section's game, its Berger round) or "Spring Cup, round
    2, group 1" (a multi-round event's); "" for a game of no tournament. Reads the game's
    tournament and group: select them with it."""
    if game.tournament_id is None:
        return ""
    tournament = game.tournament
    assert tournament is not None
    if tournament.is_multi_round and game.tournament_group is not None:
        return gettext("%(event)s, round %(round)d, group %(group)d") % {
            "event": tournament.name,
            "round": game.tournament_group.round,
            "group": game.tournament_group.number,
        }
    return gettext("%(event)s, round %(round)d") % {
        "event": tournament.name, "round": game.tournament_round or 1,
    }


def pgn_round(game: Game) -> str:
    """The PGN's Round tag of a tournament game: the Berger round in a section, "2.3"
    (the event's round, then the Berger round) in a multi-round event."""
    if game.tournament_id is None or game.tournament_round is None:
        return "-"
    tournament = game.tournament
    if tournament is not None and tournament.is_multi_round and game.tournament_group:
        return f"{game.tournament_group.round}.{game.tournament_round}"
    return str(game.tournament_round)
