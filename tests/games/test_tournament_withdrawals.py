"""A player leaves a tournament being played (withdraws, closes the account, is removed):
their unfinished games end by forfeit through the services and their games are scored by
ICCF's rule, as the tables and crosstables show. Seven-player sections played to their
end with one withdrawal each."""

from __future__ import annotations

import pytest

from accounts import services as account_services
from games import errors, rules, services, state
from games.models import Game, GroupStanding, Tournament, TournamentEntry, TournamentGroup
from tests.games.tournaments import end_game, game_between, join_all, make_event, table

pytestmark = pytest.mark.django_db


def score(a: str, b: str) -> float:
    """The designed result of a against b (names p01…p07): the lower number wins, but p03
    beats p02 and p04 beats p01."""
    upsets = {("p03", "p02"), ("p04", "p01")}
    if (a, b) in upsets:
        return 1.0
    if (b, a) in upsets:
        return 0.0
    return 1.0 if a < b else 0.0


@pytest.fixture
def section(make_player):
    players = {f"p{n:02d}": make_player(f"p{n:02d}") for n in range(1, 8)}
    event = make_event(min_players=7, max_players=7)
    join_all(event, players.values())
    group = TournamentGroup.objects.get(tournament=event)
    return event, group, players


def play(group, players, a: str, b: str) -> Game:
    game = game_between(group, players[a], players[b])
    return end_game(game, score(a, b) if game.white.username == a else 1 - score(a, b))


def others(players, leaver: str) -> list[tuple[str, str]]:
    names = sorted(n for n in players if n != leaver)
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]


def test_a_withdrawal_with_half_the_games_done_loses_the_rest(section):
    event, group, players = section
    pairs = others(players, "p07")
    for a, b in pairs[:8]:
        play(group, players, a, b)
    for a in ("p01", "p02", "p03"):
        play(group, players, a, "p07")
    # Three of six finished: not under half, so the other three are lost by forfeit.
    services.withdraw(tournament_id=event.pk, player=players["p07"])
    forfeited = [game_between(group, players[a], players["p07"]) for a in ("p04", "p05", "p06")]
    for game in forfeited:
        assert not game.is_active
        assert game.termination == rules.Termination.ABANDONMENT
        assert game.winner_colour != game.colour_of(players["p07"].pk)
    standing = GroupStanding.objects.get(player=players["p07"])
    assert standing.withdrawn and not standing.annulled
    for a, b in pairs[8:]:
        play(group, players, a, b)
    # Points, then Sonneborn–Berger: p01 (12) above p03 (11), and p04 (8) above p02 (7)
    # although p02 beat p04: the direct encounter comes after Sonneborn–Berger and wins.
    assert table(group) == [
        ("p01", 5.0, 12.0, 5, 1),
        ("p03", 5.0, 11.0, 5, 2),
        ("p04", 4.0, 8.0, 4, 3),
        ("p02", 4.0, 7.0, 4, 4),
        ("p05", 2.0, 1.0, 2, 5),
        ("p06", 1.0, 0.0, 1, 6),
        ("p07", 0.0, 0.0, 0, 7),
    ]
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED
    # The crosstable shows the forfeits as such.
    [[crosstable]] = [r.tables for r in state.tournaments.crosstables(event)]
    order = [row.player.username for row in crosstable.rows]
    rows = dict(zip(order, crosstable.rows, strict=True))
    [won] = rows["p04"].cells[order.index("p07")]
    [lost] = rows["p07"].cells[order.index("p04")]
    assert (won.text, won.forfeit, won.annulled) == ("+", True, False)
    assert (lost.text, lost.forfeit) == ("−", True)
    [played] = rows["p01"].cells[order.index("p07")]
    assert (played.text, played.forfeit) == ("1", False)


