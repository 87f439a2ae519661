"""Conditional moves over the game socket: the owner's snapshot alone carries them, and
a reply reaches every socket as an ordinary move event, with no lines in it."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from games import services
from tests.web.test_consumers import cookies, open_game, receive_until  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def set_lines(game, player, lines) -> None:
    services.set_conditional_lines(game_id=game.pk, player=player, move_number=2, lines=lines)


async def test_only_the_owners_socket_sees_the_lines_and_all_see_the_reply(
    game, play, alice, bob, cookies  # noqa: F811
):
    await sync_to_async(play)(game, "e4")
    await sync_to_async(set_lines)(game, alice, [["e5", "Nf3", "Nc6", "Bb5"]])
    sockets = {}
    for name in ("alice", "bob", "carol"):
        sockets[name] = await open_game(game.pk, cookies[name])
    alice_snapshot, bob_snapshot, carol_snapshot = (sockets[n][1] for n in sockets)
    assert [m["san"] for m in alice_snapshot["conditional"]["lines"][0]] == [
        "e5", "Nf3", "Nc6", "Bb5",
    ]
    assert bob_snapshot["conditional"]["lines"] == []
    assert carol_snapshot["conditional"] is None

    bob_socket = sockets["bob"][0]
    await bob_socket.send_json_to({"type": "move", "number": 2, "move": "e5"})
    for name, (comm, _) in sockets.items():
        seen = []
        while len(seen) < 2:
            frame = await receive_until(comm, "event")
            assert "conditional" not in frame and "b8c6" not in str(frame), name
            seen.append((frame["event"], frame["move"]["san"]))
        assert seen == [("move", "e5"), ("move", "Nf3")], name
    # A snapshot asked for again shows the owner what is left of the line.
    alice_socket = sockets["alice"][0]
    await alice_socket.send_json_to({"type": "sync", "version": 0, "after": 3})
    again = await receive_until(alice_socket, "snapshot")
    assert [m["san"] for m in again["conditional"]["lines"][0]] == ["Nc6", "Bb5"]
    for comm, _ in sockets.values():
        await comm.disconnect()
