"""The embedded default channel layer: channels' in-memory layer whose expiry sweep runs
at most once per interval instead of on every delivery (``ajedrez/channel_layers.py``).

Delivery must be what channels' layer does, and expiry must still happen: a message past
its expiry is never delivered and its unread channel leaves its groups; a membership
past ``group_expiry`` ends.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
import time_machine

from ajedrez.channel_layers import LazyExpiryInMemoryChannelLayer

NO_SWEEP = 3600.0  # an interval no test reaches: only the checks on receipt run


async def receive(layer: LazyExpiryInMemoryChannelLayer, channel: str, timeout: float = 1.0):
    return await asyncio.wait_for(layer.receive(channel), timeout)


async def assert_nothing_for(
    layer: LazyExpiryInMemoryChannelLayer, channel: str, timeout: float = 0.2
) -> None:
    with pytest.raises(TimeoutError):
        await receive(layer, channel, timeout)


async def channels_in(layer: LazyExpiryInMemoryChannelLayer, group: str, count: int) -> list[str]:
    names = [await layer.new_channel() for _ in range(count)]
    for name in names:
        await layer.group_add(group, name)
    return names


# --------------------------------------------------------------------------- delivery


async def test_a_group_message_reaches_every_member_in_order():
    layer = LazyExpiryInMemoryChannelLayer()
    members = await channels_in(layer, "game-1", 3)
    await layer.group_send("game-1", {"type": "game.event", "version": 1})
    await layer.group_send("game-1", {"type": "game.event", "version": 2})
    for member in members:
        assert (await receive(layer, member))["version"] == 1
        assert (await receive(layer, member))["version"] == 2


async def test_a_waiting_receiver_gets_a_group_message_sent_later():
    layer = LazyExpiryInMemoryChannelLayer()
    (member,) = await channels_in(layer, "game-1", 1)
    waiting = asyncio.create_task(receive(layer, member))
    await asyncio.sleep(0)
    await layer.group_send("game-1", {"type": "game.event", "version": 7})
    assert (await waiting)["version"] == 7


async def test_a_group_message_is_a_copy_of_what_the_sender_passed():
    layer = LazyExpiryInMemoryChannelLayer()
    members = await channels_in(layer, "game-1", 2)
    message: dict[str, Any] = {"type": "game.event", "game": {"fen": "start"}}
    await layer.group_send("game-1", message)
    message["game"]["fen"] = "changed by the sender afterwards"
    for member in members:
        assert (await receive(layer, member))["game"] == {"fen": "start"}


async def test_a_direct_send_reaches_its_channel_only():
    layer = LazyExpiryInMemoryChannelLayer()
    one, other = await layer.new_channel(), await layer.new_channel()
    await layer.send(one, {"type": "hello"})
    assert await receive(layer, one) == {"type": "hello"}
    await assert_nothing_for(layer, other)


async def test_a_full_channel_misses_a_group_message_and_the_others_get_it():
    layer = LazyExpiryInMemoryChannelLayer(capacity=1)
    full, free = await channels_in(layer, "game-1", 2)
    await layer.send(full, {"type": "first"})
    await layer.group_send("game-1", {"type": "second"})
    assert (await receive(layer, free))["type"] == "second"
    assert (await receive(layer, full))["type"] == "first"
    await assert_nothing_for(layer, full)


async def test_a_discarded_channel_no_longer_gets_group_messages():
    layer = LazyExpiryInMemoryChannelLayer()
    leaving, staying = await channels_in(layer, "game-1", 2)
    await layer.group_discard("game-1", leaving)
    await layer.group_send("game-1", {"type": "game.event"})
    assert (await receive(layer, staying))["type"] == "game.event"
    await assert_nothing_for(layer, leaving)


# --------------------------------------------------------------------------- expiry

# Messages expire by the wall clock (time.time), which these tests hold still and move on
# by hand: a loaded machine that takes long to get from a send to a receive must not
# expire a message the test means to be fresh. The event loop's own clock (monotonic)
# still runs, so the waits for nothing keep their bounds.
EXPIRY = 10.0


@pytest.fixture
def clock():
    with time_machine.travel(time.time(), tick=False) as traveller:
        yield traveller


def past_expiry(clock) -> None:
    clock.shift(EXPIRY + 1)


async def test_a_message_past_its_expiry_is_never_delivered(clock):
    # No sweep comes round: the check on receipt alone must drop it.
    layer = LazyExpiryInMemoryChannelLayer(expiry=EXPIRY, sweep_interval=NO_SWEEP)
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "stale"})
    past_expiry(clock)
    await assert_nothing_for(layer, channel)


async def test_a_message_not_yet_past_its_expiry_is_delivered(clock):
    layer = LazyExpiryInMemoryChannelLayer(expiry=EXPIRY, sweep_interval=0)
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "fresh"})
    clock.shift(EXPIRY - 1)
    assert (await receive(layer, channel))["type"] == "fresh"


async def test_a_channel_that_left_a_message_unread_past_its_expiry_leaves_its_groups(clock):
    layer = LazyExpiryInMemoryChannelLayer(expiry=EXPIRY, sweep_interval=NO_SWEEP)
    silent, reading = await channels_in(layer, "game-1", 2)
    await layer.group_send("game-1", {"type": "stale"})
    assert (await receive(layer, reading))["type"] == "stale"
    past_expiry(clock)
    await assert_nothing_for(layer, silent)  # the stale message is dropped on receipt
    await layer.group_send("game-1", {"type": "fresh"})
    assert (await receive(layer, reading))["type"] == "fresh"
    await assert_nothing_for(layer, silent)


async def test_the_sweep_removes_a_channel_nobody_reads_once_its_message_expired(clock):
    layer = LazyExpiryInMemoryChannelLayer(expiry=EXPIRY, sweep_interval=0)
    abandoned, reading = await channels_in(layer, "game-1", 2)
    await layer.group_send("game-1", {"type": "stale"})
    assert (await receive(layer, reading))["type"] == "stale"
    past_expiry(clock)
    # Another channel's delivery runs the sweep: the abandoned channel is out of the group
    # before the next message, so it never gets that one either.
    await layer.group_send("game-1", {"type": "fresh"})
    assert (await receive(layer, reading))["type"] == "fresh"
    await assert_nothing_for(layer, abandoned)


async def test_a_group_membership_past_group_expiry_ends():
    # Upstream counts group expiry in whole seconds: 1 s is the shortest that works.
    layer = LazyExpiryInMemoryChannelLayer(group_expiry=1, sweep_interval=0)
    # The layer reads the wall clock (time.time) for memberships: travel, do not sleep.
    with time_machine.travel(time.time(), tick=True) as clock:
        (old,) = await channels_in(layer, "game-1", 1)
        clock.shift(2.1)
        (new,) = await channels_in(layer, "game-1", 1)
        await layer.group_send("game-1", {"type": "game.event"})
        assert (await receive(layer, new))["type"] == "game.event"
        await assert_nothing_for(layer, old)


class CountingSweeps(LazyExpiryInMemoryChannelLayer):
    """The layer itself, counting how often its sweep runs."""

    sweeps = 0

    def _clean_expired(self) -> None:
        self.sweeps += 1
        super()._clean_expired()


async def test_a_broadcast_to_many_sockets_sweeps_once_not_once_per_delivery():
    # channels' own layer sweeps on every receive and group_send: a broadcast to n
    # waiting sockets walked every channel and group n times.
    layer = CountingSweeps(sweep_interval=NO_SWEEP)
    members = await channels_in(layer, "game-1", 50)
    for version in (1, 2, 3):
        await layer.group_send("game-1", {"type": "game.event", "version": version})
        received = [await receive(layer, member) for member in members]
        assert {m["version"] for m in received} == {version}
    assert layer.sweeps == 1

