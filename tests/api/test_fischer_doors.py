"""A Fischer game made with the web's challenge form and played over ESPOL and the
lichess API (berserk) against a live ``manage.py serve``: every door shows the same
banks, and the lichess API gives them as ``wtime``/``btime`` in milliseconds."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from berserk.exceptions import ResponseError
from django.test import Client
from django.urls import reverse

from games import clock, services
from games.models import Challenge, Game
from legacy_tcp.espol.client import jgda
from tests.api.test_berserk import (  # noqa: F401 (fixtures)
    Lines,
    client_of,
    espol_login,
    espol_player,
    moves_are,
    of_type,
    served,
)

DAY_MS = 86_400_000


def test_a_fischer_game_from_the_web_form_played_over_espol_and_the_api_shows_one_bank(
    served, client_of, espol_player  # noqa: F811
):
    eve, frank = espol_player("eve"), espol_player("frank")
    web = Client()
    web.force_login(frank)
    web.post(reverse("challenge_create"), {
        "username": "eve", "days_per_move": "fischer", "colour": "black",
        "fischer_base_days": "30", "fischer_increment_days": "1", "fischer_cap_days": "40",
    })
    made = Challenge.objects.get()
    assert made.fischer == clock.Fischer(30, 1, 40)

    espol = espol_login(served, "eve")
    assert espol.send("ACEP:B:frank").code == 103
    game = Game.objects.get()
    assert (game.white_id, game.black_id) == (eve.pk, frank.pk)
    api = client_of(frank)
    board = Lines(api.board.stream_game_state(game.short_id))
    full = board.next()
    assert full["clock"] == {"initial": 30 * DAY_MS, "increment": DAY_MS}
    moves = ["e2e4", "e7e5", "g1f3", "b8c6"]
    for number, uci in enumerate(moves, start=1):
        if number % 2:
            assert espol.send(jgda(game.public_id, number, uci)).code == 103
        else:
            api.board.make_move(game.short_id, uci)
        last = board.until(moves_are(" ".join(moves[:number])))
    espol.close()

    # Black (the API's player) has just moved: its bank stands still, stored; white's
    # (ESPOL's player) runs. Each got a day twice, less the seconds it spent.
    game.refresh_from_db()
    assert game.black_bank is not None and game.white_bank is not None
    assert dt.timedelta(days=32, minutes=-1) < game.black_bank <= dt.timedelta(days=32)
    # berserk reads lichess's milliseconds as durations.
    assert last["btime"] == dt.timedelta(milliseconds=int(game.black_bank.total_seconds() * 1000))
    assert dt.timedelta(days=32, minutes=-1) < last["wtime"] <= dt.timedelta(days=32)
    assert last["winc"] == last["binc"] == dt.timedelta(days=1)

    # The web page shows the same banks (whole days and hours of them).
    page = web.get(reverse("game_detail", args=[game.pk])).content.decode()
    assert re.search(r'id="bank-black"[^>]*>31d 23h left<', page)
    assert re.search(r'id="bank-white"[^>]*data-deadline="[^"]+"[^>]*>31d 23h left<', page)


def test_a_fischer_challenge_reaches_lichess_clients_as_lichess_s_clock_in_seconds(
    client_of, alice, bob  # noqa: F811
):
    """lichess has no correspondence Fischer clock; its ``clock`` time control (limit and
    increment in seconds) is what a client reads one with, and by lichess's own speed
    rule a clock of days is of correspondence speed. ``show`` is not translated."""
    made = services.challenge(challenger=alice, challenged=bob, fischer=clock.Fischer(30, 1, 40))
    alice_api, bob_api = client_of(alice), client_of(bob)
    expected = {"type": "clock", "limit": 30 * 86_400, "increment": 86_400, "show": "30d+1d"}

    bob_events = Lines(bob_api.board.stream_incoming_events())
    seen = bob_events.until(of_type("challenge"))["challenge"]
    assert (seen["id"], seen["timeControl"], seen["speed"]) == (
        made.short_id, expected, "correspondence"
    )
    assert [c["timeControl"] for c in bob_api.challenges.get_mine()["in"]] == [expected]
    assert [c["timeControl"] for c in alice_api.challenges.get_mine()["out"]] == [expected]

    bob_api.challenges.accept(made.short_id)
    assert bob_events.until(of_type("gameStart"))["game"]["gameId"] == made.short_id
    full = Lines(bob_api.board.stream_game_state(made.short_id)).next()
    assert full["clock"] == {"initial": 30 * DAY_MS, "increment": DAY_MS}
    assert "daysPerTurn" not in full


def test_a_fischer_clock_cannot_be_asked_for_through_the_api(client_of, alice, bob):  # noqa: F811
    """lichess's clock fields would make a real-time game there; here they are refused,
    and nothing is made, whatever numbers they carry."""
    alice_api = client_of(alice)
    for limit, increment in ((2_592_000, 86_400), (0, 0), (-1, 5), (10**12, 1)):
        with pytest.raises(ResponseError) as refused:
            alice_api.challenges.create(
                "bob", rated=False, clock_limit=limit, clock_increment=increment
            )
        assert refused.value.status_code == 400
    assert not Challenge.objects.exists()
