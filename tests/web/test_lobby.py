"""The dashboard, the players pages and the challenge actions."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from accounts.errors import UserNotFound
from games import services
from games.models import Challenge, Game
from ranking.models import PlayerRecord

User = get_user_model()


def text(response) -> str:
    return response.content.decode()


def section(html: str, element_id: str) -> str:
    """The HTML of the ``<section id=...>`` (sections are not nested on these pages)."""
    start = html.index(f'id="{element_id}"')
    return html[start : html.index("</section>", start)]


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


# --------------------------------------------------------------------------- dashboard


def test_dashboard_needs_a_login(client, db):
    response = client.get(reverse("dashboard"))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_dashboard_lists_games_waiting_for_my_move_before_the_others(
    as_alice, alice, bob, carol, start_game, play
):
    my_turn = start_game(alice, bob)  # alice is white: her move
    theirs = start_game(carol, alice)  # carol is white: carol's move

    html = text(as_alice.get(reverse("dashboard")))

    mine = section(html, "my-turn-games")
    waiting = section(html, "their-turn-games")
    assert html.index('id="my-turn-games"') < html.index('id="their-turn-games"')
    assert f'data-game-id="{my_turn.pk}"' in mine
    assert f'data-game-id="{theirs.pk}"' not in mine
    assert f'data-game-id="{theirs.pk}"' in waiting


def test_dashboard_moves_a_game_to_my_turn_once_the_opponent_has_played(
    as_alice, alice, bob, start_game, play
):
    game = start_game(bob, alice)  # bob is white
    before = text(as_alice.get(reverse("dashboard")))
    play(game, "e4")

    after = text(as_alice.get(reverse("dashboard")))

    assert f'data-game-id="{game.pk}"' in section(before, "their-turn-games")
    assert f'data-game-id="{game.pk}"' in section(after, "my-turn-games")
    assert "last move 1. e4" in section(after, "my-turn-games")


def test_a_black_last_move_is_labelled_with_an_ellipsis(as_alice, alice, bob, start_game, play):
    play(start_game(alice, bob), "e4", "e5", "Nf3", "Nc6")
    assert "last move 2… Nc6" in text(as_alice.get(reverse("dashboard")))


def test_dashboard_puts_the_longest_waiting_game_first_among_my_moves(
    as_alice, alice, bob, carol, start_game
):
    older = start_game(alice, bob)
    newer = start_game(alice, carol)
    Game.objects.filter(pk=newer.pk).update(updated_at=older.updated_at.replace(year=2030))

    mine = section(text(as_alice.get(reverse("dashboard"))), "my-turn-games")

    assert mine.index(f'data-game-id="{older.pk}"') < mine.index(f'data-game-id="{newer.pk}"')


def row_html(html: str, game: Game) -> str:
    """The HTML of the game's row (one ``<a class="... game-row">``)."""
    start = html.index(f'data-game-id="{game.pk}"')
    return html[start : html.index("</a>", start)]


def test_a_draw_offer_made_on_my_move_puts_the_game_in_the_opponents_list(
    as_alice, as_bob, alice, game
):
    services.offer_draw(game_id=game.pk, player=alice)  # alice is white, to move

    offerer = text(as_alice.get(reverse("dashboard")))
    answerer = text(as_bob.get(reverse("dashboard")))

    assert f'data-game-id="{game.pk}"' in section(offerer, "their-turn-games")
    assert f'data-game-id="{game.pk}"' not in section(offerer, "my-turn-games")
    assert f'data-game-id="{game.pk}"' in section(answerer, "my-turn-games")
    assert "draw offered" in row_html(offerer, game)
    assert "draw offered" in row_html(answerer, game)
    assert "your move" not in row_html(offerer, game)


def test_a_draw_offer_made_to_the_player_on_move_keeps_the_game_in_their_list(
    as_alice, as_bob, bob, game
):
    services.offer_draw(game_id=game.pk, player=bob)  # alice is to move

    answerer = text(as_alice.get(reverse("dashboard")))
    offerer = text(as_bob.get(reverse("dashboard")))

    assert f'data-game-id="{game.pk}"' in section(answerer, "my-turn-games")
    assert f'data-game-id="{game.pk}"' in section(offerer, "their-turn-games")
    # The answer is what is owed, not a move: the offer blocks moves until answered.
    assert "draw offered" in row_html(answerer, game)
    assert "your move" not in row_html(answerer, game)
    assert "draw offered" in row_html(offerer, game)


