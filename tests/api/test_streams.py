"""The API's ndjson streams, read in this process through Django's ASGI handler: what
they say when they open, what each event adds, the keep-alive, who ends them, and that
a stream the client closes gives back everything it held."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections import Counter

import pytest
import time_machine
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.utils import timezone

from accounts import tokens
from accounts.services import revoke_access
from games import chat, services
from games.api import streams
from games.models import Game
from tests.api.streaming import Stream

pytestmark = pytest.mark.django_db(transaction=True)


def token_for(player, *scopes: str) -> str:
    return tokens.create_token(player=player, description="t", scopes=scopes or tokens.SCOPES)[1]


def run(function, *args, **kwargs):
    """A service or read, from the test's event loop (in a thread, as the views do)."""
    return database_sync_to_async(function)(*args, **kwargs)


async def started_game(white, black, **options) -> Game:
    made = await run(services.challenge, challenger=white, challenged=black, **options)
    return await run(services.accept_challenge, challenge_id=made.pk, player=black, colour="black")


@pytest.fixture
def quick_keepalive(settings):
    settings.API_STREAM_KEEPALIVE_SECONDS = 0.05


# --------------------------------------------------------------------------- events


async def test_the_event_stream_opens_with_the_pending_challenges_and_games(
    alice, bob, carol, make_player
):
    dave = await run(make_player, "dave")
    await run(services.challenge, challenger=bob, challenged=alice)
    await run(services.challenge, challenger=alice, challenged=carol, colour="white")
    game = await started_game(alice, dave)
    stream = await Stream("/api/stream/event", await run(token_for, alice)).open()

    lines = [await stream.line() for _ in range(3)]

    assert stream.status == 200
    assert stream.headers[b"Content-Type"] == b"application/x-ndjson"
    received, made, start = lines
    assert received["type"] == "challenge" and received["challenge"]["direction"] == "in"
    assert received["challenge"]["challenger"]["id"] == "bob"
    assert made["challenge"]["direction"] == "out" and made["challenge"]["finalColor"] == "white"
    assert start["type"] == "gameStart"
    assert start["game"]["gameId"] == game.short_id and start["game"]["color"] == "white"
    assert start["game"]["opponent"]["username"] == "dave"
    await stream.close()


async def test_the_event_stream_tells_each_challenge_and_game_as_it_happens(alice, bob):
    stream = await Stream("/api/stream/event", await run(token_for, bob)).open()
    await asyncio.sleep(0)  # the stream has joined its groups once its body starts

    made = await run(services.challenge, challenger=alice, challenged=bob, days_per_move=3)
    challenge = await stream.line()
    game = await run(services.accept_challenge, challenge_id=made.pk, player=bob, colour="white")
    start = await stream.line()
    await run(services.resign, game_id=game.pk, player=alice)
    finish = await stream.line()

    assert challenge["type"] == "challenge" and challenge["challenge"]["id"] == made.short_id
    assert challenge["challenge"]["timeControl"] == {"type": "correspondence", "daysPerTurn": 3}
    assert start["type"] == "gameStart" and start["game"]["id"] == made.short_id
    assert start["game"]["isMyTurn"] is True
    assert finish["type"] == "gameFinish"
    assert finish["game"]["status"] == {"id": 31, "name": "resign"}
    assert finish["game"]["winner"] == "white"
    await stream.close()


async def test_the_challenger_hears_of_a_decline_with_its_reason(alice, bob):
    stream = await Stream("/api/stream/event", await run(token_for, alice)).open()
    made = await run(services.challenge, challenger=alice, challenged=bob)
    assert (await stream.line())["type"] == "challenge"

    await run(services.decline_challenge, challenge_id=made.pk, player=bob, reason="later")
    declined = await stream.line()

    assert declined["type"] == "challengeDeclined"
    assert declined["challenge"]["declineReasonKey"] == "later"
    assert "later" in declined["challenge"]["declineReason"]
    await stream.close()


