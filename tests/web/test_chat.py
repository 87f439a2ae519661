"""Each game's chat: the players' room and the spectators' room (hidden from the players
while the game runs), stored and escaped, limited in length and rate per player,
moderated from the admin; live over the game's socket."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from asgiref.sync import sync_to_async
from django.urls import reverse

from games import chat, errors, services
from games.models import ChatMessage, ChatMute
from tests.web.test_consumers import cookie_for, open_game, receive_until

JSON = {"HTTP_ACCEPT": "application/json"}


def post(client, game, text, **extra):
    return client.post(reverse("game_chat", args=[game.pk]), {"text": text}, **{**JSON, **extra})


def page(client, game) -> str:
    return client.get(reverse("game_detail", args=[game.pk])).content.decode()


@pytest.mark.django_db
def test_players_write_in_their_room_and_spectators_in_theirs(as_alice, as_carol, game):
    assert post(as_alice, game, "good luck").json()["room"] == "players"
    assert post(as_carol, game, "nice opening").json()["room"] == "spectators"
    assert list(ChatMessage.objects.values_list("room", "text")) == [
        ("players", "good luck"), ("spectators", "nice opening"),
    ]


@pytest.mark.django_db
def test_the_spectators_room_is_hidden_from_the_players_until_the_end(
    as_alice, as_bob, as_carol, game, alice
):
    post(as_alice, game, "good luck")
    post(as_carol, game, "Bb5 wins a piece")
    assert "Bb5 wins a piece" not in page(as_alice, game)
    assert "Bb5 wins a piece" not in page(as_bob, game)
    spectator = page(as_carol, game)
    assert "Bb5 wins a piece" in spectator and "good luck" not in spectator
    services.resign(game_id=game.pk, player=alice)
    assert "Bb5 wins a piece" in page(as_alice, game)


@pytest.mark.django_db
def test_a_message_is_shown_escaped(as_alice, as_bob, game):
    post(as_alice, game, '<script>alert("x")</script><b>hi</b>')
    html = page(as_bob, game)
    assert "<script>alert" not in html and "<b>hi</b>" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;b&gt;hi&lt;/b&gt;" in html
    # Stored as typed: escaping is the page's job.
    assert ChatMessage.objects.get().text == '<script>alert("x")</script><b>hi</b>'


@pytest.mark.django_db
@pytest.mark.parametrize("text", ["", "   ", "x" * 301, "a\x00b", "line\nbreak", "\u202e"])
def test_an_empty_overlong_or_control_message_is_refused(as_alice, game, text):
    response = post(as_alice, game, text)
    assert response.status_code == 400
    assert response.json()["code"] == "chat_message_invalid"
    assert not ChatMessage.objects.exists()


@pytest.mark.django_db
def test_three_hundred_characters_and_unicode_are_fine(as_alice, game):
    assert post(as_alice, game, "ñ♞" * 150).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text",
    [
        "\U0001f468\u200d\U0001f469\u200d\U0001f467",  # family: joined by ZWJ
        "\U0001f3f3\ufe0f\u200d\U0001f308",  # rainbow flag: variation selector and ZWJ
        "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # Scotland
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian with a ZWNJ
    ],
)
def test_emoji_and_scripts_that_need_joiners_can_be_written(as_alice, game, text):
    response = post(as_alice, game, text)
    assert response.status_code == 200, response.json()
    assert ChatMessage.objects.get().text == text


@pytest.mark.django_db
def test_the_rate_is_limited_per_player(as_alice, as_bob, game, settings):
    settings.CHAT_MESSAGES_PER_WINDOW = 3
    settings.CHAT_WINDOW_SECONDS = 10
    with time_machine.travel(dt.datetime(2026, 1, 1, 12, tzinfo=dt.UTC), tick=False) as clock:
        for index in range(3):
            assert post(as_alice, game, f"m{index}").status_code == 200
        refused = post(as_alice, game, "one too many")
        assert refused.status_code == 429
        assert refused.json()["code"] == "chat_rate_limited"
        assert refused["Retry-After"] == "10"
        # Another player's allowance is their own.
        assert post(as_bob, game, "hello").status_code == 200
        clock.shift(11)
        assert post(as_alice, game, "again").status_code == 200
    assert ChatMessage.objects.filter(author__username="alice").count() == 4


@pytest.mark.django_db
def test_a_muted_player_cannot_write(as_alice, game, alice):
    chat.mute(player=alice, by=None)
    response = post(as_alice, game, "hello")
    assert response.status_code == 403 and response.json()["code"] == "chat_muted"
    chat.unmute(player=alice)
    assert post(as_alice, game, "hello").status_code == 200


@pytest.mark.django_db
def test_without_script_the_form_posts_and_comes_back(as_alice, game):
    response = as_alice.post(reverse("game_chat", args=[game.pk]), {"text": "plain form"})
    assert response.status_code == 302 and response["Location"].endswith("#chat")
    refused = as_alice.post(reverse("game_chat", args=[game.pk]), {"text": ""}, follow=True)
    assert "A message has 1 to 300 characters." in refused.content.decode()


@pytest.mark.django_db
def test_chat_needs_a_login_and_a_game(client, as_alice):
    assert client.post(reverse("game_chat", args=[1]), {"text": "x"}).status_code == 302
    assert as_alice.post(reverse("game_chat", args=[999]), {"text": "x"}).status_code == 404
    assert client.get(reverse("game_chat", args=[1])).status_code == 302
    assert as_alice.get(reverse("game_chat", args=[999]), **JSON).status_code == 404
    assert as_alice.delete(reverse("game_chat", args=[1])).status_code == 405


def rooms(client, game) -> dict:
    response = client.get(reverse("game_chat", args=[game.pk]), **JSON)
    assert response.status_code == 200
    return {
        room: [(line["author"], line["text"]) for line in lines]
        for room, lines in response.json()["rooms"].items()
    }


@pytest.mark.django_db
def test_reading_the_chat_gives_the_rooms_the_reader_may_read(
    as_alice, as_carol, game, alice
):
    post(as_alice, game, "good luck")
    post(as_carol, game, "Bb5 wins a piece")
    assert rooms(as_alice, game) == {"players": [("alice", "good luck")]}
    assert rooms(as_carol, game) == {"spectators": [("carol", "Bb5 wins a piece")]}
    # Over: its players read the spectators' room too (the page fetches it then).
    services.resign(game_id=game.pk, player=alice)
    assert rooms(as_alice, game) == {
        "players": [("alice", "good luck")],
        "spectators": [("carol", "Bb5 wins a piece")],
    }


@pytest.mark.django_db
def test_each_line_carries_its_moment_on_the_page_and_in_json(as_alice, as_bob, game):
    with time_machine.travel(dt.datetime(2026, 3, 4, 17, 5, 9, tzinfo=dt.UTC), tick=False):
        line = post(as_alice, game, "good luck").json()
    assert line["at"] == "2026-03-04T17:05:09+00:00"
    moment = '<time class="chat-time text-body-secondary" datetime="2026-03-04T17:05:09+00:00">'
    assert f"{moment}17:05</time>" in page(as_bob, game)


@pytest.mark.django_db
def test_staff_delete_a_message_and_mute_its_author_from_the_admin(
    client, make_player, as_carol, game, carol
):
    post(as_carol, game, "rude words")
    admin = make_player("root", is_staff=True, is_superuser=True)
    client.force_login(admin)
    url = reverse("admin:games_chatmessage_changelist")
    listing = client.get(url)
    assert listing.status_code == 200 and "rude words" in listing.content.decode()
    message = ChatMessage.objects.get()
    client.post(url, {"action": "mute_authors", "_selected_action": [message.pk]})
    assert ChatMute.objects.get().player == carol
    client.post(url, {"action": "delete_messages", "_selected_action": [message.pk]})
    assert not ChatMessage.objects.exists()
    assert post(as_carol, game, "again").json()["code"] == "chat_muted"
    mutes = reverse("admin:games_chatmute_changelist")
    client.post(mutes, {"action": "unmute", "_selected_action": [carol.pk]})
    assert not ChatMute.objects.exists()


@pytest.mark.django_db
def test_the_admin_cannot_edit_a_message(client, make_player, as_carol, game):
    post(as_carol, game, "as typed")
    admin = make_player("root", is_staff=True, is_superuser=True)
    client.force_login(admin)
    message = ChatMessage.objects.get()
    url = reverse("admin:games_chatmessage_change", args=[message.pk])
    client.post(url, {"text": "edited", "room": "players"})
    assert ChatMessage.objects.get().text == "as typed"


@pytest.mark.django_db(transaction=True)
async def test_messages_reach_only_the_pages_of_their_room(alice, bob, carol, game):
    white, _ = await open_game(game.pk, await sync_to_async(cookie_for)(alice))
    watcher, _ = await open_game(game.pk, await sync_to_async(cookie_for)(carol))
    await sync_to_async(chat.post_message)(game_id=game.pk, author=bob, text="<i>hi</i>")
    frame = await receive_until(white, "chat")
    assert (frame["room"], frame["author"], frame["text"]) == ("players", "bob", "<i>hi</i>")
    await sync_to_async(chat.post_message)(game_id=game.pk, author=carol, text="psst")
    frame = await receive_until(watcher, "chat")
    assert (frame["room"], frame["text"]) == ("spectators", "psst")
    # The player's page never received the spectators' line.
    while not await white.receive_nothing(timeout=0.2):
        assert (await white.receive_json_from())["type"] != "chat"
    message_id = frame["id"]
    await sync_to_async(chat.delete_message)(message_id=message_id)
    deleted = await receive_until(watcher, "chat_deleted")
    assert deleted == {"type": "chat_deleted", "id": message_id}
    # Nor does it hear of the deletion: while the game runs, not even the ids reach it.
    while not await white.receive_nothing(timeout=0.2):
        assert (await white.receive_json_from())["type"] != "chat_deleted"
    await white.disconnect()
    await watcher.disconnect()


@pytest.mark.django_db
def test_a_player_cannot_post_in_the_spectators_room_by_any_field(as_alice, game):
    response = as_alice.post(
        reverse("game_chat", args=[game.pk]), {"text": "x", "room": "spectators"}, **JSON
    )
    assert response.json()["room"] == "players"


def test_the_chat_errors_are_domain_errors():
    assert errors.ChatRateLimited(retry_after=3).as_dict()["retry_after"] == 3
