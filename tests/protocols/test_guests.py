"""Who plays through the gateways that name players without a password
(docs/protocols/guests.md): guests namespaced by gateway and channel, unrated, out of the
ranking and of the players' lists; names linked to accounts; the per-gateway switch."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts import errors as account_errors
from accounts import selectors as account_selectors
from accounts import services as account_services
from accounts.models import GatewayKey, GuestIdentity
from games import services
from games.models import Game
from legacy_tcp import guests
from legacy_tcp.models import GatewayPolicy, LinkedName
from ranking.models import PlayerRecord
from ranking.selectors import ranking
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

User = get_user_model()


def guest(name: str, gateway: str = "distribuido", channel: str = ""):
    return guests.player_for(gateway=gateway, name=name, channel=channel, trusted=False)


def test_a_guest_is_named_by_its_gateway_and_cannot_be_a_registered_name(alice):
    player = guest("alice")
    assert player.username == "alice@distribuido"
    assert player.pk != alice.pk
    assert account_services.username_problem(player.username) is not None


def test_an_irc_guest_is_named_by_its_channel_too():
    assert guest("alice", "chessirc", "canal").username == "alice@chessirc.canal"
    assert guest("alice", "chessirc", "otro").username == "alice@chessirc.otro"


def test_a_guest_name_coming_back_is_the_same_guest():
    first = guest("alice")
    assert guest("alice").pk == first.pk
    assert GuestIdentity.objects.count() == 1


def test_a_guest_cannot_log_in_anywhere(client):
    player = guest("alice")
    assert not player.has_usable_password()
    for password in ("", "!", player.password):
        client.post(reverse("login"), {"username": player.username, "password": password})
        assert "_auth_user_id" not in client.session


@pytest.mark.parametrize("name", ["", "a" * 31, "has space", "semi;colon", "hash#", "ñandú", "a@b"])
def test_a_name_outside_the_guest_characters_is_refused(name):
    with pytest.raises(account_errors.InvalidGuestName):
        guest(name)
    assert not User.objects.exists()


@pytest.mark.parametrize("channel", ["#canal", "with space", "a" * 31, "dot.ted"])
def test_a_channel_outside_its_characters_is_refused(channel):
    with pytest.raises(account_errors.InvalidGuestName):
        guest("nick", "chessirc", channel)


def test_guests_are_not_players_to_challenge_or_list(alice):
    guest("bob")
    assert list(account_selectors.players()) == [alice]
    with pytest.raises(account_errors.UserNotFound):
        account_selectors.active_player("bob@distribuido")


def test_a_game_between_guests_is_unrated_and_kept_out_of_the_ranking(alice, bob, play):
    white, black = guest("w"), guest("b")
    game = services.start_gateway_game(white=white, black=black)
    assert game.rated is False
    play(game, "f3", "e5", "g4", "Qh4#")
    game.refresh_from_db()
    assert game.result == "0-1"
    record = PlayerRecord.objects.get(player=black)
    assert (record.wins, record.rating) == (0, 1500)
    assert {r.player_id for r in ranking()} == {alice.pk, bob.pk}


def test_a_game_of_a_guest_and_an_account_is_unrated(alice):
    game = services.start_gateway_game(white=alice, black=guest("b"))
    services.resign(game_id=game.pk, player=alice)
    assert PlayerRecord.objects.get(player=alice).losses == 0


def test_a_game_between_linked_accounts_is_rated(alice, bob):
    game = services.start_gateway_game(white=alice, black=bob)
    assert game.rated
    services.resign(game_id=game.pk, player=alice)
    assert PlayerRecord.objects.get(player=bob).wins == 1


def test_a_guest_game_is_an_ordinary_game_to_watch_and_export(client, carol):
    game = services.start_gateway_game(white=guest("w"), black=guest("b"))
    services.make_move(game_id=game.pk, player=game.white, move_number=1, move="e4")
    client.force_login(carol)
    page = client.get(reverse("game_detail", args=[game.pk]))
    assert page.status_code == 200
    assert b"w@distribuido" in page.content
    pgn = client.get(reverse("game_pgn", args=[game.pk])).content.decode()
    assert '[White "w@distribuido"]' in pgn
    assert "1. e4" in pgn


def test_a_gateway_game_refuses_the_same_player_twice():
    player = guest("solo")
    with pytest.raises(Exception) as caught:
        services.start_gateway_game(white=player, black=player)
    assert getattr(caught.value, "code", None) == "self_challenge"
    assert not Game.objects.exists()


def test_turning_guests_off_refuses_new_guests_but_not_linked_names(alice):
    GatewayPolicy.objects.create(gateway="distribuido", guests_allowed=False)
    LinkedName.objects.create(gateway="distribuido", name="ali", player=alice)
    key = account_services.make_gateway_key(player=alice)
    with pytest.raises(guests.GuestsNotAllowed):
        guest("stranger")
    assert guests.player_for(gateway="distribuido", name="ali", trusted=True, key=key) == alice
    # The switch is per gateway.
    assert guest("stranger", "chessirc", "canal").username == "stranger@chessirc.canal"


def test_a_linked_name_is_reserved_while_the_gateway_trusts_nobody(alice):
    LinkedName.objects.create(gateway="distribuido", name="ali", player=alice)
    with pytest.raises(guests.NameReserved):
        guest("ali")
    assert not GuestIdentity.objects.exists()


def test_a_linked_name_is_per_channel(alice):
    LinkedName.objects.create(gateway="chessirc", channel="uno", name="ali", player=alice)
    assert guests.player_for(gateway="chessirc", channel="uno", name="ali", trusted=True) == alice
    assert guest("ali", "chessirc", "dos").username == "ali@chessirc.dos"


def test_a_linked_name_of_a_closed_account_is_refused(make_player):
    gone = make_player("gone", is_active=False)
    LinkedName.objects.create(gateway="distribuido", name="gone", player=gone)
    key = account_services.make_gateway_key(player=gone)
    with pytest.raises(guests.LinkedAccountClosed):
        guests.player_for(gateway="distribuido", name="gone", trusted=True, key=key)


def linked(name: str, key: str | None):
    return guests.player_for(gateway="distribuido", name=name, trusted=True, key=key)


def test_a_linked_name_on_the_hash_gateway_plays_as_its_account_only_with_its_key(alice, bob):
    LinkedName.objects.create(gateway="distribuido", name="ali", player=alice)
    with pytest.raises(guests.LinkKeyRequired):
        linked("ali", None)  # the shared secret alone no longer suffices
    with pytest.raises(guests.WrongLinkKey):
        linked("ali", "no-key-made-yet")
    key = account_services.make_gateway_key(player=alice)
    bobs = account_services.make_gateway_key(player=bob)
    assert linked("ali", key) == alice
    for wrong in ("", bobs, key[:-1], key + "x", key.upper(), "ñ" * 32, "x" * 5000):
        with pytest.raises((guests.WrongLinkKey, guests.LinkKeyRequired)):
            linked("ali", wrong)
    # A new key ends the old one.
    newer = account_services.make_gateway_key(player=alice)
    with pytest.raises(guests.WrongLinkKey):
        linked("ali", key)
    assert linked("ali", newer) == alice
    assert not GuestIdentity.objects.exists()


def test_a_key_with_a_name_nobody_linked_is_refused_rather_than_made_a_guest(alice):
    key = account_services.make_gateway_key(player=alice)
    with pytest.raises(guests.NameNotLinked):
        linked("stranger", key)
    assert not GuestIdentity.objects.exists()


def test_chessirc_nicks_need_no_key_the_bot_is_trusted_with_its_channel(alice):
    LinkedName.objects.create(gateway="chessirc", channel="uno", name="ali", player=alice)
    assert guests.player_for(gateway="chessirc", channel="uno", name="ali", trusted=True) == alice


def test_only_a_digest_of_the_key_is_kept(alice):
    key = account_services.make_gateway_key(player=alice)
    stored = GatewayKey.objects.get(player=alice)
    assert key not in stored.digest and len(key) == 32
    assert account_selectors.gateway_key_made_at(alice.pk) == stored.created_at
    assert account_selectors.gateway_key_made_at(0) is None


def test_the_admin_turns_guests_off_per_gateway(client, make_player):
    admin = make_player("root", is_staff=True, is_superuser=True)
    client.force_login(admin)
    url = reverse("admin:legacy_tcp_gatewaypolicy_add")
    response = client.post(url, {"gateway": "chessirc", "guests_allowed": ""})
    assert response.status_code == 302
    assert not guests.guests_allowed("chessirc")
    assert guests.guests_allowed("distribuido")


def test_the_admin_links_a_name_to_an_account(client, make_player, alice):
    admin = make_player("root", is_staff=True, is_superuser=True)
    client.force_login(admin)
    url = reverse("admin:legacy_tcp_linkedname_add")
    response = client.post(
        url, {"gateway": "distribuido", "channel": "", "name": "ali", "player": alice.pk}
    )
    assert response.status_code == 302
    assert LinkedName.objects.get().player == alice
    # A guest cannot be picked as the account a name stands for.
    stranger = guest("x")
    refused = client.post(
        url, {"gateway": "distribuido", "channel": "", "name": "x", "player": stranger.pk}
    )
    assert refused.status_code == 200
    assert LinkedName.objects.count() == 1


def test_a_guest_has_no_usable_password_even_given_one_by_name(alice):
    # A registered password never logs a guest in, even with the guest's own user name.
    player = guest("alice")
    assert not player.check_password(PASSWORD)
