"""Scale-out for real: two Daphne processes and the ESPOL gateway, each a process of its
own, on PostgreSQL and Redis. A move made through each door (a page's socket on one web
process, a page's socket on the other, an ESPOL connection) reaches the sockets held by
the other processes, each move once and in order.

The clock sweep run by several processes at once (``manage.py serve``'s job in two of
them, ``manage.py expire_games`` in three more, ``expire_due_games`` in this one) ends
each game whose time ran out exactly once: one result, one ranking change, one event.
What makes it so is in ``games.services.expire_game``: the game row is locked and its
deadline read again under the lock, so a sweep that waited for another finds nothing
left to do.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import itertools
import json
import re
import subprocess
import sys
import threading

import pytest
import websockets
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.db import connection, transaction
from django.db.models import Sum
from django.utils import timezone

from games import services
from games.models import Game
from legacy_tcp.espol.client import AsyncEspolClient, jgda
from ranking.models import PlayerRecord, RatingChange
from tests.conftest import PASSWORD
from tests.servers import (
    ROOT,
    EspolProcess,
    ServeProcess,
    ServerProcess,
    database_url_for_servers,
    server_environment,
    session_cookie,
)

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

# Only there so that a broken deployment fails the test instead of hanging it.
FRAME_TIMEOUT = 15.0


@pytest.fixture
def espol_gateway(transactional_db, tmp_path, daphne):
    # ``daphne`` first: its teardown waits for the servers' database sessions to end,
    # so it must run after this one has stopped the gateway.
    gateway = EspolProcess(database_url_for_servers(), tmp_path / "espol.log")
    yield gateway
    gateway.stop()


async def open_socket(
    server: ServerProcess, path: str, user, first_frame: str
) -> websockets.ClientConnection:
    cookie = await database_sync_to_async(session_cookie)(user)
    ws = await websockets.connect(
        f"ws://127.0.0.1:{server.port}{path}",
        origin=f"http://127.0.0.1:{server.port}",
        additional_headers={"Cookie": cookie},
        open_timeout=FRAME_TIMEOUT,
    )
    assert json.loads(await asyncio.wait_for(ws.recv(), FRAME_TIMEOUT))["type"] == first_frame
    return ws


async def open_game_socket(
    server: ServerProcess, game_id: int, user
) -> websockets.ClientConnection:
    return await open_socket(server, f"/ws/games/{game_id}/", user, "snapshot")


async def next_event(ws: websockets.ClientConnection, timeout: float = FRAME_TIMEOUT) -> dict:
    """The socket's next game event; a mover's own acknowledgement and the count of
    watchers are passed over."""
    async with asyncio.timeout(timeout):
        while True:
            frame = json.loads(await ws.recv())
            if frame["type"] == "event":
                return frame


async def assert_no_more_events(sockets: dict[str, websockets.ClientConnection]) -> None:
    for name, ws in sockets.items():
        with pytest.raises(TimeoutError):
            event = await next_event(ws, timeout=1.0)
            pytest.fail(f"{name} got an event more: {event}")


async def test_a_move_through_each_door_reaches_the_sockets_of_every_other_process(
    daphne, espol_gateway, production_hashers, alice, bob, carol, start_game
):
    # The gateway process checks passwords with the project's hashers, not the tests'.
    # Argon2 already, as an account made today: an older hash would be upgraded at the
    # ESPOL login, and a new hash ends the player's web sessions (Django's session keeps
    # a digest of the password hash), alice's socket on A among them.
    alice.set_password(PASSWORD)
    await database_sync_to_async(alice.save)()
    game = await database_sync_to_async(start_game)(alice, bob)
    web_a = await sync_to_async(daphne)()
    web_b = await sync_to_async(daphne)()
    assert len({web_a.port, web_b.port, espol_gateway.port}) == 3

    alice_on_a = await open_game_socket(web_a, game.pk, alice)
    carol_on_a = await open_game_socket(web_a, game.pk, carol)
    bob_on_b = await open_game_socket(web_b, game.pk, bob)
    carol_on_b = await open_game_socket(web_b, game.pk, carol)
    sockets = {"alice@A": alice_on_a, "carol@A": carol_on_a,
               "bob@B": bob_on_b, "carol@B": carol_on_b}
    espol = await AsyncEspolClient.open(espol_gateway.port)
    await espol.login("alice", PASSWORD)

    async def everyone_sees(version: int, uci: str) -> None:
        for name, ws in sockets.items():
            event = await next_event(ws)
            assert (event["type"], event["event"]) == ("event", "move"), (name, event)
            assert (event["version"], event["move"]["uci"]) == (version, uci), (name, event)

    # Page A (web process A) → process B's sockets, and A's own.
    await alice_on_a.send(json.dumps({"type": "move", "number": 1, "move": "e2e4"}))
    await everyone_sees(game.version + 1, "e2e4")
    # Page B (web process B) → process A's sockets, and B's own.
    await bob_on_b.send(json.dumps({"type": "move", "number": 2, "move": "e7e5"}))
    await everyone_sees(game.version + 2, "e7e5")
    # ESPOL (the gateway's process) → both web processes.
    assert (await espol.send(jgda(game.public_id, 3, "g1f3"))).code == 103
    await everyone_sees(game.version + 3, "g1f3")

    # The gateway reads what the web processes wrote; nothing arrived twice.
    spar = await espol.send(f"SPAR:{game.public_id}:0")
    assert [entry.split(":")[1] for entry in spar.text.rstrip(",").split(",")] == [
        "e2e4", "e7e5", "g1f3",
    ]
    await assert_no_more_events(sockets)

    await espol.close()
    for ws in sockets.values():
        await ws.close()


# Enough games that the sweeps, each walking them in the same order, overlap.
DUE_GAMES = 40
EXPIRE_COMMANDS = 3
SERVE_SWEEPS = 2
SWEEPERS = EXPIRE_COMMANDS + SERVE_SWEEPS + 1  # and this process
ENDED = re.compile(r"Ended (\d+) game\(s\)")


@pytest.fixture
def sweeping_serve(transactional_db, tmp_path, daphne):
    """Start ``manage.py serve`` processes sweeping every 0.1 s; stopped before
    ``daphne``'s teardown waits for the database sessions to end."""
    started: list[ServeProcess] = []
    numbers = itertools.count()  # started from several threads at once

    def start() -> ServeProcess:
        server = ServeProcess(
            database_url_for_servers(), tmp_path / f"serve-{next(numbers)}.log",
            sweep_seconds=0.1,
        )
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def make_games_with_a_clock(make_player, count: int) -> tuple[list[int], set[int]]:
    """``count`` games of one day per move, every other one with a move by each player
    (rated when it ends on time) and the rest with none (aborted when time runs out).
    Returns the games' ids and the ids of those with moves."""
    ids, with_moves = [], set()
    for i in range(count):
        white, black = make_player(f"clockw{i}"), make_player(f"clockb{i}")
        made = services.challenge(challenger=black, challenged=white, days_per_move=1)
        game = services.accept_challenge(challenge_id=made.pk, player=white, colour="white")
        if i % 2 == 0:
            services.make_move(game_id=game.pk, player=white, move_number=1, move="e2e4")
            services.make_move(game_id=game.pk, player=black, move_number=2, move="e7e5")
            with_moves.add(game.pk)
        ids.append(game.pk)
    return ids, with_moves


