"""One id per game at every door but ESPOL's: eight letters and digits, made with the
game (or its challenge, whose id the game takes), filled in for the games stored before
them; the web's /games/<number>/ and /games/<short id>/ both open the game."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from games import selectors, services
from games.models import Challenge, Game
from games.models.games import is_short_id, new_short_id


def test_a_short_id_is_never_a_number_nor_an_espol_name():
    made = {new_short_id() for _ in range(2000)}
    assert len(made) == 2000
    assert all(len(i) == 8 and i.isascii() and i.isalnum() and not i.isdigit() for i in made)
    assert not is_short_id("12345678") and not is_short_id("P1234567")
    assert not is_short_id("abcdéfgh") and not is_short_id("abc") and not is_short_id("abcd-efg")


def test_a_game_begun_by_a_challenge_takes_the_challenge_s_id(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    assert is_short_id(made.short_id)

    game = services.accept_challenge(challenge_id=made.pk, player=bob, colour="white")

    assert game.short_id == made.short_id
    assert Game.objects.get(pk=game.pk).short_id == made.short_id


def test_a_gateway_s_game_has_a_short_id_of_its_own(alice, bob):
    game = services.start_gateway_game(white=alice, black=bob)
    assert is_short_id(game.short_id)
    assert not Challenge.objects.filter(short_id=game.short_id).exists()


def test_the_read_model_shows_the_short_id(game):
    from games import state

    assert state.game_state(game)["short_id"] == game.short_id


@pytest.mark.parametrize("spelling", ["short", "full", "number", "espol", "espol lower"])
def test_every_door_s_spelling_of_a_game_names_it(game, spelling):
    text = {
        "short": game.short_id,
        "full": game.short_id + "whit",
        "number": str(game.pk),
        "espol": game.public_id,
        "espol lower": game.public_id.lower(),
    }[spelling]
    assert selectors.game_pk_of(text) == game.pk


@pytest.mark.parametrize(
    "text",
    ["", "   ", "zzzzzzzz", "0", "-1", "9" * 40, "P" + "9" * 40, "abcdéfgh", "١٢", "P١٢",
     "a" * 5000, "abc\x00defg"],
)
def test_what_names_no_game_gives_none(db, text):
    assert selectors.game_pk_of(text) is None


def test_the_web_opens_a_game_by_its_short_id_and_by_its_number(game, alice):
    client = Client()
    client.force_login(alice)

    by_number = client.get(f"/games/{game.pk}/")
    by_short_id = client.get(f"/games/{game.short_id}/")

    assert by_number.status_code == 200
    assert game.short_id in by_number.content.decode()
    assert by_short_id.status_code == 302
    assert by_short_id["Location"] == f"/games/{game.pk}/"


def test_the_web_sends_a_challenge_s_players_to_their_dashboard(alice, bob, carol):
    made = services.challenge(challenger=alice, challenged=bob)
    for player, status in ((alice, 302), (bob, 302), (carol, 404)):
        client = Client()
        client.force_login(player)
        assert client.get(f"/games/{made.short_id}/").status_code == status


def test_an_unknown_short_id_is_404(alice, db):
    client = Client()
    client.force_login(alice)
    assert client.get("/games/zzzzzzzz/").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_every_stored_game_and_challenge_its_own_id(alice, bob, carol):
    executor = MigrationExecutor(connection)
    leaf = executor.loader.graph.leaf_nodes()
    executor.migrate([("games", "0017_tournaments")])
    apps = MigrationExecutor(connection).loader.project_state(
        [("games", "0017_tournaments")]
    ).apps
    try:
        OldGame = apps.get_model("games", "Game")
        OldChallenge = apps.get_model("games", "Challenge")
        for white, black in ((alice, bob), (bob, carol), (carol, alice)):
            OldGame.objects.create(white_id=white.pk, black_id=black.pk)
        OldChallenge.objects.create(challenger_id=alice.pk, challenged_id=bob.pk)
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate([("games", "0018_short_ids")])
        ids = list(Game.objects.values_list("short_id", flat=True))
        ids += list(Challenge.objects.values_list("short_id", flat=True))
        assert len(ids) == 4 and len(set(ids)) == 4
        assert all(is_short_id(i) for i in ids)
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(leaf)