def test_a_declined_draw_offer_gives_the_move_back(as_alice, alice, bob, game):
    services.offer_draw(game_id=game.pk, player=alice)
    services.answer_draw(game_id=game.pk, player=bob, accept=False)

    html = text(as_alice.get(reverse("dashboard")))

    assert f'data-game-id="{game.pk}"' in section(html, "my-turn-games")
    assert "draw offered" not in row_html(html, game)
    assert "your move" in row_html(html, game)


def test_dashboard_links_each_game_to_its_page(as_alice, game):
    html = text(as_alice.get(reverse("dashboard")))

    assert f'href="/games/{game.pk}/"' in html


def test_dashboard_shows_challenges_in_both_directions(as_alice, alice, bob, carol):
    incoming = services.challenge(challenger=bob, challenged=alice)
    outgoing = services.challenge(challenger=alice, challenged=carol)

    html = text(as_alice.get(reverse("dashboard")))

    received = section(html, "incoming-challenges")
    sent = section(html, "outgoing-challenges")
    assert f'data-challenge-id="{incoming.pk}"' in received
    for colour in ("white", "black", "random"):
        assert reverse("challenge_accept", args=[incoming.pk, colour]) in received
    assert reverse("challenge_decline", args=[incoming.pk]) in received
    assert f'data-challenge-id="{outgoing.pk}"' in sent
    assert reverse("challenge_withdraw", args=[outgoing.pk]) in sent


def test_dashboard_shows_recently_finished_games_with_my_result(as_alice, alice, game):
    services.resign(game_id=game.pk, player=alice)

    finished = section(text(as_alice.get(reverse("dashboard"))), "finished-games")

    assert f'data-game-id="{game.pk}"' in finished
    assert "lost" in finished


def test_full_dashboard_wraps_the_live_part_and_loads_the_live_script(as_alice, game):
    html = text(as_alice.get(reverse("dashboard")))

    assert '<div id="dashboard-live"' in html
    assert re.search(r'src="/static/js/live-dashboard\.[0-9a-f]{12}\.js"', html)
    assert 'type="module"' in html


def test_full_dashboard_has_a_connection_indicator_and_a_place_for_problems(as_alice, game):
    html = text(as_alice.get(reverse("dashboard")))

    # Both outside the live part, which the script replaces on every refresh.
    before_live = html[: html.index('<div id="dashboard-live"')]
    assert 'id="live-connection"' in before_live
    assert 'data-connected="connected"' in before_live
    assert 'id="dashboard-error"' in before_live
    assert "Your session has ended: reload the page to log in again." in before_live


def test_partial_dashboard_returns_only_the_live_part(as_alice, game):
    response = as_alice.get(reverse("dashboard"), {"partial": "1"})

    html = text(response)
    assert response.templates[0].name == "lobby/_dashboard_live.html"
    assert "<html" not in html
    assert 'id="dashboard-live"' not in html
    assert f'data-game-id="{game.pk}"' in section(html, "my-turn-games")


def test_partial_dashboard_forms_carry_the_csrf_token(as_alice, alice, bob):
    services.challenge(challenger=bob, challenged=alice)

    html = text(as_alice.get(reverse("dashboard"), {"partial": "1"}))

    # Swapped in by the live script, its forms must still post.
    incoming = section(html, "incoming-challenges")
    assert 'name="csrfmiddlewaretoken"' in incoming


def many_games_for(player, start_game, play, count: int) -> None:
    """``count`` opponents: active games (with moves), finished games, challenges."""
    for n in range(count):
        opponent = User.objects.create_user(username=f"opponent{n}", password="x-long-pass")
        game = start_game(player, opponent) if n % 2 else start_game(opponent, player)
        play(game, "e4", "e5", "Nf3")
        if n % 3 == 0:
            services.resign(game_id=game.pk, player=opponent)
            if n % 2:
                services.challenge(challenger=opponent, challenged=player)
            else:
                services.challenge(challenger=player, challenged=opponent)


@pytest.mark.parametrize("partial", [False, True])
def test_dashboard_query_count_stays_bounded_with_many_games(
    as_alice, alice, start_game, play, django_assert_max_num_queries, partial
):
    many_games_for(alice, start_game, play, 36)
    params = {"partial": "1"} if partial else {}

    with django_assert_max_num_queries(15):
        response = as_alice.get(reverse("dashboard"), params)

    html = text(response)
    assert html.count("data-game-id=") == 24 + 10  # 24 active, the 10 latest finished
    assert html.count("data-challenge-id=") == 12


