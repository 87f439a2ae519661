"""The lobby's open challenges on the web: the form (every field sent wrong), the list,
the join page, taking and cancelling; and the seeks' socket, told of each change."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Game, Seek
from ranking.models import PlayerRecord
from tests.web.test_consumers import communicator, cookie_for, receive_until

LIST = reverse("seek_list")
NEW = reverse("seek_create")
GOOD = {"days_per_move": "3", "colour": "random", "rated": "on",
        "rating_min": "", "rating_max": ""}


def messages_of(response) -> str:
    return " ".join(str(m) for m in response.context["messages"])


def test_the_form_makes_a_seek_listed_in_the_lobby(as_alice, as_bob):
    response = as_alice.post(NEW, {**GOOD, "colour": "black", "rating_min": "1200",
                                   "rating_max": "1900"}, follow=True)
    assert "Your open challenge is in the lobby" in messages_of(response)
    made = Seek.objects.get()
    assert (made.days_per_move, made.colour, made.rated) == (3, "black", True)
    assert (made.rating_min, made.rating_max) == (1200, 1900)
    page = as_bob.get(LIST).content.decode()
    assert made.short_id in page and "alice" in page and "rating 1200–1900" in page


def test_an_unticked_rated_box_makes_an_unrated_seek(as_alice):
    as_alice.post(NEW, {**GOOD, "rated": ""})
    assert Seek.objects.get().rated is False


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("days_per_move", "4", "time control"),
        ("days_per_move", "tres", "time control"),
        ("days_per_move", "٣", "time control"),
        ("days_per_move", "9" * 5000, "time control"),
        ("colour", "green", "colour"),
        ("colour", "blanco\u0301", "colour"),
        ("colour", "x" * 5000, "colour"),
        ("rating_min", "abc", "rating range"),
        ("rating_min", "-5", "rating range"),
        ("rating_min", "1.5", "rating range"),
        ("rating_min", "١٥٠٠", "rating range"),
        ("rating_max", "99999", "rating range"),
        ("rating_max", "4001", "rating range"),
        ("rating_max", "9" * 5000, "rating range"),
        ("rating_min", "\x00", "rating range"),
    ],
)
def test_bad_fields_are_refused_with_the_form_kept(as_alice, field, value, words):
    response = as_alice.post(NEW, {**GOOD, field: value}, follow=True)
    assert words in messages_of(response)
    assert not Seek.objects.exists()
    # The form comes back with what was sent (cut to its length), to be corrected.
    assert response.context["form"][field] == value[:100]


def test_a_range_upside_down_is_refused(as_alice):
    response = as_alice.post(NEW, {**GOOD, "rating_min": "1800", "rating_max": "1500"}, follow=True)
    assert "rating range" in messages_of(response)
    assert not Seek.objects.exists()


def test_missing_fields_make_a_seek_with_the_defaults(as_alice):
    """An empty form is an unrated seek with no clock at random colours, any rating."""
    as_alice.post(NEW, {})
    made = Seek.objects.get()
    assert (made.days_per_move, made.colour, made.rated) == (None, "random", False)
    assert (made.rating_min, made.rating_max) == (None, None)


def test_the_list_and_form_need_a_login(client, db):
    assert client.get(LIST).status_code == 302
    assert client.post(NEW, GOOD).status_code == 302
    assert not Seek.objects.exists()


@pytest.mark.parametrize("action", ["seek_accept", "seek_cancel"])
def test_the_actions_hold_the_csrf_check(alice, bob, action):
    made = services.create_seek(maker=alice, days_per_move=3)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice if action == "seek_cancel" else bob)
    assert browser.post(reverse(action, args=[made.short_id])).status_code == 403
    assert browser.post(NEW, GOOD).status_code == 403
    assert Seek.objects.get().status == Seek.Status.OPEN and Seek.objects.count() == 1


def test_taking_a_seek_lands_on_the_game(alice, bob, as_bob):
    made = services.create_seek(maker=alice, days_per_move=3, colour="white")
    response = as_bob.post(reverse("seek_accept", args=[made.short_id]))
    game = Game.objects.get()
    assert response["Location"] == reverse("game_detail", args=[game.pk])
    assert (game.white, game.black) == (alice, bob)


def test_the_join_page_honours_the_colour_asked_for(alice, bob, as_bob):
    made = services.create_seek(maker=alice, days_per_move=3)
    page = as_bob.get(reverse("seek_detail", args=[made.short_id]), {"color": "black"})
    assert 'name="colour" value="black"' in page.content.decode()
    as_bob.post(reverse("seek_accept", args=[made.short_id]), {"colour": "black"})
    assert Game.objects.get().black == bob


@pytest.mark.parametrize("colour", ["green", "x" * 3000, "\u202e", "WHITE"])
def test_a_bad_colour_when_taking_is_refused(alice, as_bob, colour):
    made = services.create_seek(maker=alice, days_per_move=3)
    response = as_bob.post(reverse("seek_accept", args=[made.short_id]), {"colour": colour},
                           follow=True)
    assert "colour" in messages_of(response)
    assert not Game.objects.exists()


def test_taking_my_own_seek_is_refused(as_alice, alice):
    made = services.create_seek(maker=alice, days_per_move=3)
    response = as_alice.post(reverse("seek_accept", args=[made.short_id]), follow=True)
    assert "your own open challenge" in messages_of(response)


def test_out_of_range_is_refused_and_shown(alice, as_bob, bob):
    PlayerRecord.objects.update_or_create(player=bob, defaults={"rating": 1000})
    made = services.create_seek(maker=alice, days_per_move=3, rating_min=1400)
    assert "outside your rating" in as_bob.get(LIST).content.decode()
    response = as_bob.post(reverse("seek_accept", args=[made.short_id]), follow=True)
    assert "outside the range" in messages_of(response)


def test_a_taken_seek_says_so(alice, bob, as_carol):
    made = services.create_seek(maker=alice, days_per_move=3)
    services.accept_seek(seek_id=made.pk, player=bob)
    response = as_carol.post(reverse("seek_accept", args=[made.short_id]), follow=True)
    assert "already accepted" in messages_of(response)
    assert made.short_id not in as_carol.get(LIST).content.decode()


def test_a_cancelled_seek_leaves_the_list_and_says_so(as_alice, alice, as_bob):
    made = services.create_seek(maker=alice, days_per_move=3)
    as_alice.post(reverse("seek_cancel", args=[made.short_id]))
    assert made.short_id not in as_bob.get(LIST).content.decode()
    response = as_bob.post(reverse("seek_accept", args=[made.short_id]), follow=True)
    assert "cancelled" in messages_of(response)


def test_someone_else_s_seek_cannot_be_cancelled(alice, as_bob):
    made = services.create_seek(maker=alice, days_per_move=3)
    as_bob.post(reverse("seek_cancel", args=[made.short_id]))
    assert Seek.objects.get().status == Seek.Status.OPEN


@pytest.mark.parametrize("short_id", ["nope", "x" * 500, "%00", "ñandú"])
def test_unknown_seeks_are_404(as_bob, short_id):
    assert as_bob.get(f"/seeks/{short_id}/").status_code == 404
    assert as_bob.post(f"/seeks/{short_id}/accept/").status_code == 404


def test_the_maker_sees_their_taken_seek_with_its_game(as_alice, alice, bob):
    made = services.create_seek(maker=alice, days_per_move=3)
    game = services.accept_seek(seek_id=made.pk, player=bob)
    page = as_alice.get(LIST, {"partial": "1"}).content.decode()
    assert reverse("game_detail", args=[game.pk]) in page


def test_the_list_s_queries_do_not_grow_with_the_seeks(as_carol, make_player,
                                                      django_assert_max_num_queries):
    for index in range(8):
        services.create_seek(maker=make_player(f"m{index}"), days_per_move=3)
    # Session and user, the seeks, their makers' ratings, the pair limit and the games
    # it counts: the same for eight seeks as for one.
    with django_assert_max_num_queries(8):
        as_carol.get(LIST, {"partial": "1"})


@pytest.mark.django_db(transaction=True)
async def test_the_seeks_socket_hears_seeks_made_and_taken(alice, bob, carol):
    page = communicator("/ws/seeks/", await sync_to_async(cookie_for)(carol))
    connected, _ = await page.connect()
    assert connected
    assert (await page.receive_json_from(timeout=5))["type"] == "hello"
    made = await sync_to_async(services.create_seek)(maker=alice, days_per_move=3)
    assert (await receive_until(page, "event"))["event"] == "seek_created"
    await sync_to_async(services.accept_seek)(seek_id=made.pk, player=bob)
    assert (await receive_until(page, "event"))["event"] == "seek_taken"
    await page.disconnect()


def test_the_dashboard_lists_the_newest_open_challenges_of_others(client, alice, bob, carol):
    for maker in (alice, carol):
        services.create_seek(maker=maker, days_per_move=3)
    services.create_seek(maker=bob, days_per_move=3)
    client.force_login(bob)

    page = client.get("/").content.decode()
    card = page[page.index('id="dashboard-seeks"') :]

    assert card.count('class="list-group-item d-flex flex-wrap align-items-center gap-2 seek"') == 2
    assert ">alice<" in card and ">carol<" in card
    assert 'data-socket="/ws/seeks/"' in page


def test_a_seek_of_a_player_one_already_has_the_allowed_games_with_is_not_offered(
    client, alice, bob, carol, start_game
):
    start_game(alice, bob)  # one game per pair, the default
    from_alice = services.create_seek(maker=alice, days_per_move=3)
    from_carol = services.create_seek(maker=carol, days_per_move=3)
    client.force_login(bob)

    for page in ("/", reverse("seek_list")):
        html = client.get(page).content.decode()
        alice_row = html[html.index(f'data-seek-id="{from_alice.short_id}"') :]
        alice_row = alice_row[: alice_row.index("</li>")]
        carol_row = html[html.index(f'data-seek-id="{from_carol.short_id}"') :]
        carol_row = carol_row[: carol_row.index("</li>")]
        assert "you already have your games with them" in alice_row
        assert "Accept" not in alice_row
        assert "Accept" in carol_row
    detail = client.get(reverse("seek_detail", args=[from_alice.short_id])).content.decode()
    assert "as many games in progress with this player as the site allows" in detail
