"""The clock job inside ``manage.py serve``: end the games whose time has run out, every
``CLOCK_SWEEP_SECONDS``, on the server's event loop (the database work in a thread).

Reads show a due game as ended (games.selectors.effective) and actions end it
themselves, so a sweep that is late or down misleads nobody; the job is what ends it in
the database, and tells its players at once.
"""

from __future__ import annotations

import asyncio
import logging

from channels.db import database_sync_to_async

from games.services import expire_due_games

logger = logging.getLogger("games.clock")


async def sweep_forever(interval: float) -> None:
    """Sweep now and then every ``interval`` seconds until cancelled; a failed sweep is
    logged and the next one runs as planned."""
    while True:
        try:
            ended = await database_sync_to_async(expire_due_games)()
        except Exception:
            logger.exception("The clock sweep failed; the next runs in %s s", interval)
        else:
            if ended:
                logger.info("Ended %d game(s) whose time had run out", ended)
        await asyncio.sleep(interval)