# --------------------------------------------------------------------------- challenges


def test_challenge_by_user_name_creates_a_pending_challenge(as_alice, alice, bob):
    response = as_alice.post(reverse("challenge_create"), {"username": "bob"}, follow=True)

    assert response.redirect_chain[-1][0] == reverse("dashboard")
    assert Challenge.objects.filter(
        challenger=alice, challenged=bob, status=Challenge.Status.PENDING
    ).exists()
    assert "Challenge sent to bob." in text(response)


def test_challenge_to_an_unknown_player_is_refused_with_a_message(as_alice, alice):
    response = as_alice.post(reverse("challenge_create"), {"username": "nobody"})

    assert response.status_code == 302
    assert messages_of(response) == ["There is no active player called “nobody”."]
    assert not Challenge.objects.exists()


def test_a_refused_challenge_keeps_the_typed_name_in_the_dashboard_form(as_alice, alice):
    response = as_alice.post(reverse("challenge_create"), {"username": "bobb"}, follow=True)

    html = text(response)
    assert "There is no active player called “bobb”." in html
    assert re.search(r'<input[^>]*id="challenge-username"[^>]*value="bobb"', html, re.S)
    # Only once: the next visit starts with an empty form.
    again = text(as_alice.get(reverse("dashboard")))
    assert re.search(r'<input[^>]*id="challenge-username"[^>]*value=""', again, re.S)


def selected_days(html: str, select_id: str = "challenge-days") -> list[str]:
    select = re.search(rf'<select[^>]*id="{select_id}".*?</select>', html, re.S)
    assert select is not None
    return re.findall(r'<option value="([^"]*)" selected>', select[0])


@pytest.mark.parametrize("days", ["7", "none", "1"])
def test_a_refused_challenge_keeps_the_time_control_chosen(as_alice, alice, days):
    response = as_alice.post(
        reverse("challenge_create"), {"username": "bobb", "days_per_move": days}, follow=True
    )
    assert selected_days(text(response)) == [days]
    # Once: the next visit offers the usual choice first.
    assert selected_days(text(as_alice.get(reverse("dashboard")))) == ["3"]


@pytest.mark.parametrize("days", ["", "4", "x" * 500, "３", "null", "7\x00"])
def test_a_time_control_not_offered_comes_back_as_the_usual_choice(as_alice, alice, days):
    response = as_alice.post(
        reverse("challenge_create"), {"username": "bob", "days_per_move": days}, follow=True
    )
    assert selected_days(text(response)) == ["3"]


def test_a_refused_challenge_from_a_profile_keeps_its_time_control_there(
    as_alice, alice, bob, settings
):
    # Challenged and withdrawn up to the pair's allowance: the next one is refused, and
    # bob's profile still offers the form.
    settings.CHALLENGES_PER_PAIR_PER_WINDOW = 1
    made = services.challenge(challenger=alice, challenged=bob)
    services.withdraw_challenge(challenge_id=made.pk, player=alice)
    profile = reverse("player_detail", args=["bob"])
    response = as_alice.post(
        reverse("challenge_create"),
        {"username": "bob", "days_per_move": "14", "next": profile},
        follow=True,
    )
    html = text(response)
    assert response.redirect_chain[-1][0] == profile
    assert "You have sent too many challenges lately" in html
    assert re.findall(r'<option value="([^"]*)" selected>', html) == ["14"]
    again = text(as_alice.get(profile))
    assert re.findall(r'<option value="([^"]*)" selected>', again) == ["3"]


def test_challenge_with_an_empty_name_is_refused_with_a_message(as_alice, alice):
    response = as_alice.post(reverse("challenge_create"), {"username": "  "})

    assert messages_of(response) == ["Type the user name of the player to challenge."]
    assert not Challenge.objects.exists()


def test_challenging_myself_is_refused_with_the_domain_message(as_alice, alice):
    response = as_alice.post(reverse("challenge_create"), {"username": "alice"})

    assert messages_of(response) == ["You cannot challenge yourself."]
    assert not Challenge.objects.exists()