async def test_the_challenged_player_hears_of_a_withdrawn_challenge(alice, bob):
    stream = await Stream("/api/stream/event", await run(token_for, bob)).open()
    made = await run(services.challenge, challenger=alice, challenged=bob)
    assert (await stream.line())["type"] == "challenge"

    await run(services.withdraw_challenge, challenge_id=made.pk, player=alice)

    canceled = await stream.line()
    assert canceled["type"] == "challengeCanceled"
    assert canceled["challenge"]["status"] == "canceled"
    await stream.close()


async def test_an_empty_line_keeps_a_quiet_stream_alive(alice, quick_keepalive):
    stream = await Stream("/api/stream/event", await run(token_for, alice)).open()

    assert await stream.raw_line() == b""
    assert await stream.raw_line() == b""
    await stream.close()


async def test_a_quiet_stream_says_something_at_once(alice, settings):
    # Its first bytes carry its headers to the client (Daphne), long before a keep-alive.
    settings.API_STREAM_KEEPALIVE_SECONDS = 3600
    stream = await Stream("/api/stream/event", await run(token_for, alice)).open()

    assert await stream.raw_line(timeout=10) == b""
    await stream.close()


async def test_a_stream_ends_when_its_token_is_revoked(alice, quick_keepalive):
    text = await run(token_for, alice)
    stream = await Stream("/api/stream/event", text).open()
    assert await stream.raw_line() == b""
    use = await run(tokens.use_token, text)

    await run(tokens.revoke_token, player=alice, token_id=use.token_id)

    assert await stream.closed_by_server()


async def test_a_revoked_token_ends_its_own_streams_only(alice, bob, quick_keepalive):
    # The keep-alives of a process's streams check all their tokens in one query.
    kept, revoked = await run(token_for, alice), await run(token_for, bob)
    streams = [await Stream("/api/stream/event", text).open()
               for text in (kept, revoked) for _ in range(5)]
    for stream in streams:
        assert await stream.raw_line() == b""
    use = await run(tokens.use_token, revoked)

    await run(tokens.revoke_token, player=bob, token_id=use.token_id)

    for stream in streams[5:]:
        assert await stream.closed_by_server()
    for stream in streams[:5]:
        assert await stream.raw_line() == b""  # still kept alive
        assert not stream.ended
        await stream.close()


async def test_the_token_checks_answer_from_one_read_until_the_next_keep_alive(
    alice, bob, settings, monkeypatch
):
    settings.API_STREAM_KEEPALIVE_SECONDS = 3600
    ids = [(await run(tokens.create_token, player=player, description="t", scopes=[]))[0].pk
           for player in (alice, bob)]
    # Streams of both tokens open in this process, as the streams themselves count them.
    monkeypatch.setattr(streams, "open_streams", Counter({ids[0]: 3, ids[1]: 2}))
    checks = streams.TokenChecks()
    assert await asyncio.gather(*(checks.still_valid(i) for i in [*ids, *ids])) == [True] * 4
    read_at = checks.checked_at

    await run(tokens.revoke_token, player=bob, token_id=ids[1])

    assert await checks.still_valid(ids[1]) is True  # the last read, until a keep-alive
    assert checks.checked_at == read_at
    checks.checked_at -= 3600  # a keep-alive later
    assert await checks.still_valid(ids[1]) is False
    assert await checks.still_valid(ids[0]) is True


async def test_a_stream_ends_when_the_account_closes(alice, bob):
    stream = await Stream("/api/stream/event", await run(token_for, alice)).open()
    await asyncio.sleep(0)

    await run(revoke_access, player=alice)

    assert await stream.closed_by_server()


