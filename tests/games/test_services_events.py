"""Events reach the channel layer only after the write commits, never after a rollback.

These tests commit for real (``transactional_db``) and listen on the configured channel
layer: the in-memory one by default, Redis when ``REDIS_URL`` is set.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels import DEFAULT_CHANNEL_LAYER
from channels.layers import (
    BaseChannelLayer,
    InMemoryChannelLayer,
    channel_layers,
    get_channel_layer,
)
from django.db import transaction

from ajedrez.core.events import send_to_groups
from games import errors, services
from games.events import LOBBY_GROUP, game_group, game_players_group, player_group

pytestmark = pytest.mark.django_db(transaction=True)


class Listener:
    """A channel subscribed to some groups, read with a timeout."""

    def __init__(self, layer: BaseChannelLayer, loop: asyncio.AbstractEventLoop, *groups: str):
        self.layer, self.loop = layer, loop
        self.channel = loop.run_until_complete(layer.new_channel())
        for group in groups:
            loop.run_until_complete(layer.group_add(group, self.channel))

    def receive(self, timeout: float = 2.0) -> dict[str, Any]:
        return self.loop.run_until_complete(self._receive(timeout))

    async def _receive(self, timeout: float) -> dict[str, Any]:
        """The next message, or TimeoutError after ``timeout``. Never by cancelling a
        receive: channels-redis's receive, cancelled in the middle of its blocking pop,
        once never returned under a loaded parallel run. A message of our own marks the
        timeout instead, and one left from an earlier timeout is skipped."""
        token = uuid.uuid4().hex
        loop = asyncio.get_running_loop()
        marker = {"type": "test.timeout", "token": token}
        sending: list[asyncio.Future] = []
        timer = loop.call_later(
            timeout,
            lambda: sending.append(asyncio.ensure_future(self.layer.send(self.channel, marker))),
        )
        try:
            while True:
                message = await self.layer.receive(self.channel)
                if message.get("type") != "test.timeout":
                    return message
                if message["token"] == token:
                    raise TimeoutError
        finally:
            timer.cancel()
            if sending:
                await sending[0]

    def assert_silent(self, timeout: float = 0.3) -> None:
        with pytest.raises(asyncio.TimeoutError):
            self.receive(timeout)


@pytest.fixture
def listen() -> Iterator[Callable[..., Listener]]:
    """Subscribe channels to groups; all of a test's channels share one loop and layer.

    channels-redis binds a layer's receive buffers to the loop that first reads them, so
    the listening side gets its own layer instance and loop; the in-memory layer must be
    the very instance the services publish to.
    """
    layer = get_channel_layer()
    if not isinstance(layer, InMemoryChannelLayer):
        layer = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)
    loop = asyncio.new_event_loop()
    yield lambda *groups: Listener(layer, loop, *groups)
    loop.close()


def test_move_is_published_to_the_game_group_after_commit(listen, game, alice):
    listener = listen(game_group(game.pk))
    services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    message = listener.receive()
    assert message["type"] == "game.event"
    assert message["event"] == "move"
    assert message["move"]["uci"] == "e2e4"
    assert message["move"]["number"] == 1
    assert message["game"]["next_move_number"] == 2
    assert message["version"] == message["game"]["version"] == game.version + 1


def test_move_is_published_to_both_players(listen, game, alice):
    white_page = listen(player_group(game.white_id))
    black_page = listen(player_group(game.black_id))
    services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    assert white_page.receive()["event"] == "move"
    assert black_page.receive()["event"] == "move"


def test_nothing_is_published_before_the_transaction_commits(listen, game, alice):
    listener = listen(game_group(game.pk))
    with transaction.atomic():
        services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
        listener.assert_silent()
    assert listener.receive()["event"] == "move"


def test_nothing_is_published_when_the_transaction_rolls_back(listen, game, alice):
    listener = listen(game_group(game.pk))

    class Abort(Exception):
        pass

    with pytest.raises(Abort), transaction.atomic():
        services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
        raise Abort
    listener.assert_silent()
    game.refresh_from_db()
    assert game.next_move_number == 1


def test_refused_move_publishes_nothing(listen, game, bob):
    listener = listen(game_group(game.pk))
    with pytest.raises(errors.NotYourTurn):
        services.make_move(game_id=game.pk, player=bob, move_number=1, move="e5")
    listener.assert_silent()


def test_versions_increase_with_every_event(listen, game, alice, bob):
    listener = listen(game_group(game.pk))
    services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    services.offer_draw(game_id=game.pk, player=alice)
    services.answer_draw(game_id=game.pk, player=bob, accept=False)
    services.resign(game_id=game.pk, player=bob)
    events = [listener.receive() for _ in range(4)]
    assert [e["event"] for e in events] == ["move", "draw_offered", "draw_declined", "resigned"]
    versions = [e["version"] for e in events]
    assert versions == list(range(versions[0], versions[0] + 4))
    assert events[-1]["game"]["result"] == "1-0"


def test_challenge_is_published_to_both_players(listen, alice, bob):
    challenged_page = listen(player_group(bob.pk))
    challenger_page = listen(player_group(alice.pk))
    made = services.challenge(challenger=alice, challenged=bob)
    for listener in (challenged_page, challenger_page):
        message = listener.receive()
        assert message["type"] == "challenge.event"
        assert message["event"] == "challenge_created"
        assert message["challenge"]["id"] == made.pk


def test_accepting_publishes_the_new_game(listen, alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    listener = listen(player_group(alice.pk))
    game = services.accept_challenge(challenge_id=made.pk, player=bob, colour="white")
    events = {m["event"]: m for m in (listener.receive(), listener.receive())}
    assert events["challenge_accepted"]["challenge"]["game_id"] == game.pk
    assert events["game_started"]["game"]["white"] == "bob"


def test_a_channel_layer_failure_does_not_undo_the_move_or_silence_other_groups(
    listen, game, alice, monkeypatch
):
    real_layer = get_channel_layer()

    class FailingForPlayers:
        async def group_send(self, group: str, message: dict[str, Any]) -> None:
            if group.startswith("player-"):
                raise ConnectionError("channel layer down")
            await real_layer.group_send(group, message)

    listener = listen(game_group(game.pk))
    monkeypatch.setattr("ajedrez.core.events.get_channel_layer", lambda: FailingForPlayers())
    services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    monkeypatch.undo()
    game.refresh_from_db()
    assert game.next_move_number == 2
    assert listener.receive()["event"] == "move"


def test_a_bug_building_an_event_after_commit_is_logged_and_the_move_stands(
    listen, game, alice, monkeypatch, caplog
):
    # The message is built after the commit: a failure there cannot undo the move, so it
    # must not reach the caller either, who would be told that nothing changed.
    def broken(*args, **kwargs):
        raise TypeError("a bug in the read model")

    players = listen(game_players_group(game.pk))
    monkeypatch.setattr("games.state.event_message", broken)
    with caplog.at_level("ERROR", logger="ajedrez.core.events"):
        moved = services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    assert moved.next_move_number == 2
    game.refresh_from_db()
    assert game.next_move_number == 2
    logged = [r for r in caplog.records if r.name == "ajedrez.core.events"]
    assert len(logged) == 1 and logged[0].exc_info[0] is TypeError
    players.assert_silent()
    # The next event is built and sent as usual.
    monkeypatch.undo()
    services.offer_draw(game_id=game.pk, player=alice)
    assert players.receive()["event"] == "draw_offered"


def test_an_event_goes_to_the_players_groups_before_the_watchers_group(
    listen, game, alice, monkeypatch
):
    real_layer = get_channel_layer()
    sent_to: list[str] = []

    class Noting:
        async def group_send(self, group: str, message: dict[str, Any]) -> None:
            # The opponent's unread count follows the event; only the event's order counts.
            if message["type"] != "notifications.count":
                sent_to.append(group)
            await real_layer.group_send(group, message)

    watchers, players = listen(game_group(game.pk)), listen(game_players_group(game.pk))
    monkeypatch.setattr("ajedrez.core.events.get_channel_layer", lambda: Noting())
    services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    monkeypatch.undo()
    assert sent_to == [
        game_players_group(game.pk),
        player_group(game.white_id),
        player_group(game.black_id),
        game_group(game.pk),
        LOBBY_GROUP,
    ]
    assert players.receive()["version"] == watchers.receive()["version"] == game.version + 1


# Each service that changes a game, with what must already have happened: the event it
# publishes must reach the game's group and both players' groups, and only on commit.
GAME_ACTIONS = {
    "draw_offered": ([], lambda g, w, b: services.offer_draw(game_id=g.pk, player=w)),
    "draw_accepted": (
        ["offer"],
        lambda g, w, b: services.answer_draw(game_id=g.pk, player=b, accept=True),
    ),
    "draw_declined": (
        ["offer"],
        lambda g, w, b: services.answer_draw(game_id=g.pk, player=b, accept=False),
    ),
    "resigned": ([], lambda g, w, b: services.resign(game_id=g.pk, player=b)),
    "draw_claimed": (
        ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"],
        lambda g, w, b: services.claim_draw(game_id=g.pk, player=w),
    ),
    "abandoned": (["e4", "e5"], lambda g, w, b: services.abandon_games(player=b)),
    "aborted": ([], lambda g, w, b: services.abandon_games(player=b)),
}


@pytest.mark.parametrize("event", GAME_ACTIONS)
def test_every_game_change_reaches_the_game_and_both_players_on_commit(
    listen, game, alice, bob, play, event
):
    before, action = GAME_ACTIONS[event]
    moves = [m for m in before if m != "offer"]
    if moves:
        play(game, *moves)
    if "offer" in before:
        services.offer_draw(game_id=game.pk, player=alice)
    listeners = [
        listen(game_group(game.pk)),
        listen(player_group(alice.pk)),
        listen(player_group(bob.pk)),
    ]
    with transaction.atomic():
        action(game, alice, bob)
        for listener in listeners:
            listener.assert_silent(0.1)
    for listener in listeners:
        message = listener.receive()
        assert (message["type"], message["event"]) == ("game.event", event)
        assert message["game"]["id"] == game.pk


def test_a_vacation_is_an_event_of_every_game_of_the_player_saying_who_is_away(
    listen, alice, bob, carol, start_game, play
):
    # One game where alice is to move on a clock (it stops), one where it is carol's
    # turn, without a clock (nothing stops, but its pages show alice away).
    made = services.challenge(challenger=bob, challenged=alice, days_per_move=3)
    timed = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
    untimed = play(start_game(alice, carol), "e4")
    timed_page, untimed_page = listen(game_group(timed.pk)), listen(game_group(untimed.pk))

    services.start_vacation(player=alice)
    paused, shown = timed_page.receive(), untimed_page.receive()
    assert (paused["event"], shown["event"]) == ("clock_paused", "vacation_started")
    assert paused["away"] == shown["away"] == {"white": True, "black": False}
    assert shown["version"] == untimed.version + 1

    services.end_vacation(player=alice)
    resumed, shown = timed_page.receive(), untimed_page.receive()
    assert (resumed["event"], shown["event"]) == ("clock_resumed", "vacation_ended")
    assert resumed["away"] == shown["away"] == {"white": False, "black": False}
    assert shown["version"] == untimed.version + 2


CHALLENGE_ACTIONS = {
    "challenge_created": lambda made, a, b: services.challenge(challenger=a, challenged=b),
    "challenge_withdrawn": lambda made, a, b: services.withdraw_challenge(
        challenge_id=made().pk, player=a
    ),
    "challenge_declined": lambda made, a, b: services.decline_challenge(
        challenge_id=made().pk, player=b
    ),
    "challenge_accepted": lambda made, a, b: services.accept_challenge(
        challenge_id=made().pk, player=b, colour="black"
    ),
}


@pytest.mark.parametrize("event", CHALLENGE_ACTIONS)
def test_every_challenge_change_reaches_both_players_on_commit(listen, alice, bob, event):
    pending: list = []

    def made():
        return pending[0]

    if event != "challenge_created":
        pending.append(services.challenge(challenger=alice, challenged=bob))
    listeners = [listen(player_group(alice.pk)), listen(player_group(bob.pk))]
    with transaction.atomic():
        CHALLENGE_ACTIONS[event](made, alice, bob)
        for listener in listeners:
            listener.assert_silent(0.1)
    for listener in listeners:
        received = [listener.receive()]
        if event == "challenge_accepted":
            received.append(listener.receive())  # and the game that starts
        message = next(m for m in received if m["type"] == "challenge.event")
        assert message["event"] == event


def test_a_refused_challenge_answer_publishes_nothing(listen, alice, bob, carol):
    made = services.challenge(challenger=alice, challenged=bob)
    listeners = [listen(player_group(p.pk)) for p in (alice, bob, carol)]
    with pytest.raises(errors.ChallengeNotFound):
        services.decline_challenge(challenge_id=made.pk, player=carol)
    for listener in listeners:
        listener.assert_silent()


async def test_on_a_servers_loop_the_caller_does_not_wait_out_the_watchers_head_start(
    monkeypatch,
):
    # Under Daphne, database work runs on one thread: had the mover's thread slept out the
    # head start, every other request would have waited with it.
    monkeypatch.setattr("ajedrez.core.events.HEAD_START_SECONDS", 3600)
    sent: list[str] = []

    class Recording:
        async def group_send(self, group: str, message: dict[str, Any]) -> None:
            sent.append(group)

    monkeypatch.setattr("ajedrez.core.events.get_channel_layer", lambda: Recording())
    call = sync_to_async(send_to_groups)(["players"], {"type": "x"}, then=["watchers"])
    await asyncio.wait_for(call, timeout=10)
    # Back at once: the players have theirs in a moment; the watchers' waits on the loop
    # for its hour.
    await until(lambda: sent)
    assert sent == ["players"]


async def until(condition: Callable[[], object], patience: float = 10.0) -> None:
    """Let the loop run until ``condition()`` holds (at most ``patience`` seconds)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patience
    while not condition():
        assert loop.time() < deadline, "the loop never got there"
        await asyncio.sleep(0.005)


