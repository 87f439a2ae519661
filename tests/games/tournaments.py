"""Helpers for the tournament tests: events made as the administrator makes them, games
ended with a given result through the services, tables read back."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model

from games import services
from games.models import Game, GroupStanding, Tournament, TournamentGroup

User = get_user_model()


def make_event(**fields: Any) -> Tournament:
    """An event saved through the service, a small section open until full by default."""
    values: dict[str, Any] = {
        "name": "Spring Cup",
        "kind": Tournament.Kind.ROUND_ROBIN,
        "min_players": 3,
        "max_players": 4,
        "days_per_move": 3,
    }
    values.update(fields)
    return services.save_tournament(tournament=Tournament(**values))


def make_players(make_player, count: int, prefix: str = "p") -> list:
    return [make_player(f"{prefix}{n:02d}") for n in range(1, count + 1)]


def join_all(event: Tournament, players: Iterable) -> None:
    for player in players:
        services.join_tournament(tournament_id=event.pk, player=player)


def end_game(game: Game, white_score: float) -> Game:
    """End ``game`` with white scoring ``white_score`` (1, ½ or 0), as players do: a
    resignation, or a draw offered and accepted."""
    game.refresh_from_db()
    if white_score == 1:
        services.resign(game_id=game.pk, player=game.black)
    elif white_score == 0:
        services.resign(game_id=game.pk, player=game.white)
    else:
        services.offer_draw(game_id=game.pk, player=game.white)
        services.answer_draw(game_id=game.pk, player=game.black, accept=True)
    game.refresh_from_db()
    return game


def game_between(group: TournamentGroup, a, b) -> Game:
    """The (first) game of ``a`` and ``b`` in ``group``, whoever has white."""
    return (
        Game.objects.filter(tournament_group=group)
        .filter(white__in=(a, b), black__in=(a, b))
        .order_by("tournament_round")
        .first()
    )


def table(group: TournamentGroup) -> list[tuple[str, float, float, int, int | None]]:
    """The group's table as (name, points, Sonneborn–Berger, wins, place), in order."""
    rows = GroupStanding.objects.filter(group=group).select_related("player")
    ordered = sorted(rows, key=lambda r: (r.place is None, r.place or 0, r.seed))
    return [
        (r.player.username, float(r.points), float(r.sonneborn_berger), r.wins, r.place)
        for r in ordered
    ]
