"""The clock job inside ``manage.py serve``: end the games whose time has run out, every
``CLOCK_SWEEP_SECONDS``, on the server's event loop (the database work in a thread); and,
about once a minute, queue the daily digests that are due (games.digest) and start the
tournaments whose time has come.

Reads show a due game as ended (games.selectors.effective) and actions end it
themselves, so a sweep that is late or down misleads nobody; the job is what ends it in
the database, and tells its players at once.
"""

from __future__ import annotations

import asyncio
import logging
import time

from channels.db import database_sync_to_async

from games.digest import queue_due_digests
from games.services import expire_due_games, start_due_tournaments

logger = logging.getLogger("games.clock")

# Digests go out during their hour: looking once a minute is plenty.
DIGEST_EVERY_SECONDS = 60.0


async def sweep_forever(interval: float) -> None:
    """Sweep now and then every ``interval`` seconds until cancelled; a failed sweep is
    logged and the next one runs as planned."""
    digests_due_at = 0.0
    while True:
        try:
            ended = await database_sync_to_async(expire_due_games)()
        except Exception:
            logger.exception("The clock sweep failed; the next runs in %s s", interval)
        else:
            if ended:
                logger.info("Ended %d game(s) whose time had run out", ended)
        if time.monotonic() >= digests_due_at:
            digests_due_at = time.monotonic() + DIGEST_EVERY_SECONDS
            try:
                queued = await database_sync_to_async(queue_due_digests)()
            except Exception:
                logger.exception("Queueing the daily digests failed; trying again later")
            else:
                if queued:
                    logger.info("Queued %d daily digest(s)", queued)
            try:
                started = await database_sync_to_async(start_due_tournaments)()
            except Exception:
                logger.exception("Starting the tournaments due failed; trying again later")
            else:
                if started:
                    logger.info("Started or called off %d tournament(s)", started)
        await asyncio.sleep(interval)
