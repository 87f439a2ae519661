"""Real-time messages, sent to the channel layer only after the write commits.

In the core because every app publishes: accounts close sockets, games publish their
events (:mod:`games.events`), notifications their counts. A message is built once per
event, after the commit, and never for a write that rolled back.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Iterable
from typing import Any

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)


# How long the first groups of a message get before the others are sent it. Daphne
# (Twisted on the asyncio loop) puts a socket's frame on the wire only when the loop next
# polls for writable sockets, after every callback already queued has run: a player's
# socket woken together with a thousand watchers' waited for all of them (147 ms p50 at
# 1,000 watchers, bench/fanout.py); woken 2 ms earlier, it has written by then (14 ms).
HEAD_START_SECONDS = 0.002


async def _send_to_groups(
    layer: Any,
    groups: Iterable[str],
    message: dict[str, Any],
    then: Iterable[str] = (),
    *,
    detach: bool = False,
) -> None:
    await _send_to_each(layer, groups, message)
    later = list(then)
    if not later:
        return
    if detach:
        # On the server's own loop, which outlives this call: the watchers' send is left
        # to it, so the caller (the one thread Daphne gives database work) goes on at once
        # instead of sleeping out the head start while every other request waits.
        loop = asyncio.get_running_loop()
        loop.call_later(HEAD_START_SECONDS, _start_detached, loop, layer, later, message)
        return
    await asyncio.sleep(HEAD_START_SECONDS)
    await _send_to_each(layer, later, message)


# Sends left to the server's loop, held until done (the loop keeps only weak references).
_detached: set[asyncio.Task[None]] = set()


def _start_detached(
    loop: asyncio.AbstractEventLoop, layer: Any, groups: list[str], message: dict[str, Any]
) -> None:
    task = loop.create_task(_send_to_each(layer, groups, message))
    _detached.add(task)
    task.add_done_callback(_detached.discard)


def _on_a_lasting_loop() -> bool:
    """Whether ``async_to_sync`` called here runs on a server's loop that outlives the
    call (this thread was started by ``sync_to_async`` from it), rather than on a loop of
    its own that closes when the call returns (a command, a test, a plain thread)."""
    local = SyncToAsync.threadlocal
    loop = getattr(local, "main_event_loop", None)
    return (
        loop is not None
        and getattr(local, "main_event_loop_pid", None) == os.getpid()
        and loop.is_running()
    )


async def _send_to_each(layer: Any, groups: Iterable[str], message: dict[str, Any]) -> None:
    for group in groups:
        try:
            await layer.group_send(group, message)
        except Exception:
            # The write has committed; a channel layer outage must not turn it into an
            # error. Clients resync from the version number when they reconnect.
            logger.exception("could not publish %s to %s", message.get("event"), group)


def send_to_groups(
    groups: Iterable[str], message: dict[str, Any], *, then: Iterable[str] = ()
) -> None:
    """Send ``message`` to each group now, and to the groups ``then`` after a head start
    of :data:`HEAD_START_SECONDS` (callers run this after their commit). On a server's
    loop the caller waits only for the first groups' send."""
    layer = get_channel_layer()
    if layer is None:
        return
    # One async_to_sync call for all groups: from a plain thread each call starts a thread
    # and an event loop of its own (~0.6 ms, measured by bench/core_move.py).
    async_to_sync(_send_to_groups)(
        layer, list(groups), message, list(then), detach=_on_a_lasting_loop()
    )


def publish_on_commit(
    groups: Iterable[str],
    build: Callable[[], dict[str, Any]],
    *,
    then: Iterable[str] = (),
) -> None:
    """Once the current transaction commits, build the message and send it to ``groups``,
    then to the groups ``then`` (see :func:`send_to_groups`).

    ``build`` runs after the commit, once per event whatever the number of sockets, and
    never for a write that rolled back. Should it fail, the failure is logged and nothing
    is sent: the write has committed, and an exception from a commit hook would reach the
    caller as if it had not (clients resync by version at their next event).
    """
    targets, later = list(groups), list(then)

    def build_and_send() -> None:
        try:
            message = build()
        except Exception:
            logger.exception("could not build the message for %s", ", ".join(targets))
            return
        send_to_groups(targets, message, then=later)

    transaction.on_commit(build_and_send)