def test_challenging_twice_is_refused_and_leaves_one_challenge(as_alice, alice, bob):
    services.challenge(challenger=alice, challenged=bob)

    response = as_alice.post(reverse("challenge_create"), {"username": "bob"})

    assert messages_of(response) == ["A challenge between you is already pending."]
    assert Challenge.objects.count() == 1


def test_challenging_an_opponent_of_a_game_in_progress_is_refused(as_alice, game):
    response = as_alice.post(reverse("challenge_create"), {"username": "bob"})

    assert messages_of(response) == ["You already have a game in progress with that player."]
    assert not Challenge.objects.filter(status=Challenge.Status.PENDING).exists()


def test_challenge_returns_to_the_page_named_in_next(as_alice, bob):
    back = reverse("players") + "?q=bo"

    response = as_alice.post(reverse("challenge_create"), {"username": "bob", "next": back})

    assert response["Location"] == back


def test_challenge_never_returns_to_another_site(as_alice, bob):
    response = as_alice.post(
        reverse("challenge_create"), {"username": "bob", "next": "https://evil.example/"}
    )

    assert response["Location"] == reverse("dashboard")


@pytest.mark.parametrize(
    "name, args",
    [
        ("challenge_create", []),
        ("challenge_accept", [1, "white"]),
        ("challenge_decline", [1]),
        ("challenge_withdraw", [1]),
    ],
)
def test_challenge_actions_refuse_get(as_alice, name, args):
    response = as_alice.get(reverse(name, args=args))

    assert response.status_code == 405


def test_challenge_actions_need_the_csrf_token(alice, bob):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    response = client.post(reverse("challenge_create"), {"username": "bob"})

    assert response.status_code == 403
    assert not Challenge.objects.exists()


def test_challenge_actions_need_a_login(client, alice, bob):
    pending = services.challenge(challenger=bob, challenged=alice)

    response = client.post(reverse("challenge_accept", args=[pending.pk, "white"]))

    assert response["Location"].startswith(reverse("login"))
    pending.refresh_from_db()
    assert pending.status == Challenge.Status.PENDING


@pytest.mark.parametrize("colour", ["white", "black"])
def test_accepting_with_a_colour_starts_the_game_with_that_colour(as_alice, alice, bob, colour):
    pending = services.challenge(challenger=bob, challenged=alice)

    response = as_alice.post(
        reverse("challenge_accept", args=[pending.pk, colour]), {"next": reverse("dashboard")}
    )

    game = Game.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("game_detail", args=[game.pk])
    assert (game.white if colour == "white" else game.black) == alice
    pending.refresh_from_db()
    assert pending.status == Challenge.Status.ACCEPTED
    assert f"you play {colour}" in messages_of(response)[0]


def test_a_bug_inside_a_service_is_logged_and_not_shown_as_a_refusal(
    alice, bob, monkeypatch, server_error
):
    pending = services.challenge(challenger=bob, challenged=alice)

    def broken_accept(**kwargs):
        raise AttributeError("'NoneType' object has no attribute 'pk'")

    monkeypatch.setattr(services, "accept_challenge", broken_accept)
    status, logged = server_error(
        alice, "post", reverse("challenge_accept", args=[pending.pk, "white"])
    )
    # A 500, not a redirect with the error as a message, as a refused accept would get.
    assert status == 500
    assert len(logged) == 1 and logged[0].exc_info[0] is AttributeError
    pending.refresh_from_db()
    assert pending.status == Challenge.Status.PENDING


def test_accepting_with_a_random_colour_starts_the_game_either_way(as_alice, alice, bob):
    pending = services.challenge(challenger=bob, challenged=alice)

    as_alice.post(reverse("challenge_accept", args=[pending.pk, "random"]))

    game = Game.objects.get()
    assert {game.white, game.black} == {alice, bob}


def test_accepting_with_an_unknown_colour_is_refused(as_alice, alice, bob):
    pending = services.challenge(challenger=bob, challenged=alice)

    response = as_alice.post(reverse("challenge_accept", args=[pending.pk, "green"]))

    assert messages_of(response) == ["The colour must be white or black."]
    pending.refresh_from_db()
    assert pending.status == Challenge.Status.PENDING
    assert not Game.objects.exists()


def test_a_challenge_cannot_be_accepted_by_someone_else(as_carol, alice, bob):
    pending = services.challenge(challenger=bob, challenged=alice)

    response = as_carol.post(reverse("challenge_accept", args=[pending.pk, "white"]))

    assert messages_of(response) == ["No pending challenge from that player."]
    pending.refresh_from_db()
    assert pending.status == Challenge.Status.PENDING
    assert not Game.objects.exists()