async def test_on_a_servers_loop_each_group_gets_the_messages_in_the_order_handed(
    monkeypatch,
):
    # A move and the conditional reply that follows it are two messages handed one after
    # the other; on Redis each send is a round trip, and a slow one must not let the next
    # overtake it, for the players or for the watchers.
    sent: list[tuple[str, int]] = []

    class Slow:
        async def group_send(self, group: str, message: dict[str, Any]) -> None:
            if message["n"] == 1:
                await asyncio.sleep(0.05)
            sent.append((group, message["n"]))

    monkeypatch.setattr("ajedrez.core.events.get_channel_layer", lambda: Slow())

    def hand_both() -> None:
        for n in (1, 2):
            send_to_groups(["players"], {"type": "x", "n": n}, then=["watchers"])

    await asyncio.wait_for(sync_to_async(hand_both)(), timeout=10)
    await until(lambda: len(sent) == 4)
    assert [n for group, n in sent if group == "players"] == [1, 2]
    assert [n for group, n in sent if group == "watchers"] == [1, 2]


async def test_a_servers_senders_end_when_cancelled_even_if_a_send_swallows_it(monkeypatch):
    # redis-py can catch the CancelledError meant for the task awaiting it: a sender that
    # went back to waiting for messages kept a closing loop waiting for it for ever.
    from ajedrez.core import events

    started = asyncio.Event()

    class Swallowing:
        async def group_send(self, group: str, message: dict[str, Any]) -> None:
            started.set()
            with contextlib.suppress(asyncio.CancelledError):  # as the library did
                await asyncio.sleep(3600)

    monkeypatch.setattr("ajedrez.core.events.get_channel_layer", lambda: Swallowing())
    await sync_to_async(send_to_groups)(["players"], {"type": "x"}, then=["watchers"])
    await asyncio.wait_for(started.wait(), timeout=10)
    _queue, senders = events._queues[asyncio.get_running_loop()]
    for sender in senders:
        sender.cancel()
    done, pending = await asyncio.wait(senders, timeout=10)
    assert not pending
    assert all(sender.cancelled() for sender in done)
