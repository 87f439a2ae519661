"""One log line per flood (of refused connections, of wrong secrets), not one per event."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable

# At most one line a reason in this many seconds about refused connections.
REFUSAL_LOG_INTERVAL = 10.0


class FloodSampler:
    """Which events of a kind to log during a flood: the first of a kind at once, then at
    most one per ``interval``, each with how many were held back since the last."""

    def __init__(self, interval: float = REFUSAL_LOG_INTERVAL) -> None:
        self.interval = interval
        self._last: dict[str, float] = {}
        self._unlogged: Counter[str] = Counter()

    def take(self, kind: str) -> int | None:
        """None: do not log this one (it is counted); else log it, with the returned
        number held back since the last line."""
        now = time.monotonic()
        if now - self._last.get(kind, -self.interval) < self.interval:
            self._unlogged[kind] += 1
            return None
        self._last[kind] = now
        return self._unlogged.pop(kind, 0)


class RefusalLog:
    """Logs refused connections without letting a flood of them flood the log: the first
    of a reason at once, then at most one line per ``interval`` with how many were
    refused meanwhile."""

    def __init__(
        self, log: Callable[..., None], interval: float = REFUSAL_LOG_INTERVAL
    ) -> None:
        self.log = log
        self.sampler = FloodSampler(interval)

    def refused(self, reason: str, peer: str, connections: int, from_address: int) -> None:
        held_back = self.sampler.take(reason)
        if held_back is None:
            return
        self.log(
            logging.WARNING,
            "refused peer=%s reason=%s connections=%d from_address=%d "
            "also_refused_since_last=%d",
            peer,
            reason,
            connections,
            from_address,
            held_back,
        )
