"""HEAD is GET without the body (RFC 9110): link checkers and uptime probes use it. The
two pages whose GET marks notifications read answer it with 405."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games import services

pytestmark = pytest.mark.django_db


@pytest.fixture
def pages(alice, bob, start_game, play):
    game = play(start_game(alice, bob), "e4")
    services.resign(game_id=play(game, "e5").pk, player=bob)
    return {
        "dashboard": reverse("dashboard"),
        "list": reverse("game_list", args=["finished"]),
        "live": reverse("live_games"),
        "players": reverse("players"),
        "player": reverse("player_detail", args=["bob"]),
        "archive": reverse("player_archive", args=["bob"]),
        "archive pgn": reverse("player_archive_pgn", args=["bob"]),
        "ranking": reverse("ranking"),
        "notifications": reverse("notification_list"),
        "awaiting": reverse("awaiting"),
        "state": reverse("game_state", args=[game.pk]),
        "pgn": reverse("game_pgn", args=[game.pk]),
    }


def test_every_read_only_page_answers_head_as_get_without_the_body(as_alice, pages):
    for name, url in pages.items():
        got = as_alice.get(url)
        head = as_alice.head(url)
        assert got.status_code == 200, name
        assert head.status_code == 200, name
        assert head["Content-Type"] == got["Content-Type"], name
        assert head.content == b"", name


def test_head_does_not_mark_anything_read(as_bob, bob, alice, start_game, play):
    game = play(start_game(alice, bob), "e4")
    note = bob.notifications.get(kind="opponent_moved")
    marking = [reverse("game_detail", args=[game.pk]), reverse("notification_open", args=[note.pk])]
    for url in marking:
        assert as_bob.head(url).status_code == 405
    note.refresh_from_db()
    assert note.read_at is None