@pytest.mark.parametrize(
    "token_scopes, status", [(None, 401), (("email:read",), 403), (("board:play",), 200)]
)
async def test_the_event_stream_needs_a_token_with_a_playing_scope(alice, token_scopes, status):
    text = None if token_scopes is None else await run(token_for, alice, *token_scopes)

    stream = await Stream("/api/stream/event", text).open()

    assert stream.status == status
    if status != 200:
        assert b"error" in await stream.body()
    else:
        await stream.close()


async def test_a_token_holds_a_bounded_number_of_streams(alice, settings):
    settings.API_STREAMS_PER_TOKEN = 2
    text = await run(token_for, alice)
    first = await Stream("/api/stream/event", text).open()
    second = await Stream("/api/stream/event", text).open()
    await asyncio.sleep(0.05)

    third = await Stream("/api/stream/event", text).open()

    assert (first.status, second.status, third.status) == (200, 200, 429)
    await first.close()
    fourth = await Stream("/api/stream/event", text).open()
    assert fourth.status == 200
    await second.close()
    await fourth.close()


# --------------------------------------------------------------------------- games


async def test_a_game_stream_sends_the_game_then_each_change_then_closes(alice, bob):
    game = await started_game(alice, bob, days_per_move=2)
    text = await run(token_for, bob)
    stream = await Stream(f"/api/board/game/stream/{game.short_id}", text).open()

    full = await stream.line()
    await run(services.make_move, game_id=game.pk, player=alice, move_number=1, move="e2e4")
    moved = await stream.line()
    await run(chat.post_message, game_id=game.pk, author=alice, text="¡suerte! ♞")
    said = await stream.line()
    await run(services.offer_draw, game_id=game.pk, player=alice)
    offered = await stream.line()
    await run(services.answer_draw, game_id=game.pk, player=bob, accept=True)
    drawn = await stream.line()

    assert full["type"] == "gameFull" and full["id"] == game.short_id
    assert full["white"]["name"] == "alice" and full["black"]["id"] == "bob"
    assert full["daysPerTurn"] == 2 and full["initialFen"] == "startpos"
    assert full["state"]["moves"] == "" and full["state"]["status"] == "started"
    assert full["state"]["wtime"] <= 2 * 86_400_000
    assert moved == {**moved, "type": "gameState", "moves": "e2e4", "status": "started"}
    assert said == {"type": "chatLine", "room": "player", "username": "alice", "text": "¡suerte! ♞"}
    assert offered["wdraw"] is True and "bdraw" not in offered
    assert drawn["status"] == "draw" and "winner" not in drawn
    assert await stream.closed_by_server()


async def test_a_finished_game_s_stream_gives_its_game_and_closes(alice, bob, play):
    game = await started_game(alice, bob)
    await run(play, game, "f2f3", "e7e5", "g2g4", "d8h4")
    text = await run(token_for, alice)
    stream = await Stream(f"/api/board/game/stream/{game.short_id}", text).open()

    full = await stream.line()

    assert full["state"]["moves"] == "f2f3 e7e5 g2g4 d8h4"
    assert full["state"]["status"] == "mate" and full["state"]["winner"] == "black"
    assert await stream.closed_by_server()


async def test_the_opponent_is_gone_when_their_time_has_run_out(alice, bob, quick_keepalive):
    game = await started_game(alice, bob, days_per_move=1)
    await run(services.make_move, game_id=game.pk, player=alice, move_number=1, move="e2e4")
    await run(services.make_move, game_id=game.pk, player=bob, move_number=2, move="e7e5")
    # Set-up: alice's last minute. A travel of minutes, not of the day a move has: the
    # channel layer forgets group memberships a day old.
    soon = timezone.now() + dt.timedelta(minutes=1)
    await run(lambda: Game.objects.filter(pk=game.pk).update(deadline=soon))
    stream = Stream(f"/api/board/game/stream/{game.short_id}", await run(token_for, bob))
    await stream.open()
    await stream.line()

    with time_machine.travel(soon + dt.timedelta(seconds=1)):
        gone = await stream.line()
        await run(services.claim_victory, game_id=game.pk, player=bob)
        ended = await stream.line()

    assert gone == {"type": "opponentGone", "gone": True, "claimWinInSeconds": 0}
    assert ended["status"] == "outoftime" and ended["winner"] == "black"
    assert await stream.closed_by_server()


