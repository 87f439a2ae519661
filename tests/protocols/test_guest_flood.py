"""A guest flood on the # protocol: new guest accounts are limited per address, and guests
that never played a game through are purged after a while."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core.management import call_command

from accounts import errors as account_errors
from accounts import services as account_services
from accounts.models import GuestIdentity
from games import services
from games.models import Game
from legacy_tcp import guests
from legacy_tcp.distribuido.server import DistribuidoServer
from tests.protocols.lines import LineClient

pytestmark = pytest.mark.django_db(transaction=True)

User = get_user_model()


def guest(name: str, address: str = "198.51.100.4"):
    return guests.player_for(gateway=guests.DISTRIBUIDO, name=name, trusted=False, address=address)


def test_new_guests_from_one_address_are_limited_and_a_known_name_still_plays(settings):
    settings.GUESTS_PER_ADDRESS = 3
    made = [guest(f"g{index}") for index in range(3)]
    with pytest.raises(account_errors.GuestsRateLimited):
        guest("g3")
    # A guest seen before is no new account; another address has its own allowance.
    assert guest("g0") == made[0]
    guest("g3", address="203.0.113.9")
    assert GuestIdentity.objects.count() == 4


def test_an_ipv6_client_is_counted_by_its_64(settings):
    settings.GUESTS_PER_ADDRESS = 1
    guest("v1", address="2001:db8:1:2::1")
    with pytest.raises(account_errors.GuestsRateLimited):
        guest("v2", address="2001:db8:1:2::ffff")


def test_the_gateway_refuses_the_guest_over_the_limit_with_a_reason(start_server, settings):
    settings.DISTRIBUIDO_MAX_PER_ADDRESS = 0
    settings.DISTRIBUIDO_SECRET = ""
    settings.GUESTS_PER_ADDRESS = 2
    gateway = start_server(server_class=DistribuidoServer)
    clients = [LineClient(gateway.port) for _ in range(3)]
    try:
        assert clients[0].ask("#INSCRIBIR#Ana#") == "#OK#B#"
        assert clients[1].ask("#INSCRIBIR#Beto#") == "#OK#N#"
        refused = clients[2].ask("#INSCRIBIR#Carla#")
        assert refused.startswith("#NOK#Demasiados invitados nuevos"), refused
    finally:
        for client in clients:
            client.close()
    assert GuestIdentity.objects.count() == 2


def test_idle_guests_go_with_their_games_and_players_stay(alice, bob):
    start = dt.datetime(2026, 5, 1, 12, tzinfo=dt.UTC)
    with time_machine.travel(start, tick=False):
        idle_a, idle_b = guest("idle_a"), guest("idle_b")
        left = services.start_gateway_game(white=idle_a, black=idle_b)
        services.leave_gateway_game(game_id=left.pk, player=idle_a)
        lonely = guest("lonely")
        played_a, played_b = guest("played_a"), guest("played_b")
        game = services.start_gateway_game(white=played_a, black=played_b)
        services.make_move(game_id=game.pk, player=played_a, move_number=1, move="e4")
        services.make_move(game_id=game.pk, player=played_b, move_number=2, move="e5")
        services.resign(game_id=game.pk, player=played_a)
        playing = guest("playing")
        services.start_gateway_game(white=playing, black=alice)
        fresh_start = start + dt.timedelta(hours=23)
    with time_machine.travel(fresh_start, tick=False):
        fresh = guest("fresh")
    with time_machine.travel(start + dt.timedelta(hours=25), tick=False):
        call_command("purge_guests", "--hours", "24")
    remaining = set(GuestIdentity.objects.values_list("name", flat=True))
    assert remaining == {"played_a", "played_b", "playing", "fresh"}
    assert not Game.objects.filter(pk=left.pk).exists()
    assert Game.objects.filter(pk=game.pk).exists()
    assert User.objects.filter(pk__in=[alice.pk, bob.pk, fresh.pk]).count() == 3
    assert not User.objects.filter(pk__in=[idle_a.pk, idle_b.pk, lonely.pk]).exists()


def test_guest_accounts_made_by_the_service_directly_are_not_limited(settings):
    # Without an address (chessirc: every guest comes through one bot) there is no count.
    settings.GUESTS_PER_ADDRESS = 1
    for index in range(3):
        account_services.guest_player(gateway="chessirc", name=f"n{index}", channel="c")
    assert GuestIdentity.objects.count() == 3
