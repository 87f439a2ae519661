"""What one game event costs the server per socket: queries and legal-move computations.

Opens the game's page socket for its two players and ``--watchers`` spectators, and the
two players' dashboard sockets, on the in-memory channel layer inside this process; plays
moves that reach a position where a draw may be claimable (the case that needs a read);
then counts, for one more move, the queries run and the legal-destination computations
made while the event reaches every socket (the move's own queries are counted apart).

    python bench/event_queries.py [--watchers 10]

The database is a temporary SQLite file.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def setup_django() -> None:
    scratch = Path(tempfile.mkdtemp(prefix="ajedrez-bench-")) / "bench.sqlite3"
    os.environ["DATABASE_URL"] = f"sqlite:///{scratch}"
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ajedrez.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


class Counter:
    """Counts every query any thread runs, and every legal-move generation."""

    def __init__(self) -> None:
        self.queries = 0
        self.legal_move_lists = 0
        self.lock = threading.Lock()
        self.on = False

    def install(self) -> None:
        from django.db.backends import utils

        from games import rules

        counter = self
        for cls in (utils.CursorWrapper, utils.CursorDebugWrapper):
            real = cls.execute

            def execute(self, *args, _real=real, **kwargs):
                if counter.on:
                    with counter.lock:
                        counter.queries += 1
                return _real(self, *args, **kwargs)

            cls.execute = execute  # type: ignore[method-assign]
        real_legal = rules.legal_moves

        def legal_moves(fen: str):
            if counter.on:
                with counter.lock:
                    counter.legal_move_lists += 1
            return real_legal(fen)

        rules.legal_moves = legal_moves  # type: ignore[assignment]

    def take(self) -> tuple[int, int]:
        taken = (self.queries, self.legal_move_lists)
        self.queries = self.legal_move_lists = 0
        return taken


async def measure(watchers: int, counter: Counter) -> dict[str, int]:
    from asgiref.sync import sync_to_async
    from channels.testing import WebsocketCommunicator
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from ajedrez.asgi import application
    from games import services
    from games.models import Challenge

    def make_players():
        User = get_user_model()
        made = [
            User.objects.create_user(name, password="x") for name in ("white", "black", "fan")
        ]
        challenge = services.challenge(challenger=made[1], challenged=made[0])
        game = services.accept_challenge(challenge_id=challenge.pk, player=made[0], colour="white")
        cookies = []
        for user in made:
            client = Client()
            client.force_login(user)
            name = settings.SESSION_COOKIE_NAME
            cookies.append(f"{name}={client.cookies[name].value}".encode())
        return made, game, cookies

    players, game, cookies = await sync_to_async(make_players)()
    white, black, _fan = players
    plies = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]
    for number, san in enumerate(plies, start=1):
        mover = white if number % 2 else black
        await sync_to_async(services.make_move)(
            game_id=game.pk, player=mover, move_number=number, move=san
        )
    assert await sync_to_async(Challenge.objects.count)() == 1

    async def connect(path: str, cookie: bytes) -> WebsocketCommunicator:
        comm = WebsocketCommunicator(
            application,
            path,
            headers=[(b"host", b"localhost"), (b"origin", b"http://localhost"),
                     (b"cookie", cookie)],
        )
        connected, _ = await comm.connect()
        assert connected
        await comm.receive_json_from(timeout=10)  # the snapshot, or the dashboard's hello
        return comm

    game_path = f"/ws/games/{game.pk}/"
    sockets = [await connect(game_path, cookies[0]), await connect(game_path, cookies[1])]
    sockets += [await connect(game_path, cookies[2]) for _ in range(watchers)]
    dashboards = [await connect("/ws/player/", cookie) for cookie in cookies[:2]]

    counter.on = True
    await sync_to_async(services.make_move)(
        game_id=game.pk, player=black, move_number=len(plies) + 1, move="Ng8"
    )
    move_queries, move_legal_lists = counter.take()
    for comm in sockets + dashboards:
        frame = await comm.receive_json_from(timeout=10)
        assert frame["type"] == "event", frame
    # Anything still running for the event (threads of the consumers) is done by now.
    await asyncio.sleep(0.2)
    event_queries, legal_lists = counter.take()
    counter.on = False
    for comm in sockets + dashboards:
        await comm.disconnect()
    return {
        "sockets": len(sockets) + len(dashboards),
        "move_queries": move_queries,
        "move_legal_lists": move_legal_lists,
        "event_queries": event_queries,
        "event_legal_lists": legal_lists,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watchers", type=int, default=10)
    args = parser.parse_args()
    setup_django()
    counter = Counter()
    counter.install()
    found = asyncio.run(measure(args.watchers, counter))
    print(
        f"2 players + {args.watchers} watchers on the game page, 2 dashboards "
        f"({found['sockets']} sockets), one move in a position where a draw may be claimable:"
    )
    print(
        f"  the move and its publication: {found['move_queries']} queries, "
        f"{found['move_legal_lists']} legal-destination lists"
    )
    print(
        f"  delivery to the sockets:      {found['event_queries']} queries, "
        f"{found['event_legal_lists']} legal-destination lists"
    )


if __name__ == "__main__":
    main()
