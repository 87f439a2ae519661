"""Tournaments played to their end through the services: a section's table against a
published crosstable, a multi-round event of three groups and a final, the tables
written the moment each game ends, and the event's crosstables, games and PGN."""

from __future__ import annotations

import pytest

from games import state
from games.models import (
    Game,
    GroupStanding,
    Notification,
    NotificationKind,
    Tournament,
    TournamentGroup,
)
from games.pgn_export import batch_text
from ranking.models import PlayerRecord
from tests.games.test_tournament_rules import (
    UZCHESS_CUP_2025,
    UZCHESS_CUP_2025_PUBLISHED,
    UZCHESS_CUP_2025_SEEDS,
)
from tests.games.tournaments import end_game, game_between, join_all, make_event, table

pytestmark = pytest.mark.django_db


def _rate(players) -> None:
    """Ratings falling in the order given: the first is the top seed."""
    for rank, player in enumerate(players):
        PlayerRecord.objects.update_or_create(player=player, defaults={"rating": 2000 - 10 * rank})


def test_a_section_played_with_the_uzchess_cup_results_gives_its_published_table(make_player):
    # The UzChess Cup Masters 2025 (chess-results.com, tournament 1175851) replayed as a
    # section here: our Berger numbers and colours differ from theirs, each pair's result
    # is theirs.
    accounts = {name: make_player(name.lower()) for name in UZCHESS_CUP_2025_SEEDS}
    _rate([accounts[name] for name in UZCHESS_CUP_2025_SEEDS])
    event = make_event(min_players=10, max_players=10)
    join_all(event, accounts.values())
    group = TournamentGroup.objects.get(tournament=event)
    assert Game.objects.filter(tournament_group=group).count() == 45
    for white, black, score in UZCHESS_CUP_2025:
        game = game_between(group, accounts[white], accounts[black])
        end_game(game, score if game.white == accounts[white] else 1 - score)
    got = {name: (points, sb) for name, points, sb, _wins, _place in table(group)}
    assert got == {
        name.lower(): (points, sb) for name, (points, sb, _w) in UZCHESS_CUP_2025_PUBLISHED.items()
    }
    assert [row[0] for row in table(group)][:3] == ["pragg", "abdu", "sindarov"]
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED
    assert TournamentGroup.objects.get(pk=group.pk).finished_at is not None


def test_the_table_is_written_the_moment_a_game_ends(make_player):
    players = [make_player(n) for n in ("ann", "ben", "cat", "dan")]
    event = make_event(max_players=4)
    join_all(event, players)
    group = TournamentGroup.objects.get(tournament=event)
    assert {row[1] for row in table(group)} == {0.0}
    assert set(GroupStanding.objects.values_list("left", flat=True)) == {3}
    game = end_game(game_between(group, players[0], players[1]), 1)
    winner = game.white if game.result == "1-0" else game.black
    rows = {r.player.username: r for r in GroupStanding.objects.select_related("player")}
    assert float(rows[winner.username].points) == 1.0
    assert (rows[winner.username].played, rows[winner.username].left) == (1, 2)


