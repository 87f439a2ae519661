"""Real-time messages, sent to the channel layer only after the write commits.

In the core because every app publishes: accounts close sockets, games publish their
events (:mod:`games.events`), notifications their counts. A message is built once per
event, after the commit, and never for a write that rolled back.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from typing import Any

from asgiref.sync import async_to_sync
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
    layer: Any, groups: Iterable[str], message: dict[str, Any], then: Iterable[str] = ()
) -> None:
    await _send_to_each(layer, groups, message)
    later = list(then)
    if later:
        await asyncio.sleep(HEAD_START_SECONDS)
        await _send_to_each(layer, later, message)


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
    of :data:`HEAD_START_SECONDS` (callers run this after their commit)."""
    layer = get_channel_layer()
    if layer is None:
        return
    # One async_to_sync call for all groups: from a plain thread each call starts a thread
    # and an event loop of its own (~0.6 ms, measured by bench/core_move.py).
    async_to_sync(_send_to_groups)(layer, list(groups), message, list(then))


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
