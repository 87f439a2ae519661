"""How many games two players may have in progress together: one by default (seed 000,
1.2), more when the administrator's "Site rules" allow it, at every door.

Races between requests of the same pair are in tests/games/test_concurrency.py; ESPOL's
wire in tests/protocols/test_espol_conformance.py.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client
from django.urls import reverse

from games import errors, selectors, services
from games.models import Challenge, Game, SiteRules
from games.services.challenges import create_game
from tests.conftest import PASSWORD

User = get_user_model()


def allow(games_per_pair: int | None) -> None:
    services.set_site_rules(games_per_pair=games_per_pair)


def play_with(white, black) -> Game:
    """A game started the way players start one: ``black`` challenges, ``white`` accepts."""
    made = services.challenge(challenger=black, challenged=white)
    return services.accept_challenge(challenge_id=made.pk, player=white, colour="white")


# --------------------------------------------------------------------------- the limit


def test_by_default_a_pair_plays_one_game_at_a_time(alice, bob, game):
    assert selectors.games_per_pair() == 1
    with pytest.raises(errors.ActiveGameExists) as refused:
        services.challenge(challenger=alice, challenged=bob)
    assert refused.value.message == "You already have a game in progress with that player."
    assert not Challenge.objects.filter(status="pending").exists()


def test_the_environment_gives_the_default(alice, bob, settings):
    settings.GAMES_PER_PAIR = 2
    first, second = play_with(alice, bob), play_with(bob, alice)
    assert {first.pk, second.pk} == set(selectors.pair_games_in_progress(alice.pk, bob.pk)
                                        .values_list("pk", flat=True))
    with pytest.raises(errors.ActiveGameExists) as refused:
        services.challenge(challenger=alice, challenged=bob)
    assert refused.value.message == (
        "You already have 2 games in progress with that player, the most this site allows."
    )


def test_the_administrators_value_rules_over_the_environment(alice, bob, settings):
    settings.GAMES_PER_PAIR = 3
    allow(1)
    play_with(alice, bob)
    with pytest.raises(errors.ActiveGameExists):
        services.challenge(challenger=bob, challenged=alice)
    # Emptied, the rule is the environment's again.
    allow(None)
    assert selectors.games_per_pair() == 3
    assert services.challenge(challenger=bob, challenged=alice).status == "pending"


def test_with_three_allowed_a_pair_plays_three_games_and_no_fourth(alice, bob, carol):
    allow(3)
    games = [play_with(alice, bob), play_with(bob, alice), play_with(alice, bob)]
    assert len({g.pk for g in games}) == 3
    with pytest.raises(errors.ActiveGameExists):
        services.challenge(challenger=alice, challenged=bob)
    # Other pairs are counted on their own.
    assert play_with(alice, carol).is_active
    # A game that ends makes room again.
    services.resign(game_id=games[0].pk, player=alice)
    assert services.challenge(challenger=alice, challenged=bob).status == "pending"


def test_lowering_the_limit_ends_no_game_and_starts_none_above_it(alice, bob):
    allow(2)
    first, second = play_with(alice, bob), play_with(bob, alice)
    allow(1)
    assert Game.objects.filter(pk__in=(first.pk, second.pk), status="active").count() == 2
    services.resign(game_id=first.pk, player=alice)
    with pytest.raises(errors.ActiveGameExists):
        services.challenge(challenger=alice, challenged=bob)


# --------------------------------------------------------------------------- challenges


def test_a_second_challenge_to_the_same_player_is_refused_whatever_the_limit(alice, bob):
    # ESPOL's ACEP names a challenge by its challenger alone: one pending each way.
    allow(5)
    services.challenge(challenger=alice, challenged=bob)
    with pytest.raises(errors.ChallengeExists):
        services.challenge(challenger=alice, challenged=bob)


def test_a_challenge_back_waits_beside_theirs_while_both_games_fit(alice, bob):
    allow(2)
    theirs = services.challenge(challenger=bob, challenged=alice)
    mine = services.challenge(challenger=alice, challenged=bob)
    assert {theirs.status, mine.status} == {"pending"}
    # Both accepted: two games.
    services.accept_challenge(challenge_id=theirs.pk, player=alice, colour="white")
    services.accept_challenge(challenge_id=mine.pk, player=bob, colour="black")
    assert selectors.pair_games_in_progress(alice.pk, bob.pk).count() == 2


def test_a_challenge_back_is_refused_when_theirs_would_fill_the_last_place(alice, bob):
    allow(2)
    play_with(alice, bob)
    services.challenge(challenger=bob, challenged=alice)
    with pytest.raises(errors.OpponentChallengedFirst):
        services.challenge(challenger=alice, challenged=bob)


def test_an_acceptance_at_the_limit_is_refused_and_the_challenge_waits(alice, bob):
    allow(2)
    mine = services.challenge(challenger=alice, challenged=bob)
    theirs = services.challenge(challenger=bob, challenged=alice)
    allow(1)
    services.accept_challenge(challenge_id=mine.pk, player=bob, colour="white")
    with pytest.raises(errors.ActiveGameExists):
        services.accept_challenge(challenge_id=theirs.pk, player=alice, colour="white")
    theirs.refresh_from_db()
    assert theirs.status == "pending"
    assert selectors.pair_games_in_progress(alice.pk, bob.pk).count() == 1


# --------------------------------------------------------------------------- gateways, hook


def test_a_gateway_game_counts_against_the_limit_like_any_other(alice, bob, game):
    # The # protocol and chessirc pair linked names through start_gateway_game.
    with pytest.raises(errors.ActiveGameExists):
        services.start_gateway_game(white=bob, black=alice)
    allow(2)
    assert services.start_gateway_game(white=bob, black=alice).is_active
    with pytest.raises(errors.ActiveGameExists):
        services.challenge(challenger=alice, challenged=bob)


def test_a_game_started_outside_the_limit_is_not_refused(alice, bob, game):
    # The hook a later event (a tournament) uses for its games.
    with transaction.atomic():
        extra = create_game(white=bob, black=alice, days_per_move=None, within_pair_limit=False)
    assert extra.is_active and game.is_active


# --------------------------------------------------------------------------- the setting


@pytest.mark.parametrize("value", [0, -1, 101, 10**9, "2", "２", 2.0, True, "", []])
def test_a_games_per_pair_that_is_no_whole_number_from_1_to_100_is_refused(alice, value):
    with pytest.raises(errors.InvalidGamesPerPair):
        services.set_site_rules(games_per_pair=value)
    assert not SiteRules.objects.exists()


# --------------------------------------------------------------------------- the admin


@pytest.fixture
def admin_client(db) -> Client:
    root = User.objects.create_superuser("root", "root@example.org", PASSWORD)
    client = Client(headers={"accept-language": "en"})
    client.force_login(root)
    return client


SITE_RULES = reverse("admin:games_siterules_changelist")


def test_the_admin_opens_the_site_rules_form_straight_away(admin_client, settings):
    settings.GAMES_PER_PAIR = 1
    index = admin_client.get(reverse("admin:index")).content.decode()
    assert SITE_RULES in index and "Site rules" in index
    response = admin_client.get(SITE_RULES, follow=True)
    assert response.redirect_chain[-1][0] == reverse("admin:games_siterules_add")
    assert "GAMES_PER_PAIR, now 1" in response.content.decode()


def test_the_administrator_raises_the_limit_and_every_door_takes_it(admin_client, alice, bob):
    play_with(alice, bob)
    response = admin_client.post(
        reverse("admin:games_siterules_add"), {"games_per_pair": "2"}, follow=True
    )
    assert response.status_code == 200
    assert SiteRules.objects.get().games_per_pair == 2
    # The one row is changed from then on: no second add, no delete.
    assert admin_client.get(SITE_RULES).url == reverse(
        "admin:games_siterules_change", args=[SiteRules.SINGLETON]
    )
    assert admin_client.get(reverse("admin:games_siterules_add")).status_code == 403
    delete = reverse("admin:games_siterules_delete", args=[SiteRules.SINGLETON])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    assert services.challenge(challenger=alice, challenged=bob).status == "pending"


@pytest.mark.parametrize("typed", ["0", "101", "-3", "two", "2.5", "１" * 300, "9" * 40])
def test_the_admin_refuses_a_limit_out_of_range_and_keeps_the_rule(admin_client, typed):
    allow(3)
    change = reverse("admin:games_siterules_change", args=[SiteRules.SINGLETON])
    response = admin_client.post(change, {"games_per_pair": typed})
    assert response.status_code == 200  # the form again, with its error
    assert "errornote" in response.content.decode()
    assert SiteRules.objects.get().games_per_pair == 3


def test_the_admin_empties_the_rule_back_to_the_environments(admin_client, settings):
    settings.GAMES_PER_PAIR = 4
    allow(2)
    change = reverse("admin:games_siterules_change", args=[SiteRules.SINGLETON])
    admin_client.post(change, {"games_per_pair": ""})
    assert SiteRules.objects.get().games_per_pair is None
    assert selectors.games_per_pair() == 4


# --------------------------------------------------------------------------- the pages


def _row(html: str, username: str) -> str:
    return dict(re.findall(r'<tr data-username="([^"]+)">(.*?)</tr>', html, re.S))[username]


def test_the_players_page_lists_each_game_with_them_and_offers_another(client, alice, bob):
    allow(3)
    first, second = play_with(alice, bob), play_with(bob, alice)
    client.force_login(alice)
    row = _row(client.get(reverse("players")).content.decode(), "bob")
    # Each game by its number, each a link to it.
    for game in (first, second):
        assert f'href="{reverse("game_detail", args=[game.pk])}"' in row
        assert game.public_id in row
    assert "Challenge to another game" in row
    client.post(reverse("challenge_create"), {"username": "bob", "days_per_move": "3"})
    assert Challenge.objects.get(status="pending").challenged == bob


def test_at_the_limit_the_players_page_offers_no_challenge(client, alice, bob):
    game = play_with(alice, bob)
    client.force_login(alice)
    row = _row(client.get(reverse("players")).content.decode(), "bob")
    assert "Game in progress" in row
    assert f'href="{reverse("game_detail", args=[game.pk])}"' in row
    assert reverse("challenge_create") not in row


def test_the_profile_offers_a_challenge_back_only_while_both_games_fit(client, alice, bob):
    allow(2)
    services.challenge(challenger=bob, challenged=alice)
    client.force_login(alice)
    page = client.get(reverse("player_detail", args=["bob"])).content.decode()
    assert "Answer their challenge" in page and reverse("challenge_create") in page
    play_with(bob, alice)  # alice's challenge back, accepted: one place left, theirs
    page = client.get(reverse("player_detail", args=["bob"])).content.decode()
    assert "Answer their challenge" in page and reverse("challenge_create") not in page


def test_the_web_says_why_a_challenge_at_the_limit_is_refused(client, alice, bob):
    allow(2)
    play_with(alice, bob), play_with(bob, alice)
    client.force_login(alice)
    response = client.post(
        reverse("challenge_create"), {"username": "bob", "days_per_move": "3"}, follow=True
    )
    assert (
        "You already have 2 games in progress with that player, the most this site allows."
        in response.content.decode()
    )
