"""Tournaments before their games: the administrator's settings, joining and leaving,
the start (all the games at once, outside the one-game-per-pair rule) or the call-off."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest
from django.utils import timezone

from accounts import errors as account_errors
from accounts import services as account_services
from accounts.models import BotAccount
from games import errors, services
from games.models import (
    Game,
    GroupStanding,
    Notification,
    NotificationKind,
    Tournament,
    TournamentEntry,
)
from ranking.models import PlayerRecord
from tests.games.tournaments import join_all, make_event, make_players

pytestmark = pytest.mark.django_db


# --------------------------------------------------------------------------- settings


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"name": "   "}, "needs a name"),
        ({"min_players": 5, "max_players": 4}, "the most at least the fewest"),
        ({"min_players": 1}, "At least 2 players"),
        ({"max_players": 31}, "at most 30 players"),
        ({"days_per_move": 4}, "time control"),
        ({"cycles": 3}, "one game or two"),
        ({"min_rating": 1800, "max_rating": 1500}, "lowest rating is above"),
        ({"kind": "multi_round", "max_players": 40}, "A group holds 3 to 30"),
        ({"kind": "multi_round", "max_players": 40, "group_size": 8, "advance": 8}, "not all"),
        ({"kind": "swiss"}, "Choose a kind"),
    ],
)
def test_settings_that_do_not_fit_are_refused_with_the_reason(fields, says):
    with pytest.raises(errors.InvalidTournament) as refused:
        make_event(**fields)
    assert says in refused.value.message
    assert not Tournament.objects.exists()


def test_registration_must_close_by_the_start():
    now = timezone.now()
    with pytest.raises(errors.InvalidTournament):
        make_event(starts_at=now, registration_closes_at=now + dt.timedelta(days=1))


def test_a_started_event_keeps_its_settings_but_its_words(make_player):
    event = make_event(max_players=3)
    join_all(event, make_players(make_player, 3))
    event.refresh_from_db()
    event.name, event.description, event.max_players = "Autumn Cup", "New words", 20
    services.save_tournament(tournament=event)
    event.refresh_from_db()
    assert (event.name, event.description, event.max_players) == ("Autumn Cup", "New words", 3)
    assert event.status == Tournament.Status.RUNNING


# --------------------------------------------------------------------------- joining


def test_a_player_joins_and_leaves_before_the_start(alice):
    event = make_event()
    entry = services.join_tournament(tournament_id=event.pk, player=alice)
    assert entry.player == alice and entry.tournament == event
    services.leave_tournament(tournament_id=event.pk, player=alice)
    assert not TournamentEntry.objects.exists()


def test_joining_twice_is_refused(alice):
    event = make_event()
    services.join_tournament(tournament_id=event.pk, player=alice)
    with pytest.raises(errors.AlreadyRegistered):
        services.join_tournament(tournament_id=event.pk, player=alice)


def test_a_full_event_takes_nobody_more(make_player):
    event = make_event(max_players=3, starts_at=timezone.now() + dt.timedelta(days=7))
    join_all(event, make_players(make_player, 3))
    with pytest.raises(errors.TournamentFull):
        services.join_tournament(tournament_id=event.pk, player=make_player("late"))


def test_registration_closes_at_its_date(alice):
    event = make_event(registration_closes_at=timezone.now() - dt.timedelta(minutes=1))
    with pytest.raises(errors.RegistrationClosed):
        services.join_tournament(tournament_id=event.pk, player=alice)


@pytest.mark.parametrize(("rating", "refused"), [(1400, True), (1500, False), (1700, True)])
def test_the_rating_bounds_are_checked_on_joining(alice, rating, refused):
    PlayerRecord.objects.update_or_create(player=alice, defaults={"rating": rating})
    event = make_event(min_rating=1450, max_rating=1600)
    if refused:
        with pytest.raises(errors.RatingOutOfBounds):
            services.join_tournament(tournament_id=event.pk, player=alice)
    else:
        services.join_tournament(tournament_id=event.pk, player=alice)


def test_a_closed_account_cannot_join(alice):
    event = make_event()
    account_services.revoke_access(player=alice)
    with pytest.raises(account_errors.UserNotFound):
        services.join_tournament(tournament_id=event.pk, player=alice)


@pytest.mark.parametrize("tournament_id", [0, -1, 10**9])
def test_an_unknown_event_is_named_as_such(alice, tournament_id):
    with pytest.raises(errors.TournamentNotFound):
        services.join_tournament(tournament_id=tournament_id, player=alice)


def test_leaving_an_event_one_never_joined_is_refused(alice):
    event = make_event()
    with pytest.raises(errors.NotRegistered):
        services.leave_tournament(tournament_id=event.pk, player=alice)


def test_leaving_once_it_runs_is_refused(make_player):
    event = make_event(max_players=3)
    players = make_players(make_player, 3)
    join_all(event, players)
    with pytest.raises(errors.RegistrationClosed):
        services.leave_tournament(tournament_id=event.pk, player=players[0])


# --------------------------------------------------------------------------- the start


def test_an_event_that_starts_when_full_starts_every_game_at_once(make_player):
    event = make_event(max_players=7, days_per_move=5, rated=False)
    players = make_players(make_player, 7)
    join_all(event, players)
    event.refresh_from_db()
    assert event.status == Tournament.Status.RUNNING and event.current_round == 1
    games = list(Game.objects.filter(tournament=event))
    assert len(games) == 21  # 7 × 6 / 2
    assert all(g.is_active and g.days_per_move == 5 and not g.rated for g in games)
    assert all(g.deadline is not None for g in games)
    pairs = Counter(frozenset((g.white_id, g.black_id)) for g in games)
    assert len(pairs) == 21 and set(pairs.values()) == {1}
    # Seven players: each has a bye in one of the seven Berger rounds and plays three
    # games with each colour.
    assert {r for g in games for r in [g.tournament_round]} == set(range(1, 8))
    whites = Counter(g.white_id for g in games)
    assert set(whites.values()) == {3}
    numbers = sorted(GroupStanding.objects.filter(group__tournament=event).values_list(
        "number", flat=True))
    assert numbers == list(range(1, 8))


def test_every_player_is_told_the_event_has_started(make_player):
    event = make_event(max_players=3)
    players = make_players(make_player, 3)
    join_all(event, players)
    told = Notification.objects.filter(kind=NotificationKind.TOURNAMENT_STARTED)
    assert sorted(n.recipient_id for n in told) == sorted(p.pk for p in players)
    detail = told.first().detail
    assert detail["tournament"] == event.pk and detail["name"] == "Spring Cup"
    assert (detail["round"], detail["games"]) == (1, 2)


def test_a_double_round_robin_plays_two_games_per_pair_at_once(make_player):
    event = make_event(max_players=4, cycles=2)
    join_all(event, make_players(make_player, 4))
    games = Game.objects.filter(tournament=event, status=Game.Status.ACTIVE)
    assert games.count() == 12
    by_pair = Counter(frozenset((g.white_id, g.black_id)) for g in games)
    assert set(by_pair.values()) == {2}
    assert len({(g.white_id, g.black_id) for g in games}) == 12


def test_tournament_games_are_outside_the_one_game_per_pair_rule(alice, bob, carol, start_game):
    ordinary = start_game(alice, bob)
    event = make_event(max_players=3)
    join_all(event, [alice, bob, carol])
    assert Game.objects.filter(tournament=event).count() == 3
    # The ordinary game still stops an ordinary challenge; the tournament game does not.
    with pytest.raises(errors.ActiveGameExists):
        services.challenge(challenger=alice, challenged=bob)
    services.resign(game_id=ordinary.pk, player=alice)
    services.challenge(challenger=alice, challenged=bob)


def test_too_few_players_at_the_start_call_the_event_off(make_player):
    event = make_event(min_players=4, max_players=6,
                       starts_at=timezone.now() + dt.timedelta(hours=1))
    players = make_players(make_player, 3)
    join_all(event, players)
    assert services.start_due_tournaments(now=timezone.now()) == 0
    assert services.start_due_tournaments(now=timezone.now() + dt.timedelta(hours=2)) == 1
    event.refresh_from_db()
    assert event.status == Tournament.Status.CANCELLED
    assert not Game.objects.exists()
    told = Notification.objects.filter(kind=NotificationKind.TOURNAMENT_CANCELLED)
    assert told.count() == 3


def test_the_sweep_starts_an_event_at_its_time_and_only_once(make_player):
    event = make_event(max_players=6, starts_at=timezone.now() + dt.timedelta(hours=1))
    join_all(event, make_players(make_player, 4))
    later = timezone.now() + dt.timedelta(hours=2)
    assert services.start_due_tournaments(now=later) == 1
    assert services.start_due_tournaments(now=later) == 0
    assert Game.objects.filter(tournament=event).count() == 6


def test_an_event_open_until_a_date_starts_when_registration_closes(make_player):
    event = make_event(max_players=6, registration_closes_at=timezone.now() + dt.timedelta(days=1))
    join_all(event, make_players(make_player, 3))
    assert services.start_due_tournaments(now=timezone.now() + dt.timedelta(days=2)) == 1
    event.refresh_from_db()
    assert event.status == Tournament.Status.RUNNING


def test_the_administrator_calls_off_an_event_not_started(alice):
    event = make_event()
    services.join_tournament(tournament_id=event.pk, player=alice)
    services.cancel_tournament(tournament_id=event.pk)
    event.refresh_from_db()
    assert event.status == Tournament.Status.CANCELLED
    with pytest.raises(errors.RegistrationClosed):
        services.join_tournament(tournament_id=event.pk, player=alice)


def test_a_multi_round_event_deals_its_players_into_even_groups_by_rating(make_player):
    players = make_players(make_player, 22)
    for rank, player in enumerate(players):
        PlayerRecord.objects.update_or_create(player=player, defaults={"rating": 2000 - rank})
    event = make_event(kind="multi_round", max_players=22, group_size=10, advance=2)
    join_all(event, players)
    groups = list(event.groups.order_by("number"))
    assert [g.round for g in groups] == [1, 1, 1]
    sizes = [GroupStanding.objects.filter(group=g).count() for g in groups]
    assert sorted(sizes) == [7, 7, 8]
    # Snake seeding: seeds 1, 6, 7 in group 1; 2, 5, 8 in group 2; 3, 4, 9 in group 3.
    first_three = [
        sorted(GroupStanding.objects.filter(group=g).values_list("player__username", flat=True))[:3]
        for g in groups
    ]
    assert first_three == [["p01", "p06", "p07"], ["p02", "p05", "p08"], ["p03", "p04", "p09"]]
    assert Game.objects.filter(tournament=event).count() == 21 + 21 + 28


def test_a_gateways_guest_or_a_staff_account_cannot_join(make_player):
    from legacy_tcp import guests

    event = make_event()
    guest = guests.player_for(gateway="distribuido", name="visitor", trusted=False)
    staff = make_player("sam", is_staff=True)
    for outsider in (guest, staff):
        with pytest.raises(account_errors.UserNotFound):
            services.join_tournament(tournament_id=event.pk, player=outsider)
    assert not TournamentEntry.objects.exists()


def test_a_bot_cannot_join(alice, bob):
    event = make_event()
    services.upgrade_to_bot(player=alice)
    with pytest.raises(errors.BotInTournament):
        services.join_tournament(tournament_id=event.pk, player=alice)
    assert not TournamentEntry.objects.exists()


def test_an_entered_player_becomes_a_bot_only_after_leaving(alice):
    event = make_event()
    services.join_tournament(tournament_id=event.pk, player=alice)
    with pytest.raises(errors.BotUpgradeRefused) as refused:
        services.upgrade_to_bot(player=alice)
    assert "leave it first" in refused.value.message
    assert not BotAccount.objects.exists()
    services.leave_tournament(tournament_id=event.pk, player=alice)
    services.upgrade_to_bot(player=alice)
    assert BotAccount.objects.filter(player=alice).exists()


def test_an_event_called_off_keeps_no_one_from_becoming_a_bot(alice):
    event = make_event()
    services.join_tournament(tournament_id=event.pk, player=alice)
    services.cancel_tournament(tournament_id=event.pk)
    services.upgrade_to_bot(player=alice)
    assert BotAccount.objects.filter(player=alice).exists()