def test_a_challenge_cannot_be_accepted_by_the_challenger(as_bob, alice, bob):
    pending = services.challenge(challenger=bob, challenged=alice)

    as_bob.post(reverse("challenge_accept", args=[pending.pk, "white"]))

    pending.refresh_from_db()
    assert pending.status == Challenge.Status.PENDING
    assert not Game.objects.exists()


def test_accepting_a_challenge_twice_is_refused(as_alice, alice, bob):
    pending = services.challenge(challenger=bob, challenged=alice)
    services.accept_challenge(challenge_id=pending.pk, player=alice, colour="white")

    response = as_alice.post(reverse("challenge_accept", args=[pending.pk, "black"]))

    assert response["Location"] == reverse("dashboard")
    assert messages_of(response) == ["No pending challenge from that player."]
    assert Game.objects.count() == 1


def test_declining_closes_the_challenge_without_a_game(as_alice, alice, bob):
    pending = services.challenge(challenger=bob, challenged=alice)

    response = as_alice.post(reverse("challenge_decline", args=[pending.pk]))

    assert response.status_code == 302
    pending.refresh_from_db()
    assert pending.status == Challenge.Status.DECLINED
    assert not Game.objects.exists()
    assert messages_of(response) == ["You declined bob's challenge."]


def test_a_challenge_cannot_be_declined_by_the_challenger(as_bob, alice, bob):
    pending = services.challenge(challenger=bob, challenged=alice)

    response = as_bob.post(reverse("challenge_decline", args=[pending.pk]))

    assert messages_of(response) == ["No pending challenge from that player."]
    pending.refresh_from_db()
    assert pending.status == Challenge.Status.PENDING


def test_withdrawing_closes_my_challenge(as_bob, alice, bob):
    pending = services.challenge(challenger=bob, challenged=alice)

    response = as_bob.post(reverse("challenge_withdraw", args=[pending.pk]))

    pending.refresh_from_db()
    assert pending.status == Challenge.Status.WITHDRAWN
    assert messages_of(response) == ["You withdrew your challenge to alice."]


def test_a_challenge_cannot_be_withdrawn_by_the_challenged_player(as_alice, alice, bob):
    pending = services.challenge(challenger=bob, challenged=alice)

    response = as_alice.post(reverse("challenge_withdraw", args=[pending.pk]))

    assert messages_of(response) == ["No pending challenge from that player."]
    pending.refresh_from_db()
    assert pending.status == Challenge.Status.PENDING


def test_a_challenge_cannot_be_withdrawn_by_a_third_player(as_carol, alice, bob):
    pending = services.challenge(challenger=bob, challenged=alice)

    as_carol.post(reverse("challenge_withdraw", args=[pending.pk]))

    pending.refresh_from_db()
    assert pending.status == Challenge.Status.PENDING


def test_action_on_a_missing_challenge_is_refused_with_a_message(as_alice, alice):
    response = as_alice.post(reverse("challenge_decline", args=[999999]))

    assert messages_of(response) == ["No pending challenge from that player."]


# --------------------------------------------------------------------------- players


def usernames_listed(response) -> list[str]:
    return re.findall(r'<tr data-username="([^"]+)">', text(response))


def test_players_list_shows_active_players_by_name(as_alice, alice, bob, carol, make_player):
    make_player("zed", is_active=False)

    response = as_alice.get(reverse("players"))

    assert usernames_listed(response) == ["alice", "bob", "carol"]


def test_players_search_matches_the_user_name(as_alice, alice, bob, carol):
    response = as_alice.get(reverse("players"), {"q": "CAR"})

    assert usernames_listed(response) == ["carol"]


def test_players_search_matches_the_full_name(as_alice, alice, make_player):
    make_player("dave", first_name="David", last_name="Delgado")
    make_player("eve", first_name="Eve", last_name="Espinoza")

    response = as_alice.get(reverse("players"), {"q": "delgado"})

    assert usernames_listed(response) == ["dave"]
    assert "Delgado" in text(response)


def test_players_search_without_match_says_so(as_alice, alice):
    response = as_alice.get(reverse("players"), {"q": "nobody-at-all"})

    assert usernames_listed(response) == []
    assert "No player matches that search." in text(response)


