"""All three doors at once against real server processes: a Daphne (web pages, JSON and
sockets) and an ESPOL gateway (``manage.py run_espol_server``) on the test database.

- The move race: for each move of several games, the player to move sends the same move
  number through the web, the socket and ESPOL at the same instant. Exactly one is
  applied, the others are refused as stale, and every game replays from the start.
- SIGKILL under load: players keep moving through every door while both server
  processes are killed with SIGKILL and started again, several times. Every move a
  client was told was applied is in the database afterwards, and every game replays.

The normal run has a short variant of each; ``pytest -m stress`` runs the long ones and
prints their figures.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import get_hashers, make_password
from django.db import connection

from games import services
from games.integrity import check_games
from games.models import Game, Move
from legacy_tcp.espol.client import EspolClient
from tests.conftest import PASSWORD
from tests.servers import (
    DaphneProcess,
    EspolProcess,
    database_url_for_servers,
    wait_for_server_sessions_to_end,
)
from tests.stress import (
    APPLIED,
    Tally,
    espol_login,
    espol_move,
    open_socket,
    random_game,
    session_cookie,
    socket_move,
    web_move,
)

User = get_user_model()

pytestmark = pytest.mark.django_db(transaction=True)

# A refusal a racing copy of a move may meet once another copy was applied.
STALE = {"wrong_move_number", "not_your_turn"}


@dataclass
class Servers:
    web: DaphneProcess
    espol: EspolProcess

    def kill(self) -> None:
        """SIGKILL both at once: no handler runs, nothing is flushed."""
        self.espol.process.kill()
        self.web.process.kill()
        self.espol.kill()
        self.web.kill()

    def logs(self) -> str:
        return self.web.log() + self.espol.log()


@pytest.fixture
def start_servers(
    transactional_db, tmp_path, production_hashers
) -> Iterator[Callable[[], Servers]]:
    started: list[Servers] = []
    database_url = database_url_for_servers()

    def start() -> Servers:
        n = len(started)
        espol = EspolProcess(database_url, tmp_path / f"espol-{n}.log")
        web = DaphneProcess(database_url, tmp_path / f"daphne-{n}.log")
        servers = Servers(web, espol)
        started.append(servers)
        return servers

    yield start
    for servers in started:
        servers.web.stop()
        servers.espol.stop()
    wait_for_server_sessions_to_end()


def make_games(count: int) -> list[Game]:
    """``count`` games in progress between players the servers can log in: their hash
    is made with the project's own first hasher (Argon2), once for all of them."""
    hashed = make_password(PASSWORD, hasher=get_hashers()[0])
    games = []
    for n in range(count):
        white = User.objects.create_user(f"white{n}")
        black = User.objects.create_user(f"black{n}")
        User.objects.filter(pk__in=[white.pk, black.pk]).update(password=hashed)
        made = services.challenge(challenger=black, challenged=white)
        games.append(
            services.accept_challenge(challenge_id=made.pk, player=white, colour="white")
        )
    return games


def assert_every_game_replays() -> None:
    problems = [(r.game_id, r.problems) for r in check_games(Game.objects.all()) if r.problems]
    assert problems == []


# --------------------------------------------------------------------------- the race


@dataclass
class RaceTally(Tally):
    """And which door won each race."""

    def __post_init__(self) -> None:
        self.winners: dict[str, int] = {}


def race_through(
    barrier: threading.Barrier, door: str, action: Callable[[], str], outcomes: dict[str, str]
) -> None:
    barrier.wait(30)
    # Up to 20 ms apart: each door gets to arrive first, not only the quickest.
    time.sleep(random.uniform(0, 0.02))
    try:
        outcomes[door] = action()
    except Exception as exc:  # reported, and the race counts as failed
        outcomes[door] = f"error: {exc!r}"


def race_one_game(servers: Servers, game: Game, moves: list[str], tally: RaceTally) -> None:
    """Each move sent through the three doors at once by the player to move."""
    players = {"white": game.white, "black": game.black}
    cookies = {c: session_cookie(p) for c, p in players.items()}
    sockets = {c: open_socket(servers.web.port, game.pk, cookies[c]) for c in players}
    espol = {c: espol_login(servers.espol.port, p.username, PASSWORD) for c, p in players.items()}
    try:
        for number, uci in enumerate(moves, start=1):
            colour = "white" if number % 2 else "black"
            barrier = threading.Barrier(3)
            outcomes: dict[str, str] = {}
            doors: dict[str, Callable[[], str]] = {
                "web": partial(web_move, servers.web.port, game.pk, cookies[colour], number, uci),
                "socket": partial(socket_move, sockets[colour], number, uci),
                "espol": partial(espol_move, espol[colour], game.public_id, number, uci),
            }
            racers = [
                threading.Thread(target=race_through, args=(barrier, door, action, outcomes))
                for door, action in doors.items()
            ]
            for racer in racers:
                racer.start()
            for racer in racers:
                racer.join(60)
            applied = [door for door, outcome in outcomes.items() if outcome == APPLIED]
            refused = {outcome for outcome in outcomes.values() if outcome != APPLIED}
            if len(applied) != 1 or not refused <= STALE or len(outcomes) != 3:
                tally.error(f"game {game.pk} move {number}: {outcomes}")
                return
            tally.ack(game.pk, number, uci)
            with tally.lock:
                tally.winners[applied[0]] = tally.winners.get(applied[0], 0) + 1
    finally:
        for ws in sockets.values():
            ws.close()
        for client in espol.values():
            client.close()
        connection.close()


