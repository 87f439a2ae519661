"""One log line per flood of refused connections, not one per connection."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable

# At most one line a reason in this many seconds about refused connections.
REFUSAL_LOG_INTERVAL = 10.0


class RefusalLog:
    """Logs refused connections without letting a flood of them flood the log: the first
    of a reason at once, then at most one line per ``interval`` with how many were
    refused meanwhile."""

    def __init__(
        self, log: Callable[..., None], interval: float = REFUSAL_LOG_INTERVAL
    ) -> None:
        self.log = log
        self.interval = interval
        self._last: dict[str, float] = {}
        self._unlogged: Counter[str] = Counter()

    def refused(self, reason: str, peer: str, connections: int, from_address: int) -> None:
        now = time.monotonic()
        if now - self._last.get(reason, -self.interval) < self.interval:
            self._unlogged[reason] += 1
            return
        self._last[reason] = now
        self.log(
            logging.WARNING,
            "refused peer=%s reason=%s connections=%d from_address=%d "
            "also_refused_since_last=%d",
            peer,
            reason,
            connections,
            from_address,
            self._unlogged.pop(reason, 0),
        )