def test_players_list_is_paginated(as_alice, alice, make_player):
    for n in range(25):
        make_player(f"p{n:02d}")

    first = as_alice.get(reverse("players"))
    second = as_alice.get(reverse("players"), {"page": 2})

    assert len(usernames_listed(first)) == 20
    assert len(usernames_listed(second)) == 6
    assert set(usernames_listed(first)).isdisjoint(usernames_listed(second))


def test_players_list_offers_a_challenge_only_where_one_can_be_made(
    as_alice, alice, bob, carol, make_player, game
):
    dave = make_player("dave")
    services.challenge(challenger=carol, challenged=alice)

    html = text(as_alice.get(reverse("players")))

    rows = dict(re.findall(r'<tr data-username="([^"]+)">(.*?)</tr>', html, re.S))
    assert reverse("challenge_create") not in rows["alice"]
    assert "Game in progress" in rows["bob"]
    assert "Answer their challenge" in rows["carol"]
    assert f'name="username" value="{dave.username}"' in rows["dave"]


def test_profile_shows_the_record_and_recent_games(as_alice, alice, bob, game, play):
    play(game, "e4", "e5")
    services.resign(game_id=game.pk, player=bob)

    html = text(as_alice.get(reverse("player_detail", args=["bob"])))

    record = html[html.index('id="player-record"') : html.index('id="recent-games"')]
    figures = re.findall(r'class="record-figure[^"]*"(?: id="[^"]+")?>(\d+)(\??)<', record)
    assert [f for f, _ in figures[1:]] == ["0", "1", "0"]  # wins, losses, draws
    rating, provisional = figures[0]
    assert int(rating) < 1500  # the rating dropped
    assert provisional == "?"  # one game: far from established
    assert "1 rated game: from 1500 to" in html or "One rated game: from 1500 to" in html
    assert 'id="rating-chart-data"' in html
    assert f'data-game-id="{game.pk}"' in html
    # The recent game names its opponent and its result (once a browser test).
    recent = html[html.index('id="recent-games"') :]
    assert "alice" in recent and "1-0" in recent


def test_profile_reads_in_a_fixed_number_of_queries(
    as_alice, alice, bob, carol, make_player, start_game, play, django_assert_max_num_queries
):
    for n in range(6):
        opponent = make_player(f"rival{n}")
        game = start_game(bob, opponent)
        play(game, "e4", "e5")
        services.resign(game_id=game.pk, player=opponent)
    # A warm-up request, then the count; more rated games must not add queries.
    as_alice.get(reverse("player_detail", args=["bob"]))
    # 13: the header's bell counts the unread notifications on every page.
    with django_assert_max_num_queries(13) as counted:
        response = as_alice.get(reverse("player_detail", args=["bob"]))
    assert response.status_code == 200
    assert "6 rated games" in text(response)
    few = len(counted.captured_queries)
    game = start_game(bob, carol)
    play(game, "e4", "e5")
    services.resign(game_id=game.pk, player=carol)
    with django_assert_max_num_queries(few):
        as_alice.get(reverse("player_detail", args=["bob"]))


def test_profile_of_a_player_without_a_ranking_row_reads_as_empty_and_writes_nothing(
    as_alice, bob
):
    PlayerRecord.objects.filter(player=bob).delete()

    html = text(as_alice.get(reverse("player_detail", args=["bob"])))

    record = html[html.index('id="player-record"') : html.index("Recent games")]
    figures = re.findall(r'class="record-figure[^"]*"(?: id="[^"]+")?>(\d+\??)<', record)
    assert figures == ["1500?", "0", "0", "0"]  # rating (provisional), wins, losses, draws
    assert "No rated game yet." in html
    assert not PlayerRecord.objects.filter(player=bob).exists()


def test_profile_of_an_unknown_or_closed_account_is_not_found(as_alice, make_player):
    make_player("gone", is_active=False)

    assert as_alice.get(reverse("player_detail", args=["nobody"])).status_code == 404
    assert as_alice.get(reverse("player_detail", args=["gone"])).status_code == 404


def test_profile_rows_do_not_speak_to_the_visitor_as_a_player(as_carol, alice, bob, game):
    html = text(as_carol.get(reverse("player_detail", args=["alice"])))

    games = html[html.index('id="recent-games"') :]
    assert f'data-game-id="{game.pk}"' in games
    assert "your move" not in games
    assert "in progress" in games


