"""Real-time messages, sent to the channel layer only after the write commits.

In the core because every app publishes: accounts close sockets, games publish their
events (:mod:`games.events`), notifications their counts. A message is built once per
event, after the commit, and never for a write that rolled back.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from asgiref.sync import SyncToAsync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)


# How long the first groups of a message get before the others are sent it. Daphne
# (Twisted on the asyncio loop) puts a socket's frame on the wire only when the loop next
# polls for writable sockets, after every callback already queued has run: a player's
# socket woken together with a thousand watchers' waited for all of them (147 ms p50 at
# 1,000 watchers, bench/fanout.py); woken 2 ms earlier, it has written by then (14 ms).
HEAD_START_SECONDS = 0.002

# A message to send: the layer, the first groups, the message, the groups after the head start.
_Sending = tuple[Any, list[str], dict[str, Any], list[str]]
# A send due later: when, the layer, the groups, the message.
_Due = tuple[float, Any, list[str], dict[str, Any]]


# The sending tasks of each server loop, held while they run (a loop keeps only weak
# references to its tasks).
_senders: set[asyncio.Task[None]] = set()


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """The server's loop this thread works for, when it was started by ``sync_to_async``
    from a loop that outlives the call; ``None`` for a command, a test, a plain thread."""
    local = SyncToAsync.threadlocal
    loop = getattr(local, "main_event_loop", None)
    if (
        loop is not None
        and getattr(local, "main_event_loop_pid", None) == os.getpid()
        and loop.is_running()
    ):
        return loop
    return None


# Per server loop, the messages handed to it, sent in the order given, and its two
# sending tasks.
_queues: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, tuple[asyncio.Queue[_Sending], list[asyncio.Task[None]]]
] = weakref.WeakKeyDictionary()


def _enqueue(loop: asyncio.AbstractEventLoop, sending: _Sending) -> None:
    """On ``loop``: queue ``sending`` behind the messages handed to it before."""
    known = _queues.get(loop)
    if known is None or any(task.done() for task in known[1]):
        # The first message on this loop, or its senders were cancelled (a server
        # stopping): new ones, lest messages queue with nobody to send them.
        queue: asyncio.Queue[_Sending] = asyncio.Queue()
        later: asyncio.Queue[_Due] = asyncio.Queue()
        tasks = [loop.create_task(_send_first(queue, later)), loop.create_task(_send_later(later))]
        for task in tasks:
            _senders.add(task)
            task.add_done_callback(_senders.discard)
        known = _queues[loop] = (queue, tasks)
    known[0].put_nowait(sending)


async def _send_first(queue: asyncio.Queue[_Sending], later: asyncio.Queue[_Due]) -> None:
    """Each message to its first groups, one message after another; its other groups
    are left to :func:`_send_later`, due a head start later."""
    loop = asyncio.get_running_loop()
    while True:
        layer, groups, message, then = await queue.get()
        await _send_to_each(layer, groups, message)
        _end_if_cancelled()
        if then:
            later.put_nowait((loop.time() + HEAD_START_SECONDS, layer, then, message))


async def _send_later(queue: asyncio.Queue[_Due]) -> None:
    """The watchers' sends, each when its head start is over, in the messages' order: a
    game's move and the conditional reply after it reach every watcher in that order,
    whatever each send waits for (on Redis, a round trip)."""
    loop = asyncio.get_running_loop()
    while True:
        due, layer, groups, message = await queue.get()
        if (wait := due - loop.time()) > 0:
            await asyncio.sleep(wait)
        await _send_to_each(layer, groups, message)
        _end_if_cancelled()


def _end_if_cancelled() -> None:
    """End the sending task if it was asked to end during a send that swallowed the
    request (the Redis layer's client did, catching the ``CancelledError`` meant for the
    task that awaited it): a sender that went back to its queue would then keep a closing
    loop (a server stopping, a test's loop) waiting for it for ever."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


async def _send_to_each(layer: Any, groups: Iterable[str], message: dict[str, Any]) -> None:
    for group in groups:
        try:
            await layer.group_send(group, message)
        except Exception:
            # The write has committed; a channel layer outage must not turn it into an
            # error. Clients resync from the version number when they reconnect.
            logger.exception("could not publish %s to %s", message.get("event"), group)


class _PublisherLoop:
    """A loop of the process's own, lasting, for the callers that have none: a command,
    a worker, a plain thread. ``async_to_sync`` there would start a thread and a loop
    for every send (and on Redis a new connection for every loop): about 0.6 ms a move,
    measured by bench/core_move.py.

    No head start here: it is for sockets on the publisher's own loop (see
    :data:`HEAD_START_SECONDS`), and these callers have none. Every group is sent to, in
    order, before the caller goes on, so nothing is left behind when a command exits."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pid = 0

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            # A forked child inherits the object but not the thread.
            if self._loop is None or self._pid != os.getpid():
                loop = asyncio.new_event_loop()
                threading.Thread(
                    target=loop.run_forever, name="ajedrez-publisher", daemon=True
                ).start()
                self._loop, self._pid = loop, os.getpid()
            return self._loop

    def send(self, layer: Any, groups: list[str], message: dict[str, Any]) -> None:
        sending = _send_to_each(layer, groups, message)
        asyncio.run_coroutine_threadsafe(sending, self._running_loop()).result()


_publisher = _PublisherLoop()


def send_to_groups(
    groups: Iterable[str], message: dict[str, Any], *, then: Iterable[str] = ()
) -> None:
    """Send ``message`` to each group now, and to the groups ``then`` after a head start
    of :data:`HEAD_START_SECONDS` (callers run this after their commit)."""
    layer = get_channel_layer()
    if layer is None:
        return
    loop = _server_loop()
    if loop is not None:
        # Handed to the server's loop, not waited for: the caller (under Daphne the one
        # thread that does every request's database work) goes on at once instead of
        # waiting for a loop that may be busy writing to a thousand sockets. The loop
        # sends them in the order handed, so a game's events keep theirs.
        try:
            loop.call_soon_threadsafe(_enqueue, loop, (layer, list(groups), message, list(then)))
        except RuntimeError:
            # The loop closed since it was seen running: its server and sockets are gone.
            logger.warning("not published: the server's loop has closed")
    else:
        _publisher.send(layer, [*groups, *then], message)


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
