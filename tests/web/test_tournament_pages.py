"""The tournament pages: the events, an event's page, joining, leaving and withdrawing,
and every form sent wrong."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games import services
from games.models import Game, Tournament, TournamentEntry
from tests.games.tournaments import end_game, join_all, make_event, make_players

pytestmark = pytest.mark.django_db


def test_the_list_shows_the_open_events_and_mine(as_alice, alice):
    open_one = make_event(name="Open Cup")
    mine = make_event(name="My Cup")
    services.join_tournament(tournament_id=mine.pk, player=alice)
    page = as_alice.get(reverse("tournament_list"))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Open Cup" in text and "My Cup" in text
    assert f'data-tournament-id="{open_one.pk}"' in text
    assert 'id="my-tournaments"' in text


def test_a_player_joins_from_the_events_page_and_leaves_again(as_alice, alice):
    event = make_event()
    page = as_alice.get(reverse("tournament_detail", args=[event.pk]))
    assert 'id="join-tournament"' in page.content.decode()
    joined = as_alice.post(reverse("tournament_join", args=[event.pk]), follow=True)
    assert "You joined Spring Cup" in joined.content.decode()
    assert TournamentEntry.objects.filter(tournament=event, player=alice).exists()
    assert 'id="leave-tournament"' in joined.content.decode()
    left = as_alice.post(reverse("tournament_leave", args=[event.pk]), follow=True)
    assert "You left Spring Cup" in left.content.decode()
    assert not TournamentEntry.objects.exists()


def test_joining_the_last_place_starts_the_event_and_says_so(as_alice, alice, bob, carol):
    event = make_event(max_players=3)
    join_all(event, [bob, carol])
    page = as_alice.post(reverse("tournament_join", args=[event.pk]), follow=True)
    assert "which is full: it has started" in page.content.decode()
    assert Game.objects.filter(tournament=event).count() == 3
    assert 'class="table table-sm table-bordered align-middle crosstable"' in page.content.decode()


def test_a_refusal_is_said_on_the_events_page(as_alice, alice):
    event = make_event()
    services.join_tournament(tournament_id=event.pk, player=alice)
    page = as_alice.post(reverse("tournament_join", args=[event.pk]), follow=True)
    assert "You have already joined this tournament." in page.content.decode()


@pytest.mark.parametrize("name", ["tournament_join", "tournament_leave", "tournament_withdraw"])
def test_the_actions_take_only_post(as_alice, name):
    event = make_event()
    assert as_alice.get(reverse(name, args=[event.pk])).status_code == 405


@pytest.mark.parametrize(
    "path",
    [
        "/tournaments/0/",
        "/tournaments/99999999999999999999/",
        "/tournaments/12345/games/",
        "/tournaments/12345/games.pgn",
        "/tournaments/abc/",
        "/tournaments/-1/",
        "/tournaments/%C3%B1/",
    ],
)
def test_an_unknown_event_is_not_found(as_alice, path):
    assert as_alice.get(path).status_code == 404


@pytest.mark.parametrize("pk", ["0", "99999999999999999999"])
def test_joining_an_unknown_event_is_not_found(as_alice, pk):
    assert as_alice.post(f"/tournaments/{pk}/join/").status_code == 404


def test_pages_need_a_login(client):
    event = make_event()
    page = client.get(reverse("tournament_detail", args=[event.pk]))
    assert page.status_code == 302 and "/login/" in page["Location"]
    assert client.post(reverse("tournament_join", args=[event.pk])).status_code == 302
    assert not TournamentEntry.objects.exists()


@pytest.mark.parametrize("confirm", [None, "", "no", "YES", "yes " * 1000, "sí", "1"])
def test_withdrawing_needs_the_box_ticked(make_player, confirm):
    from django.test import Client

    event = make_event(max_players=3)
    players = make_players(make_player, 3)
    join_all(event, players)
    client = Client()
    client.force_login(players[0])
    data = {} if confirm is None else {"confirm": confirm}
    page = client.post(reverse("tournament_withdraw", args=[event.pk]), data, follow=True)
    assert "Tick the box to confirm" in page.content.decode()
    assert not TournamentEntry.objects.filter(withdrawn_at__isnull=False).exists()


def test_withdrawing_with_the_box_ticked_forfeits_the_games(make_player):
    from django.test import Client

    event = make_event(max_players=3)
    players = make_players(make_player, 3)
    join_all(event, players)
    client = Client()
    client.force_login(players[0])
    page = client.post(reverse("tournament_withdraw", args=[event.pk]), {"confirm": "yes"},
                       follow=True)
    assert "You withdrew from Spring Cup" in page.content.decode()
    assert not Game.objects.of_player(players[0], status=Game.Status.ACTIVE).exists()


def test_withdrawing_from_an_event_not_started_is_refused(as_alice, alice):
    event = make_event()
    services.join_tournament(tournament_id=event.pk, player=alice)
    page = as_alice.post(reverse("tournament_withdraw", args=[event.pk]), {"confirm": "yes"},
                         follow=True)
    assert "This tournament is not being played." in page.content.decode()


def test_the_event_page_shows_its_crosstable_with_each_result_linked(make_player):
    from django.test import Client

    event = make_event(max_players=3)
    players = make_players(make_player, 3)
    join_all(event, players)
    game = Game.objects.filter(tournament=event).order_by("pk").first()
    end_game(game, 1)
    client = Client()
    client.force_login(players[0])
    tables = client.get(reverse("tournament_detail", args=[event.pk]), {"partial": "1"})
    text = tables.content.decode()
    assert tables.status_code == 200 and "<html" not in text
    assert text.count(f'href="/games/{game.pk}/"') == 2  # in both players' rows
    assert ">1</a>" in text and ">0</a>" in text


def test_the_games_page_and_the_pgn_of_an_event(make_player):
    from django.test import Client

    event = make_event(max_players=3, name="Copa Ñandú")
    players = make_players(make_player, 3)
    join_all(event, players)
    client = Client()
    client.force_login(players[0])
    games_page = client.get(reverse("tournament_games", args=[event.pk]))
    assert games_page.status_code == 200
    assert games_page.content.decode().count("/games/") >= 3
    pgn = client.get(reverse("tournament_pgn", args=[event.pk]))
    assert pgn.status_code == 200
    assert 'filename="copa-nandu.pgn"' in pgn["Content-Disposition"]
    text = b"".join(pgn.streaming_content).decode()
    assert text.count('[Event "Copa Ñandú"]') == 3
    assert '[Site "Ajedrez"]' in text
    rounds = {line for line in text.splitlines() if line.startswith("[Round ")}
    assert rounds == {'[Round "1"]', '[Round "2"]', '[Round "3"]'}


def test_an_events_page_reads_a_fixed_number_of_queries(make_player, django_assert_max_num_queries):
    from django.test import Client

    event = make_event(max_players=6)
    players = make_players(make_player, 6)
    join_all(event, players)
    client = Client()
    client.force_login(players[0])
    url = reverse("tournament_detail", args=[event.pk])
    client.get(url)
    with django_assert_max_num_queries(14) as before:
        client.get(url)
    for game in Game.objects.filter(tournament=event)[:10]:
        end_game(game, 0.5)
    with django_assert_max_num_queries(len(before.captured_queries)):
        client.get(url)


def test_a_cancelled_event_says_so(as_alice):
    event = make_event()
    services.cancel_tournament(tournament_id=event.pk)
    page = as_alice.get(reverse("tournament_detail", args=[event.pk]))
    assert str(Tournament.Status.CANCELLED.label) in page.content.decode()
    assert 'id="join-tournament"' not in page.content.decode()


def test_the_dashboard_profile_and_game_page_show_the_players_events(make_player):
    from django.test import Client

    event = make_event(max_players=3, name="Copa Ñandú")
    players = make_players(make_player, 3)
    join_all(event, players)
    client = Client()
    client.force_login(players[0])
    link = f'href="/tournaments/{event.pk}/"'
    dashboard = client.get(reverse("dashboard")).content.decode()
    assert 'id="dashboard-tournaments"' in dashboard and link in dashboard
    profile = client.get(reverse("player_detail", args=[players[1].username])).content.decode()
    assert 'id="player-tournaments"' in profile and link in profile
    game = Game.objects.filter(tournament=event).first()
    page = client.get(reverse("game_detail", args=[game.pk])).content.decode()
    assert 'id="game-tournament"' in page and "Copa Ñandú" in page
    for g in Game.objects.filter(tournament=event):
        end_game(g, 1 if g.white.username < g.black.username else 0)
    profile = client.get(reverse("player_detail", args=[players[1].username])).content.decode()
    assert "place 2 in round 1" in profile
    dashboard = client.get(reverse("dashboard")).content.decode()
    assert 'id="dashboard-tournaments"' not in dashboard  # over: no longer "current"
