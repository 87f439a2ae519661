"""AdmChess for tournaments: an event created in the admin, refused when its settings do
not fit, started now, called off, and a player removed."""

from __future__ import annotations

import pytest
from django.urls import reverse

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
    assert admin_client.get(delete).status_code == 403