@pytest.mark.parametrize("game_id", ["zzzzzzzz", "P9999999", "nonsense-id", "99999"])
async def test_a_stream_of_an_unknown_game_is_404(alice, game_id):
    stream = await Stream(f"/api/board/game/stream/{game_id}", await run(token_for, alice)).open()

    assert stream.status == 404
    assert b"error" in await stream.body()


async def test_a_stream_of_someone_else_s_game_is_refused(alice, bob, carol):
    game = await started_game(alice, bob)
    text = await run(token_for, carol)

    stream = await Stream(f"/api/board/game/stream/{game.short_id}", text).open()

    assert stream.status == 404


async def test_the_bot_stream_is_a_bot_s_and_the_board_stream_is_not(alice, bob, make_player):
    game = await started_game(alice, bob)
    as_alice = await run(token_for, alice)
    refused = await Stream(f"/api/bot/game/stream/{game.short_id}", as_alice).open()
    assert refused.status == 400
    assert b"Bot account" in await refused.body()

    robot = await run(make_player, "robot")
    await run(services.upgrade_to_bot, player=robot)
    opponent_game = await started_game(robot, carol := await run(make_player, "carol2"))
    as_robot = await run(token_for, robot)
    board = await Stream(f"/api/board/game/stream/{opponent_game.short_id}", as_robot).open()
    bot = await Stream(f"/api/bot/game/stream/{opponent_game.short_id}", as_robot).open()

    assert board.status == 400
    assert bot.status == 200
    assert (await bot.line())["white"]["title"] == "BOT"
    assert carol.username == "carol2"
    await bot.close()


# --------------------------------------------------------------------------- resources


def _memberships(layer: InMemoryChannelLayer) -> int:
    """The group memberships of API streams' channels (the layer is the process's, and
    other tests' sockets may have left theirs)."""
    return sum(
        1
        for channels in layer.groups.values()
        for channel in channels
        if channel.startswith("api-stream.")
    )


def _channels(layer: InMemoryChannelLayer) -> int:
    return sum(1 for channel in layer.channels if channel.startswith("api-stream."))


async def test_streams_closed_by_their_clients_give_back_everything_they_held(alice, bob):
    layer = get_channel_layer()
    if not isinstance(layer, InMemoryChannelLayer):
        pytest.skip("counts the in-memory layer's own tables")
    game = await started_game(alice, bob)
    text = await run(token_for, alice)
    await asyncio.sleep(0.1)
    tasks_before = len(asyncio.all_tasks())
    groups_before, channels_before = _memberships(layer), _channels(layer)

    for cycle in range(200):
        path = (
            "/api/stream/event",
            f"/api/board/game/stream/{game.short_id}",
            f"/api/stream/game/{game.short_id}",
        )[cycle % 3]
        stream = await Stream(path, text).open()
        assert stream.status == 200
        await stream.line()
        assert _memberships(layer) == groups_before + 2
        await stream.close()

    await asyncio.sleep(0.1)
    assert _memberships(layer) == groups_before
    assert _channels(layer) == channels_before
    assert len(asyncio.all_tasks()) == tasks_before
    assert not streams.open_streams


async def test_a_stream_whose_channel_layer_fails_ends(alice, quick_keepalive, monkeypatch):
    layer = get_channel_layer()

    async def down(channel):
        raise ConnectionError("the layer is down")

    monkeypatch.setattr(layer, "receive", down)

    stream = await Stream("/api/stream/event", await run(token_for, alice)).open()

    assert stream.status == 200
    assert await stream.closed_by_server()
    assert not streams.open_streams
