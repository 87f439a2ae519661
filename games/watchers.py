"""How many people watch each game (the game page's spectator count): the open game-page
sockets of everyone but its players, counted in Django's cache (Redis with ``REDIS_URL``,
so every web process counts into one number; process memory otherwise).

A process that dies with sockets open leaves its watchers counted until the game's key
expires (a day without a watcher arriving or leaving): the count is a live indication,
not a record.
"""

from __future__ import annotations

from django.core.cache import cache

EXPIRY_SECONDS = 24 * 3600


def _key(game_id: int) -> str:
    return f"game-watchers:{game_id}"


def joined(game_id: int) -> int:
    """One more watcher of ``game_id``; returns how many there are now."""
    key = _key(game_id)
    cache.add(key, 0, timeout=EXPIRY_SECONDS)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between the two calls
        cache.set(key, 1, timeout=EXPIRY_SECONDS)
        count = 1
    cache.touch(key, EXPIRY_SECONDS)
    return int(count)


def left(game_id: int) -> int:
    """One watcher fewer; returns how many remain (never below zero)."""
    key = _key(game_id)
    try:
        count = int(cache.decr(key))
    except ValueError:
        return 0
    if count < 0:
        cache.set(key, 0, timeout=EXPIRY_SECONDS)
        return 0
    return count


def count(game_id: int) -> int:
    return int(cache.get(_key(game_id), 0))