def let_time_run_out(ids: list[int]) -> dict[int, int]:
    """Set-up only: every deadline passed a minute ago, as if nobody had moved in time.
    Returns each game's version before any sweep."""
    Game.objects.filter(pk__in=ids).update(deadline=timezone.now() - dt.timedelta(minutes=1))
    return dict(Game.objects.filter(pk__in=ids).values_list("pk", "version"))


def hold_game_locks(ids: list[int], release: threading.Event) -> None:
    """Lock the games, in a thread and connection of their own, until ``release``."""
    try:
        with transaction.atomic():
            list(Game.objects.select_for_update().filter(pk__in=ids))
            release.wait(150)
    finally:
        connection.close()


def sessions_waiting_for_a_lock() -> int:
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            return cursor.fetchone()[0]
    finally:
        connection.close()


def expire_due_games_in_a_thread() -> int:
    try:
        return services.expire_due_games()
    finally:
        connection.close()


def run_expire_games() -> str:
    return subprocess.run(
        [sys.executable, "manage.py", "expire_games"],
        cwd=ROOT, env=server_environment(database_url_for_servers()),
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout


def games_left_active(ids: list[int]) -> int:
    return Game.objects.filter(pk__in=ids, status=Game.Status.ACTIVE).count()


async def test_sweeps_in_several_processes_at_once_end_each_due_game_exactly_once(
    daphne, sweeping_serve, make_player, carol
):
    ids, with_moves = await database_sync_to_async(make_games_with_a_clock)(
        make_player, DUE_GAMES
    )
    # The watchers: the lobby's sockets (every game's events) on two plain Daphne
    # processes that do not sweep.
    web_a = await sync_to_async(daphne)()
    web_b = await sync_to_async(daphne)()
    lobbies = {
        "lobby@A": await open_socket(web_a, "/ws/lobby/", carol, "hello"),
        "lobby@B": await open_socket(web_b, "/ws/lobby/", carol, "hello"),
    }
    versions = await database_sync_to_async(let_time_run_out)(ids)

    # Every sweeper at once: the command's processes, the serve processes' jobs (their
    # first sweep runs as soon as they are up) and the service called here. The games
    # stay locked until every one of them waits for the first game's lock: then they
    # race for each game, instead of the first one up ending them all alone.
    in_threads = functools.partial(sync_to_async, thread_sensitive=False)
    release = threading.Event()
    holder = asyncio.ensure_future(in_threads(hold_game_locks)(ids, release))
    commands = [in_threads(run_expire_games)() for _ in range(EXPIRE_COMMANDS)]
    serves = [in_threads(sweeping_serve)() for _ in range(SERVE_SWEEPS)]
    here = in_threads(expire_due_games_in_a_thread)()
    sweepers = asyncio.gather(asyncio.gather(*commands), asyncio.gather(*serves), here)
    try:
        async with asyncio.timeout(120):
            while await in_threads(sessions_waiting_for_a_lock)() < SWEEPERS:
                await asyncio.sleep(0.05)
    finally:
        release.set()
    await holder
    outputs, servers, ended_here = await sweepers
    # The last sweeps may still be at work: wait for them (bounded, checked often).
    async with asyncio.timeout(60):
        while await database_sync_to_async(games_left_active)(ids):
            await asyncio.sleep(0.1)

    # One event per game on every socket, whichever process ended it...
    for name, ws in lobbies.items():
        seen = {}
        for _ in ids:
            event = await next_event(ws)
            game = event["game"]
            assert game["id"] not in seen, (name, event)
            seen[game["id"]] = (event["event"], event["version"])
        assert seen == {
            pk: ("timeout" if pk in with_moves else "aborted", versions[pk] + 1) for pk in ids
        }, name
    # ... and none after, while the serve processes go on sweeping every 0.1 s.
    await assert_no_more_events(lobbies)

    # One write per game, one result, one rating change per player of a rated ending.
    def stored() -> tuple[dict, int, dict]:
        games = {
            pk: (version, result, termination)
            for pk, version, result, termination in Game.objects.filter(pk__in=ids)
            .values_list("pk", "version", "result", "termination")
        }
        records = PlayerRecord.objects.filter(
            player__username__regex=r"^clock[wb]\d+$"
        ).aggregate(wins=Sum("wins"), losses=Sum("losses"), draws=Sum("draws"))
        return games, RatingChange.objects.filter(game_id__in=ids).count(), records

    games, rating_changes, records = await database_sync_to_async(stored)()
    assert games == {
        pk: (versions[pk] + 1, *(("0-1", "timeout") if pk in with_moves else ("*", "aborted")))
        for pk in ids
    }
    # White was to move in the games with moves, and lost on time.
    assert rating_changes == 2 * len(with_moves)
    assert records == {"wins": len(with_moves), "losses": len(with_moves), "draws": 0}

    # What every sweeper says it ended adds up to the games, each counted once.
    ended_by = {f"expire_games #{i}": sum(map(int, ENDED.findall(out)))
                for i, out in enumerate(outputs)}
    ended_by |= {f"serve #{i}": sum(map(int, ENDED.findall(server.log())))
                 for i, server in enumerate(servers)}
    ended_by["expire_due_games here"] = ended_here
    assert sum(ended_by.values()) == DUE_GAMES, ended_by
    print("Games ended by each sweeper:", ended_by)

    for ws in lobbies.values():
        await ws.close()