def test_players_list_query_count_stays_bounded_with_many_players(
    as_alice, alice, bob, make_player, start_game, django_assert_max_num_queries
):
    for n in range(30):
        make_player(f"p{n:02d}")
    start_game(alice, bob)
    services.challenge(challenger=alice, challenged=User.objects.get(username="p00"))

    # 11: the header's bell is one count, the site's games-per-pair limit another, the
    # bots among the players one more.
    with django_assert_max_num_queries(11):
        response = as_alice.get(reverse("players"))

    assert len(usernames_listed(response)) == 20


# --------------------------------------------------------------------------- staff


def test_a_staff_account_is_not_listed_among_the_players(as_alice, make_player):
    make_player("warden", is_staff=True)
    html = text(as_alice.get(reverse("players")))
    assert "warden" not in html
    assert as_alice.get(reverse("player_detail", args=["warden"])).status_code == 404


def test_a_staff_account_cannot_be_challenged_nor_challenge(as_alice, alice, make_player):
    warden = make_player("warden", is_staff=True)
    response = as_alice.post(reverse("challenge_create"), {"username": "warden"}, follow=True)
    assert any("warden" in m for m in messages_of(response))
    with pytest.raises(UserNotFound):
        services.challenge(challenger=warden, challenged=alice)
    assert not Challenge.objects.exists()


@pytest.mark.parametrize("page", ["dashboard", "your-move"])
def test_a_game_whose_time_ran_out_is_listed_only_as_finished(as_alice, alice, bob, page):
    import datetime as dt

    import time_machine
    from django.utils import timezone

    made = services.challenge(challenger=bob, challenged=alice, days_per_move=1)
    game = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
    with time_machine.travel(timezone.now() + dt.timedelta(days=2), tick=False):
        url = reverse("dashboard") if page == "dashboard" else reverse("game_list", args=[page])
        html = as_alice.get(url).content.decode()
        finished = as_alice.get(reverse("game_list", args=["finished"])).content.decode()
        # The read showed it over and wrote nothing: the sweep ends it in the database.
        game.refresh_from_db()
        assert game.is_active
        assert services.expire_due_games() == 1
    game.refresh_from_db()
    assert (game.status, game.termination) == ("finished", "aborted")
    shown = html.count(f'data-game-id="{game.pk}"')
    assert shown == (1 if page == "dashboard" else 0)
    assert finished.count(f'data-game-id="{game.pk}"') == 1


# --------------------------------------------------------------------------- who picks


def test_the_dashboard_challenges_with_the_colour_the_challenger_chose(as_alice, alice, bob):
    as_alice.post(reverse("challenge_create"), {"username": "bob", "colour": "black"})

    made = Challenge.objects.get()
    assert (made.colour_choice, made.challenger_colour) == ("black", "black")
    assert "you play black" in as_alice.get(reverse("dashboard")).content.decode()


def test_the_dashboard_challenge_lets_the_opponent_choose_by_default(as_alice, alice, bob):
    as_alice.post(reverse("challenge_create"), {"username": "bob"})

    assert Challenge.objects.get().colour_choice == "acceptor"
    assert "they choose the colours" in as_alice.get(reverse("dashboard")).content.decode()


@pytest.mark.parametrize("colour", ["purple", "\u2603", "x" * 1000])
def test_a_challenge_with_an_unknown_colour_is_refused(as_alice, alice, bob, colour):
    response = as_alice.post(
        reverse("challenge_create"), {"username": "bob", "colour": colour}, follow=True
    )

    assert not Challenge.objects.exists()
    assert "The colour must be white or black." in response.content.decode()


def test_a_challenge_whose_challenger_chose_is_accepted_with_one_button(as_bob, alice, bob):
    made = services.challenge(challenger=alice, challenged=bob, colour="white")
    html = as_bob.get(reverse("dashboard")).content.decode()
    assert "They chose the colours: you play black." in html
    assert reverse("challenge_accept", args=[made.pk, "white"]) not in html

    as_bob.post(reverse("challenge_accept", args=[made.pk, "random"]))

    game = Game.objects.get()
    assert (game.white, game.black) == (alice, bob)


def test_taking_the_challenger_s_colour_on_the_web_is_refused(as_bob, alice, bob):
    made = services.challenge(challenger=alice, challenged=bob, colour="white")

    response = as_bob.post(reverse("challenge_accept", args=[made.pk, "white"]), follow=True)

    assert not Game.objects.exists()
    assert "you play black" in response.content.decode()
