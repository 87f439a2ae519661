"""The archive's PGN download as a server sends it: streamed a batch of games at a time
(under ASGI too), one download at a time per player, the slot freed however it ends."""

from __future__ import annotations

import asyncio

import pytest
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler
from django.db import connections
from django.db.backends.signals import connection_created
from django.test import Client
from django.urls import reverse

from games import pgn_export, services, state
from games.models import Game


@pytest.fixture
def finished(alice, bob, start_game, play):
    """Three of alice's finished games, one batch each."""
    games = []
    for opening in (("e4", "e5"), ("d4", "d5"), ("c4", "c5")):
        game = play(start_game(alice, bob), *opening)
        games.append(services.resign(game_id=game.pk, player=bob))
    return games


@pytest.fixture
def one_game_a_batch(monkeypatch):
    monkeypatch.setattr(pgn_export, "BATCH_GAMES", 1)


def url() -> str:
    return reverse("player_archive_pgn", args=["alice"])


def expected(games: list[Game]) -> str:
    latest_first = sorted(games, key=lambda g: (g.finished_at, g.pk), reverse=True)
    return "".join(state.game_pgn(g) + "\n\n" for g in latest_first)


def test_the_download_is_streamed_a_batch_at_a_time(as_bob, finished, one_game_a_batch):
    response = as_bob.get(url())
    assert response.status_code == 200
    assert response.streaming
    chunks = list(response.streaming_content)  # the test client closes it at the end
    assert len(chunks) == 3
    assert b"".join(chunks).decode() == expected(finished)


def test_a_second_download_by_the_same_player_is_refused_while_one_runs(
    as_bob, bob, finished, one_game_a_batch
):
    running = as_bob.get(url())
    next(iter(running.streaming_content))  # under way
    refused = _logged_in(bob).get(url())  # another tab, same player
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "already downloading" in refused.content.decode()
    go_away(running)


def test_the_refusal_speaks_the_players_language(as_bob, bob, finished, settings):
    settings.LANGUAGE_CODE = "es"
    running = as_bob.get(url())
    refused = _logged_in(bob).get(url())
    assert refused.status_code == 429
    assert "Ya estás descargando un archivo PGN" in refused.content.decode()
    go_away(running)


def test_another_players_download_is_not_affected(as_bob, as_carol, finished):
    running = as_bob.get(url())
    other = as_carol.get(url())
    assert other.status_code == 200
    assert b"".join(other.streaming_content).decode() == expected(finished)
    go_away(running)


def test_the_slot_is_freed_when_the_download_finishes(as_bob, finished):
    first = as_bob.get(url())
    b"".join(first.streaming_content)
    again = as_bob.get(url())
    assert again.status_code == 200


def test_the_slot_is_freed_when_the_client_goes_away_mid_download(
    as_bob, finished, one_game_a_batch
):
    first = as_bob.get(url())
    next(iter(first.streaming_content))
    go_away(first)
    again = as_bob.get(url())
    assert again.status_code == 200


def test_a_download_with_bad_filters_takes_no_slot(as_bob, finished):
    assert as_bob.get(url(), {"colour": "green"}).status_code == 400
    assert as_bob.get(url()).status_code == 200


def go_away(response) -> None:
    """What a WSGI server does when the client disconnects mid-download: stop reading
    and close the response. Done through the test client's own wrapper of the content,
    which closes the response without closing the test's database connection."""
    response._iterator.close()


def _logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --------------------------------------------------------------------------- under ASGI


def asgi_download(user, *, stop_after_first_chunk: bool) -> list[dict]:
    """GET the download through Django's ASGI handler, as Daphne calls it; with
    ``stop_after_first_chunk`` the client stops reading after the first piece of the body
    and then goes away. Returns the messages sent."""
    client = _logged_in(user)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    path = url()
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), (b"cookie", cookie.encode())],
        "client": ("127.0.0.1", 40000),
        "server": ("testserver", 80),
    }
    sent: list[dict] = []

    async def run() -> None:
        gone = asyncio.Event()
        requested = False

        async def receive() -> dict:
            nonlocal requested
            if not requested:
                requested = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            sent.append(message)
            if stop_after_first_chunk and message["type"] == "http.response.body":
                gone.set()
                await asyncio.Event().wait()  # the client reads no more

        await ASGIHandler()(scope, receive, send)

    # A loop of its own, as Daphne's: the handler's synchronous work then runs in a thread
    # of the request's (async_to_sync would run it in this test's thread instead).
    asyncio.run(run())
    return sent


@pytest.fixture
def opened_connections():
    """The database connections opened (in any thread) while the test runs."""
    opened = []

    def record(sender, connection, **kwargs):
        opened.append(connection)

    connection_created.connect(record)
    yield opened
    connection_created.disconnect(record)


@pytest.mark.django_db(transaction=True)
def test_under_asgi_the_file_is_sent_as_it_is_read(bob, finished, one_game_a_batch, monkeypatch):
    read = []
    batch_text = pgn_export.batch_text

    def counted(ids):
        read.append(list(ids))
        return batch_text(ids)

    monkeypatch.setattr(pgn_export, "batch_text", counted)
    sent = asgi_download(bob, stop_after_first_chunk=True)
    assert sent[0]["status"] == 200
    bodies = [m for m in sent if m["type"] == "http.response.body"]
    # The first game went out before the others were read, and they never were.
    assert len(bodies) == 1 and bodies[0]["body"]
    assert len(read) == 1


@pytest.mark.django_db(transaction=True)
def test_under_asgi_a_client_that_goes_away_frees_the_slot_and_its_connection(
    bob, finished, one_game_a_batch, opened_connections
):
    asgi_download(bob, stop_after_first_chunk=True)
    assert pgn_export.take_slot(bob.pk) is not None
    # Every connection the request's threads opened was closed with it: none is left
    # open, in a transaction or not.
    request_connections = [c for c in opened_connections if c is not connections["default"]]
    assert request_connections
    assert all(c.connection is None for c in request_connections)


@pytest.mark.django_db(transaction=True)
def test_under_asgi_the_whole_file_arrives(bob, finished, one_game_a_batch):
    sent = asgi_download(bob, stop_after_first_chunk=False)
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    assert body.decode() == expected(finished)
    assert pgn_export.take_slot(bob.pk) is not None