def run_race(servers: Servers, games: list[Game], plies: int) -> Tally:
    tally = RaceTally()
    threads = [
        threading.Thread(target=race_one_game, args=(servers, g, random_game(g.pk, plies), tally))
        for g in games
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(600)
    return tally


def check_race(start_servers, games_count: int, plies: int) -> RaceTally:
    games = make_games(games_count)
    servers = start_servers()
    started = time.monotonic()
    tally = run_race(servers, games, plies)
    elapsed = time.monotonic() - started
    assert tally.errors == []
    assert len(tally.acknowledged) == games_count * plies
    for game in games:
        stored = Move.objects.filter(game=game).order_by("number").values_list("uci", flat=True)
        assert list(stored) == random_game(game.pk, plies)
    assert_every_game_replays()
    assert "Traceback" not in servers.logs(), servers.logs()[-3000:]
    print(
        f"\nFIGURES move race: {games_count} games, {games_count * plies} races of 3 doors "
        f"({games_count * 6} connections), exactly one applied each; "
        f"won by {tally.winners}; {elapsed:.1f} s"
    )
    return tally


def test_a_move_raced_through_every_door_is_applied_once_short_run(start_servers):
    check_race(start_servers, games_count=1, plies=6)


@pytest.mark.stress
def test_a_move_raced_through_every_door_is_applied_once(start_servers):
    check_race(start_servers, games_count=6, plies=30)


# --------------------------------------------------------------------------- SIGKILL


DOORS = ("web", "socket", "espol")


def play_until_stopped(
    servers: Servers, game: Game, door: str, moves: list[str], stop: threading.Event,
    tally: Tally,
) -> None:
    """Move for both sides through one door until told to stop or the server dies."""
    players = {"white": game.white, "black": game.black}
    sockets: dict = {}
    espol: dict[str, EspolClient] = {}
    try:
        cookies = {c: session_cookie(p) for c, p in players.items()}
        if door == "socket":
            sockets = {c: open_socket(servers.web.port, game.pk, cookies[c]) for c in players}
        if door == "espol":
            espol = {
                c: espol_login(servers.espol.port, p.username, PASSWORD)
                for c, p in players.items()
            }
        # Where the game stands: a move in flight at the last kill may have been applied
        # without its answer reaching the client.
        number = Move.objects.filter(game=game).count() + 1
        while not stop.is_set() and number <= len(moves):
            colour = "white" if number % 2 else "black"
            uci = moves[number - 1]
            if door == "web":
                outcome = web_move(servers.web.port, game.pk, cookies[colour], number, uci)
            elif door == "socket":
                outcome = socket_move(sockets[colour], number, uci)
            else:
                outcome = espol_move(espol[colour], game.public_id, number, uci)
            if outcome != APPLIED:
                tally.error(f"game {game.pk} move {number} via {door}: {outcome}")
                return
            tally.ack(game.pk, number, uci)
            number += 1
    except Exception as exc:
        # Connection errors, and the websockets library's own when the server vanishes
        # mid-frame: a move in flight at the kill.
        if not stop.is_set():
            tally.error(f"game {game.pk} via {door}: {exc!r} before the kill")
        else:
            with tally.lock:
                tally.interrupted += 1
    finally:
        for ws in sockets.values():
            with contextlib.suppress(Exception):
                ws.close()
        for client in espol.values():
            client.close()
        connection.close()


def check_kills(start_servers, games_count: int, plies: int, kills: int, per_round: int) -> None:
    """``kills`` rounds: the servers start, the clients play, and once ``per_round`` moves
    of the round were acknowledged, both servers are killed with moves in flight."""
    games = make_games(games_count)
    scripts = {g.pk: random_game(g.pk + 1000, plies) for g in games}
    tally = Tally()
    started = time.monotonic()
    for _ in range(kills):
        servers = start_servers()
        stop = threading.Event()
        clients = [
            threading.Thread(
                target=play_until_stopped,
                args=(servers, g, DOORS[i % 3], scripts[g.pk], stop, tally),
            )
            for i, g in enumerate(games)
        ]
        target = len(tally.acknowledged) + per_round
        for client in clients:
            client.start()
        deadline = time.monotonic() + 300
        while len(tally.acknowledged) < target and time.monotonic() < deadline:
            assert any(c.is_alive() for c in clients), tally.errors[:5]
            time.sleep(0.01)
        stop.set()
        servers.kill()
        for client in clients:
            client.join(60)
        assert not any(c.is_alive() for c in clients)
        assert tally.errors == [], tally.errors[:5]
    # After the last kill, the servers come back and serve every game as stored.
    servers = start_servers()
    reader = espol_login(servers.espol.port, games[0].white.username, PASSWORD)
    for game in games:
        answer = reader.send(f"STAT:{game.public_id}")
        assert answer is not None and answer.code == 103
        stored = Move.objects.filter(game=game).count()
        assert answer.text.split(":")[-1] == str(stored + 1)
    reader.close()
    found = sum(
        Move.objects.filter(game_id=game_id, number=number, uci=uci).exists()
        for game_id, number, uci in tally.acknowledged
    )
    assert len(tally.acknowledged) > 0
    assert found == len(tally.acknowledged)
    assert_every_game_replays()
    print(
        f"\nFIGURES SIGKILL: {games_count} clients (games; web, socket and ESPOL in turn), "
        f"{kills} kills of both servers survived, {len(tally.acknowledged)} moves "
        f"acknowledged, {found} found, {tally.interrupted} requests cut off by a kill; "
        f"{time.monotonic() - started:.1f} s"
    )


def test_every_acknowledged_move_survives_a_sigkill_short_run(start_servers):
    check_kills(start_servers, games_count=3, plies=200, kills=1, per_round=30)


@pytest.mark.stress
def test_every_acknowledged_move_survives_repeated_sigkills(start_servers):
    check_kills(start_servers, games_count=9, plies=240, kills=5, per_round=150)