def test_a_withdrawal_under_half_done_annuls_every_result_of_the_player(section):
    event, group, players = section
    for a in ("p01", "p02"):
        play(group, players, a, "p07")
    services.withdraw(tournament_id=event.pk, player=players["p07"])
    assert not Game.objects.of_player(players["p07"], status=Game.Status.ACTIVE).exists()
    for a, b in others(players, "p07"):
        play(group, players, a, b)
    # p07's six games count for nobody: p01 has 4 points from 5 games, not 5 from 6.
    assert table(group) == [
        ("p01", 4.0, 8.0, 4, 1),
        ("p03", 4.0, 7.0, 4, 2),
        ("p04", 3.0, 5.0, 3, 3),
        ("p02", 3.0, 4.0, 3, 4),
        ("p05", 1.0, 0.0, 1, 5),
        ("p06", 0.0, 0.0, 0, 6),
        ("p07", 0.0, 0.0, 0, None),
    ]
    p01 = GroupStanding.objects.get(player=players["p01"])
    assert (p01.played, p01.left) == (5, 0)
    assert GroupStanding.objects.get(player=players["p07"]).annulled
    [[crosstable]] = [r.tables for r in state.tournaments.crosstables(event)]
    order = [row.player.username for row in crosstable.rows]
    assert order[-1] == "p07"
    [annulled] = crosstable.rows[0].cells[order.index("p07")]
    assert (annulled.text, annulled.annulled) == ("1", True)
    page_rows = state.tournaments.crosstables(event)[0].tables[0].rows
    assert page_rows[-1].standing.withdrawn


def test_closing_the_account_withdraws_from_its_tournaments(section, make_player, start_game):
    event, group, players = section
    leaver = players["p07"]
    later = make_event(name="Later Cup", max_players=5)
    services.join_tournament(tournament_id=later.pk, player=leaver)
    ordinary = start_game(leaver, make_player("zoe"))
    account_services.revoke_access(player=leaver)
    entry = TournamentEntry.objects.get(tournament=event, player=leaver)
    assert entry.withdrawn_at is not None and entry.withdrawn_by is None
    assert not TournamentEntry.objects.filter(tournament=later, player=leaver).exists()
    games = Game.objects.filter(tournament_group=group).of_player(leaver)
    # Nobody had moved: a tournament game is forfeited all the same, never aborted.
    assert {g.termination for g in games} == {rules.Termination.ABANDONMENT}
    assert all(g.result in ("1-0", "0-1") for g in games)
    # Under half finished (none): annulled.
    assert GroupStanding.objects.get(player=leaver).annulled
    ordinary.refresh_from_db()
    assert ordinary.termination == rules.Termination.ABORTED


def test_withdrawing_twice_or_from_an_event_not_played_is_refused(section, make_player):
    event, _group, players = section
    services.withdraw(tournament_id=event.pk, player=players["p01"])
    with pytest.raises(errors.NotRegistered):
        services.withdraw(tournament_id=event.pk, player=players["p01"])
    with pytest.raises(errors.NotRegistered):
        services.withdraw(tournament_id=event.pk, player=make_player("stranger"))
    with pytest.raises(errors.TournamentNotFound):
        services.withdraw(tournament_id=10**6, player=players["p02"])
    waiting = make_event(name="Later Cup")
    services.join_tournament(tournament_id=waiting.pk, player=players["p02"])
    with pytest.raises(errors.TournamentNotRunning):
        services.withdraw(tournament_id=waiting.pk, player=players["p02"])


def test_a_player_who_withdraws_after_their_group_gives_their_place_to_the_next(make_player):
    players = [make_player(f"q{n}") for n in range(1, 7)]
    event = make_event(kind="multi_round", max_players=6, group_size=3, advance=1)
    join_all(event, players)
    first, second = TournamentGroup.objects.filter(tournament=event).order_by("number")
    names = sorted(GroupStanding.objects.filter(group=first).values_list("player__username",
                                                                          flat=True))
    by_name = {p.username: p for p in players}
    # In the first group the first name wins everything, the second beats the third.
    for a, b in ((names[0], names[1]), (names[0], names[2]), (names[1], names[2])):
        game = game_between(first, by_name[a], by_name[b])
        end_game(game, 1 if game.white.username == a else 0)
    assert GroupStanding.objects.get(group=first, player=by_name[names[0]]).advanced
    services.withdraw(tournament_id=event.pk, player=by_name[names[0]])
    for game in Game.objects.filter(tournament_group=second):
        end_game(game, 0.5)
    final = TournamentGroup.objects.get(tournament=event, round=2)
    finalists = set(GroupStanding.objects.filter(group=final).values_list("player__username",
                                                                          flat=True))
    assert names[1] in finalists and names[0] not in finalists
