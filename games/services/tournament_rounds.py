"""The rounds of a tournament: a round begins (its groups dealt, every game started at
once), a group's table is written each time one of its games ends, and when a round's
groups are all over its best players go on to the next round, or the event ends.

:func:`game_ended` is called by :func:`games.services.endings.finish`, the one way a game
ends, inside its transaction: the table is current the moment the game is over.
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Sequence
from decimal import Decimal

from django.utils import timezone

from accounts.types import Player
from games import tournament_rules
from games.events import publish_round_started, publish_tournament_event
from games.models import (
    Game,
    GroupStanding,
    NotificationKind,
    Tournament,
    TournamentEntry,
    TournamentGroup,
)
from games.notifications import notify
from games.services.challenges import create_game

# White's points by stored result; an aborted game ("*") scores for nobody.
SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def start_round(
    tournament: Tournament, number: int, seeded: Sequence[Player], *, now: dt.datetime
) -> list[TournamentGroup]:
    """Begin round ``number`` of the locked ``tournament`` with ``seeded`` (the strongest
    first): a section's one group, or groups of the event's size by snake seeding; in
    each, Berger numbers by lot and every game of the round robin started now. Each
    player is told."""
    if tournament.is_multi_round and len(seeded) > (tournament.group_size or 0):
        dealt = tournament_rules.snake_groups(list(seeded), tournament.group_size or 0)
    else:
        dealt = [list(seeded)]
    tournament.current_round = number
    tournament.save(update_fields=["current_round"])
    final = len(dealt) == 1
    groups = []
    for group_number, members in enumerate(dealt, start=1):
        group = TournamentGroup.objects.create(
            tournament=tournament, round=number, number=group_number
        )
        groups.append(group)
        drawn = list(members)
        secrets.SystemRandom().shuffle(drawn)  # the draw of lots for the Berger numbers
        seed_of = {player.pk: index for index, player in enumerate(members, start=1)}
        GroupStanding.objects.bulk_create(
            GroupStanding(group=group, player=player, number=index, seed=seed_of[player.pk])
            for index, player in enumerate(drawn, start=1)
        )
        pairings = tournament_rules.round_robin(len(drawn), cycles=tournament.cycles)
        games_of: dict[int, int] = dict.fromkeys(seed_of, 0)
        for pairing in pairings:
            white, black = drawn[pairing.white - 1], drawn[pairing.black - 1]
            create_game(
                white=white,
                black=black,
                days_per_move=tournament.days_per_move,
                fischer=tournament.fischer,
                rated=tournament.rated,
                tournament=tournament,
                tournament_group=group,
                tournament_round=pairing.round,
                within_pair_limit=False,
            )
            games_of[white.pk] += 1
            games_of[black.pk] += 1
        write_table(group)
        for player in members:
            notify(
                recipient=player,
                kind=NotificationKind.TOURNAMENT_STARTED,
                detail={
                    "tournament": tournament.pk,
                    "name": tournament.name,
                    "round": number,
                    "group": group_number,
                    "groups": len(dealt),
                    "games": games_of[player.pk],
                    "final": final and tournament.is_multi_round and number > 1,
                },
            )
    # One announcement for the round's games (the players' dashboards, the lobby, the
    # event's page), not one per game: nobody watches a game that has just begun.
    publish_round_started(tournament.pk, [player.pk for player in seeded])
    return groups


def game_ended(game: Game, *, now: dt.datetime | None = None) -> None:
    """A game of a tournament has just ended (in the caller's transaction): its group's
    table is written again, and the group, the round, the event move on if that was
    their last game."""
    assert game.tournament_group_id is not None
    group = (
        TournamentGroup.objects.select_for_update(of=("self",))
        .select_related("tournament")
        .get(pk=game.tournament_group_id)
    )
    refresh_group(group, now=now or timezone.now())


def refresh_group(group: TournamentGroup, *, now: dt.datetime) -> None:
    """Write the locked ``group``'s table from its games; when none is left to play,
    close it and, with its round over, begin the next round or end the event."""
    complete = write_table(group)
    tournament = group.tournament
    if complete and group.finished_at is None and tournament.status == Tournament.Status.RUNNING:
        _close_group(group, now)
    publish_tournament_event(tournament.pk, "table_changed")


def write_table(group: TournamentGroup) -> bool:
    """Compute and store ``group``'s standings; whether all its games are over."""
    rows = list(GroupStanding.objects.filter(group=group).order_by("seed", "number"))
    results = []
    complete = True
    for white_id, black_id, status, result in Game.objects.filter(
        tournament_group=group
    ).values_list("white_id", "black_id", "status", "result"):
        if status != Game.Status.FINISHED:
            complete = False
            results.append(tournament_rules.GameResult(white_id, black_id, None))
        elif result in SCORES:
            results.append(tournament_rules.GameResult(white_id, black_id, SCORES[result]))
    table = tournament_rules.standings(
        [row.player_id for row in rows],
        results,
        annulled={row.player_id for row in rows if row.annulled},
    )
    by_player = {row.player_id: row for row in rows}
    for line in table:
        row = by_player[line.player]
        row.points = Decimal(str(line.points))
        row.sonneborn_berger = Decimal(str(line.sonneborn_berger))
        row.wins, row.played, row.left, row.place = line.wins, line.played, line.left, line.place
    GroupStanding.objects.bulk_update(
        rows, ["points", "sonneborn_berger", "wins", "played", "left", "place"]
    )
    return complete


def _ranked(group: TournamentGroup) -> list[GroupStanding]:
    """The group's rows in the table's order (annulled results last)."""
    rows = list(GroupStanding.objects.filter(group=group).select_related("player"))
    return sorted(rows, key=lambda r: (r.place is None, r.place or 0, r.seed))


def _close_group(group: TournamentGroup, now: dt.datetime) -> None:
    tournament = group.tournament
    group.finished_at = now
    group.save(update_fields=["finished_at"])
    ranked = _ranked(group)
    last_round = (
        not tournament.is_multi_round
        or TournamentGroup.objects.filter(tournament=tournament, round=group.round).count() == 1
    )
    if not last_round:
        _mark_advancing(ranked, tournament.advance or 0)
    for row in ranked:
        notify(
            recipient=row.player,
            kind=NotificationKind.TOURNAMENT_RESULT,
            detail={
                "tournament": tournament.pk,
                "name": tournament.name,
                "round": group.round,
                "group": group.number,
                "place": row.place,
                "advanced": row.advanced,
                "final": last_round,
            },
        )
    if TournamentGroup.objects.filter(
        tournament=tournament, round=group.round, finished_at__isnull=True
    ).exists():
        return  # other groups of the round are still playing
    if last_round:
        _finish(tournament, now)
        return
    _next_round(tournament, now)


def _mark_advancing(ranked: list[GroupStanding], count: int) -> list[GroupStanding]:
    """Mark the best ``count`` of a group's ``ranked`` rows as going on: a player who
    withdrew leaves their place to the next."""
    going_on = [r for r in ranked if not r.withdrawn and not r.annulled][:count]
    for row in ranked:
        row.advanced = row in going_on
    GroupStanding.objects.bulk_update(ranked, ["advanced"])
    return going_on


def _next_round(tournament: Tournament, now: dt.datetime) -> None:
    """Everyone who goes on from the round just over plays the next, seeded again by
    their rating at the event's start. Who goes on is decided again now: a player who
    withdrew after their group was over gives their place to the next of that group."""
    going_on = []
    for group in TournamentGroup.objects.filter(
        tournament=tournament, round=tournament.current_round
    ):
        going_on += _mark_advancing(_ranked(group), tournament.advance or 0)
    if len(going_on) < 2:
        _finish(tournament, now)
        return
    ratings = dict(
        TournamentEntry.objects.filter(tournament=tournament).values_list("player_id", "rating")
    )
    seeded = sorted(going_on, key=lambda r: (-(ratings.get(r.player_id) or 0), r.player_id))
    start_round(tournament, tournament.current_round + 1, [r.player for r in seeded], now=now)


def _finish(tournament: Tournament, now: dt.datetime) -> None:
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = now
    tournament.save(update_fields=["status", "finished_at"])
    publish_tournament_event(tournament.pk, "finished")