def test_a_multi_round_event_of_three_groups_and_a_final(make_player):
    players = [make_player(f"p{n:02d}") for n in range(1, 13)]
    _rate(players)
    event = make_event(kind="multi_round", max_players=12, group_size=4, advance=1)
    join_all(event, players)
    groups = list(TournamentGroup.objects.filter(tournament=event, round=1).order_by("number"))
    # Snake seeding: seeds 1, 6, 7, 12 | 2, 5, 8, 11 | 3, 4, 9, 10.
    members = [
        sorted(GroupStanding.objects.filter(group=g).values_list("player__username", flat=True))
        for g in groups
    ]
    assert members == [
        ["p01", "p06", "p07", "p12"], ["p02", "p05", "p08", "p11"], ["p03", "p04", "p09", "p10"],
    ]
    by_name = {p.username: p for p in players}
    for group, names in zip(groups, members, strict=True):
        first, second, third, fourth = names  # sorted by name: the seed order
        # The top seed wins everything, the second beats the last two, the last two draw.
        for a, b, score in (
            (first, second, 1), (first, third, 1), (first, fourth, 1),
            (second, third, 1), (second, fourth, 1), (third, fourth, 0.5),
        ):
            game = game_between(group, by_name[a], by_name[b])
            end_game(game, score if game.white.username == a else 1 - score)
    assert table(groups[0]) == [
        ("p01", 3.0, 3.0, 3, 1),
        ("p06", 2.0, 1.0, 2, 2),
        # Level on points, Sonneborn–Berger, wins and their game: one place, by seed.
        ("p07", 0.5, 0.25, 0, 3),
        ("p12", 0.5, 0.25, 0, 3),
    ]
    advanced = set(GroupStanding.objects.filter(advanced=True).values_list("player__username",
                                                                             flat=True))
    assert advanced == {"p01", "p02", "p03"}
    event.refresh_from_db()
    assert (event.status, event.current_round) == (Tournament.Status.RUNNING, 2)
    final = TournamentGroup.objects.get(tournament=event, round=2)
    assert Game.objects.filter(tournament_group=final).count() == 3
    out = Notification.objects.get(kind=NotificationKind.TOURNAMENT_RESULT,
                                   recipient=by_name["p06"])
    assert state.notification_text(out) == (
        "Your group in round 1 of Spring Cup is over: place 2, you are out."
    )
    going_on = Notification.objects.get(kind=NotificationKind.TOURNAMENT_STARTED,
                                        recipient=by_name["p02"], detail__round=2)
    assert state.notification_text(going_on) == (
        "You are in the final of Spring Cup: your 2 games have started."
    )
    # The final: p03 beats p01 and draws p02; p01 and p02 draw.
    for a, b, score in (("p03", "p01", 1), ("p03", "p02", 0.5), ("p01", "p02", 0.5)):
        game = game_between(final, by_name[a], by_name[b])
        end_game(game, score if game.white.username == a else 1 - score)
    assert table(final) == [
        # p03: ½ (p01's points, beaten) + ½ × 1 (p02's, drawn) = 1.
        ("p03", 1.5, 1.0, 1, 1), ("p02", 1.0, 1.0, 0, 2), ("p01", 0.5, 0.5, 0, 3),
    ]
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED
    won = Notification.objects.get(kind=NotificationKind.TOURNAMENT_RESULT,
                                   recipient=by_name["p03"], detail__round=2)
    assert state.notification_text(won) == "Spring Cup is over: you finished in place 1."
    # The crosstables: the final first, then round 1's three groups.
    rounds = state.tournaments.crosstables(event)
    assert [(r.round, [t.label for t in r.tables]) for r in rounds] == [
        (2, ["Final"]),
        (1, ["Round 1, group 1", "Round 1, group 2", "Round 1, group 3"]),
    ]
    # All games as one PGN: the event's name, and its round and Berger round.
    pgn = batch_text(list(Game.objects.filter(tournament=event).order_by("pk")
                          .values_list("pk", flat=True)))
    assert pgn.count('[Event "Spring Cup"]') == 21
    rounds_tags = {line for line in pgn.splitlines() if line.startswith("[Round ")}
    assert rounds_tags == {'[Round "1.1"]', '[Round "1.2"]', '[Round "1.3"]',
                           '[Round "2.1"]', '[Round "2.2"]', '[Round "2.3"]'}


def test_a_crosstable_cell_links_each_game_from_the_rows_side(make_player):
    players = [make_player(n) for n in ("ann", "ben", "cat")]
    event = make_event(max_players=3, cycles=2)
    join_all(event, players)
    group = TournamentGroup.objects.get(tournament=event)
    games = list(Game.objects.filter(tournament_group=group, white__in=players[:2],
                                     black__in=players[:2]).order_by("tournament_round"))
    end_game(games[0], 1)
    [tables] = state.tournaments.crosstables(event)
    [crosstable] = tables.tables
    rows = {row.player.username: row for row in crosstable.rows}
    order = [row.player.username for row in crosstable.rows]
    winner = games[0].white.username
    loser = games[0].black.username
    cell = rows[winner].cells[order.index(loser)]
    assert cell is not None
    assert [(g.text, g.outcome) for g in cell] == [("1", "won"), ("·", "ongoing")]
    assert cell[0].url == f"/games/{games[0].pk}/"
    assert rows[loser].cells[order.index(winner)][0].text == "0"
    assert rows[winner].cells[order.index(winner)] is None
