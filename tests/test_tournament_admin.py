"""AdmChess for tournaments: an event created in the admin, refused when its settings do
not fit, started now, called off, and a player removed."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from games import errors, services
from games.models import Game, Tournament, TournamentEntry
from tests.games.tournaments import join_all, make_event, make_players
from tests.test_admin import _action, _messages, admin_client, admin_user  # noqa: F401

pytestmark = pytest.mark.django_db

TOURNAMENTS = reverse("admin:games_tournament_changelist")
ADD = reverse("admin:games_tournament_add")
ENTRIES = reverse("admin:games_tournamententry_changelist")


def _form(**fields) -> dict:
    values = {
        "name": "Autumn Section", "description": "ICCF-style", "kind": "round_robin",
        "cycles": "1", "days_per_move": "5", "rated": "on", "min_rating": "",
        "max_rating": "", "min_players": "7", "max_players": "13", "group_size": "",
        "advance": "", "registration_closes_at_0": "", "registration_closes_at_1": "",
        "starts_at_0": "", "starts_at_1": "",
        "entries-TOTAL_FORMS": "0", "entries-INITIAL_FORMS": "0",
        "entries-MIN_NUM_FORMS": "0", "entries-MAX_NUM_FORMS": "1000",
    }
    values.update(fields)
    return values


def test_the_administrator_creates_an_event(admin_client, admin_user):  # noqa: F811
    page = admin_client.post(ADD, _form(), follow=True)
    assert page.status_code == 200
    event = Tournament.objects.get()
    assert (event.name, event.days_per_move, event.max_players) == ("Autumn Section", 5, 13)
    assert event.status == Tournament.Status.REGISTRATION
    assert event.created_by == admin_user


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"max_players": "40"}, "at most 30 players"),
        ({"kind": "multi_round", "group_size": "", "max_players": "100"}, "A group holds"),
        ({"min_players": "9", "max_players": "8"}, "the most at least the fewest"),
        ({"name": ""}, "This field is required"),
        ({"name": "x" * 101}, "at most 100 characters"),
        ({"min_players": "-3"}, "greater than or equal to 0"),
        ({"min_players": "siete"}, "Enter a whole number"),
        ({"days_per_move": "4"}, "Select a valid choice"),
        ({"starts_at_0": "2030-01-01", "starts_at_1": "10:00",
          "registration_closes_at_0": "2030-02-01", "registration_closes_at_1": "10:00"},
         "Registration must close by the start"),
    ],
)
def test_settings_that_do_not_fit_are_shown_on_the_form(admin_client, fields, says):  # noqa: F811
    page = admin_client.post(ADD, _form(**fields))
    assert page.status_code == 200
    assert says in page.content.decode()
    assert not Tournament.objects.exists()


def test_start_now_and_call_off(admin_client, make_player):  # noqa: F811
    ready = make_event(max_players=6)
    join_all(ready, make_players(make_player, 4))
    empty = make_event(name="Empty Cup")
    page = _action(admin_client, TOURNAMENTS, "start_now", [ready.pk])
    assert "Spring Cup has started." in _messages(page)
    assert Game.objects.filter(tournament=ready).count() == 6
    page = _action(admin_client, TOURNAMENTS, "call_off", [empty.pk])
    assert "Empty Cup was called off." in _messages(page)
    empty.refresh_from_db()
    assert empty.status == Tournament.Status.CANCELLED


def test_a_started_event_keeps_its_settings_in_the_admin(admin_client, make_player):  # noqa: F811
    event = make_event(max_players=3)
    join_all(event, make_players(make_player, 3))
    change = reverse("admin:games_tournament_change", args=[event.pk])
    admin_client.post(change, _form(name="Renamed", max_players="20", min_players="3",
                                    days_per_move="3"))
    event.refresh_from_db()
    assert (event.name, event.max_players) == ("Renamed", 3)


def test_the_administrator_removes_a_player_whose_games_are_forfeited(
    admin_client, admin_user, make_player  # noqa: F811
):
    event = make_event(max_players=3)
    players = make_players(make_player, 3)
    join_all(event, players)
    entry = TournamentEntry.objects.get(player=players[0])
    page = _action(admin_client, ENTRIES, "remove", [entry.pk])
    assert "1 player removed." in _messages(page)
    entry.refresh_from_db()
    assert entry.withdrawn_at is not None and entry.withdrawn_by == admin_user
    assert not Game.objects.of_player(players[0], status=Game.Status.ACTIVE).exists()
    delete = reverse("admin:games_tournament_delete", args=[event.pk])
    # Refused, with the reason (test_the_admin_refuses_to_delete_an_event_and_says_why).
    assert admin_client.get(delete).status_code == 302
    assert Tournament.objects.filter(pk=event.pk).exists()


# --------------------------------------------------------------------------- Fischer clocks

FISCHER = {"days_per_move": "", "fischer_base_days": "30", "fischer_increment_days": "1",
           "fischer_cap_days": "40"}


def test_the_administrator_creates_an_event_with_a_fischer_clock_and_its_games_carry_it(
    admin_client, make_player  # noqa: F811
):
    admin_client.post(ADD, _form(**FISCHER, max_players="4", min_players="3"), follow=True)
    event = Tournament.objects.get()
    assert (event.days_per_move, event.time_control_label) == (
        None, "30 days + 1 per move (max 40)"
    )
    join_all(event, make_players(make_player, 4))
    _action(admin_client, TOURNAMENTS, "start_now", [event.pk])
    games = Game.objects.filter(tournament=event)
    assert games.count() == 6
    assert {(g.fischer_base_days, g.fischer_increment_days, g.fischer_cap_days, g.white_bank)
            for g in games} == {(30, 1, 40, dt.timedelta(days=30))}


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"fischer_base_days": "0"}, "greater than or equal to 1"),
        ({"fischer_cap_days": "20"}, "cap must be at least its base"),
        ({"fischer_increment_days": "31"}, "less than or equal to 30"),
        ({"fischer_base_days": "99999999"}, "less than or equal to"),
        ({"fischer_base_days": "-1"}, "greater than or equal to 1"),
        ({"fischer_base_days": "treinta"}, "Enter a whole number"),
        ({"fischer_base_days": "30.5"}, "Enter a whole number"),
        ({"fischer_base_days": "3" * 500}, "less than or equal to"),
        ({"fischer_cap_days": ""}, "must be whole days"),
        ({"days_per_move": "3"}, "not both"),
    ],
)
def test_a_fischer_clock_that_does_not_fit_is_refused_on_the_form(
    admin_client, fields, says  # noqa: F811
):
    page = admin_client.post(ADD, _form(**{**FISCHER, **fields}))
    assert page.status_code == 200
    assert says in page.content.decode()
    assert not Tournament.objects.exists()


# --------------------------------------------------------------------------- deletion


def test_the_admin_refuses_to_delete_an_event_and_says_why(admin_client):  # noqa: F811
    event = make_event()
    delete = reverse("admin:games_tournament_delete", args=[event.pk])
    for method in (admin_client.get, admin_client.post):
        page = method(delete, {"post": "yes"}, follow=True)
        assert any("Call it off instead." in said for said in _messages(page))
    assert Tournament.objects.filter(pk=event.pk).exists()


def test_the_admin_refuses_to_delete_a_tournament_s_game_even_once_finished(
    admin_client, make_player  # noqa: F811
):
    event = make_event(max_players=3)
    join_all(event, make_players(make_player, 3))
    services.start_tournament(tournament_id=event.pk)
    game = Game.objects.filter(tournament=event).first()
    assert game is not None
    services.resign(game_id=game.pk, player=game.white)
    delete = reverse("admin:games_game_delete", args=[game.pk])
    page = admin_client.post(delete, {"post": "yes"}, follow=True)
    assert any("is not deleted" in said for said in _messages(page))
    assert Game.objects.filter(pk=game.pk).exists()
    with pytest.raises(errors.TournamentGameKept):
        services.delete_game(game_id=game.pk)
