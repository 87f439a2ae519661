"""Presence in one process: a page that loads the next closes one socket and opens
another from two threads at once; the player must stay present."""

from __future__ import annotations

import threading

from django.core.cache import cache

from accounts import presence


def test_a_socket_closing_while_the_next_opens_leaves_the_player_present(monkeypatch):
    player_id = 424242
    presence.socket_opened(player_id)
    reached_delete = threading.Event()
    release = threading.Event()

    class SlowDeletes:
        """The cache, with the closing socket's write held up as by a slow Redis reply."""

        def __getattr__(self, name):
            return getattr(cache, name)

        def delete(self, key, *args, **kwargs):
            reached_delete.set()
            release.wait(10)
            return cache.delete(key, *args, **kwargs)

    monkeypatch.setattr(presence, "cache", SlowDeletes())
    closing = threading.Thread(target=presence.socket_closed, args=(player_id,))
    closing.start()
    assert reached_delete.wait(10)
    opening = threading.Thread(target=presence.socket_opened, args=(player_id,))
    opening.start()
    # The opening socket's write comes after the closing one's, whatever it found; give
    # it the chance to overtake before the held write goes through.
    opening.join(0.5)
    release.set()
    closing.join(10)
    opening.join(10)
    try:
        assert presence.is_online(player_id)
    finally:
        presence.socket_closed(player_id)
    assert not presence.is_online(player_id)
