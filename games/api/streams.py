"""The API's ndjson streams: the event stream (``GET /api/stream/event``) and each
game's (``GET /api/{board|bot}/game/stream/{id}``).

Async views under Daphne: the answer is a ``StreamingHttpResponse`` over an async
iterator, fed by the channel layer. Each stream has a channel of its own, added to the
groups it listens to (a player's ``player-<id>`` for the event stream, a game's
``game-<id>-players`` for a game's; both also ``account-<id>``, so closing the account
ends them), and leaves them when it ends, whoever ends it: the client closing (Django
cancels the response's task, and the iterator's ``finally`` runs), the game ending, the
token revoked. An empty line every ``API_STREAM_KEEPALIVE_SECONDS`` (lichess: 7) keeps
proxies from closing a quiet stream; each also checks that the token still works.

What a line says is built by the read model (:mod:`games.state.lichess`), from the
database when an event asks for it: an event names what changed, the line is read once
per stream, as lichess's own streams read their game.
"""

from __future__ import annotations

import asyncio
import logging
import math
import weakref
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Any

from channels.layers import get_channel_layer
from django.conf import settings
from django.http import HttpRequest, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import tokens
from accounts.events import account_group
from accounts.tokens import TokenUse
from games import selectors
from games.api import gate
from games.api.ndjson import NDJSON, in_pool, ndjson
from games.api.seats import BOARD, BOT, game_for
from games.events import game_group, game_players_group, player_group
from games.models import Game
from games.state import lichess, lichess_reads

logger = logging.getLogger("games.api")

# A group membership expires after a day on both channel layers (``group_expiry``); a
# stream may stay open for weeks (a bot's event stream), so it joins its groups again
# every hour.
GROUP_REFRESH_SECONDS = 3600.0

# Streams open in this process, per token (API_STREAMS_PER_TOKEN).
open_streams: Counter[int] = Counter()


class TokenChecks:
    """Whether the tokens of this process's open streams still work, read for all of
    them in one query at most once per keep-alive, however many streams ask: one query
    per stream and keep-alive cost 700 idle streams 43 % of a core and tripled a move's
    time to a board stream meanwhile (``docs/benchmarks.md``). A revoked token's streams
    end within two keep-alives."""

    def __init__(self) -> None:
        self.checked_at = -math.inf
        self.checked: set[int] = set()
        self.valid: set[int] = set()
        self.refreshing: asyncio.Task[None] | None = None

    async def still_valid(self, token_id: int) -> bool:
        loop = asyncio.get_running_loop()
        stale = loop.time() - self.checked_at >= settings.API_STREAM_KEEPALIVE_SECONDS
        if stale or token_id not in self.checked:
            if self.refreshing is None or self.refreshing.done():
                self.refreshing = loop.create_task(self._refresh())
            # Shielded: a stream closing while it waits does not cancel the others' read.
            await asyncio.shield(self.refreshing)
        return token_id in self.valid

    async def _refresh(self) -> None:
        started = asyncio.get_running_loop().time()
        wanted = set(open_streams)
        self.valid = await in_pool(tokens.valid_among)(wanted)
        self.checked, self.checked_at = wanted, started


# One per event loop: Daphne runs one; each test has its own.
token_checks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, TokenChecks] = (
    weakref.WeakKeyDictionary()
)


async def token_still_valid(token_id: int) -> bool:
    loop = asyncio.get_running_loop()
    checks = token_checks.get(loop)
    if checks is None:
        checks = token_checks[loop] = TokenChecks()
    return await checks.still_valid(token_id)


class Subscription:
    """A channel of its own on the channel layer, in ``groups`` while open; the
    messages it receives wait in a queue, read by :meth:`next` with a time-out (the
    layer's own receive is never cancelled but once, when the subscription closes)."""

    def __init__(self, groups: Iterable[str]) -> None:
        self.groups = list(groups)
        self.layer = get_channel_layer()
        self.channel = ""
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.reader: asyncio.Task[None] | None = None
        self.joined_at = 0.0

    async def open(self) -> None:
        self.channel = await self.layer.new_channel("api-stream.")
        await self.join()
        self.reader = asyncio.ensure_future(self._read())

    async def join(self) -> None:
        for group in self.groups:
            await self.layer.group_add(group, self.channel)
        self.joined_at = asyncio.get_running_loop().time()

    async def _read(self) -> None:
        while True:
            self.queue.put_nowait(await self.layer.receive(self.channel))

    async def next(self, timeout: float) -> dict[str, Any] | None:
        """The next message, or None after ``timeout`` seconds without one."""
        if asyncio.get_running_loop().time() - self.joined_at > GROUP_REFRESH_SECONDS:
            await self.join()
        try:
            return await asyncio.wait_for(self.queue.get(), timeout)
        except TimeoutError:
            return None

    @property
    def broken(self) -> bool:
        """Whether the layer stopped delivering (Redis went away): the stream ends, and
        the client, as lichess's clients do, opens it again."""
        return self.reader is not None and self.reader.done()

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
            # Bounded: a layer's receive cancelled mid-wait must not hold the stream's
            # end (channels-redis's blocking pop once did not return at once).
            await asyncio.wait({self.reader}, timeout=5)
        if self.channel:
            for group in self.groups:
                try:
                    await self.layer.group_discard(group, self.channel)
                except Exception:
                    # The layer is down: its memberships expire by themselves.
                    logger.warning("could not leave %s", group, exc_info=True)


# What a stream does with each message: the lines to send, and whether it is over.
Handler = Callable[[dict[str, Any]], Awaitable[tuple[list[dict[str, Any]], bool]]]
Tick = Callable[[], Awaitable[list[dict[str, Any]]]]


async def _lines(
    token: TokenUse,
    subscription: Subscription,
    opening: Callable[[], Awaitable[tuple[list[dict[str, Any]], bool]]],
    handle: Handler,
    tick: Tick | None = None,
) -> AsyncIterator[bytes]:
    """The stream's body: the opening lines (read once subscribed, so nothing that
    happens meanwhile is missed), then a line per message, an empty line every
    keep-alive; until the handler says it is over, the token stops working, the account
    closes, or the client leaves.

    Everything the stream holds is taken here, inside the iterator, and given back in its
    ``finally``: a response whose body never starts (the client gone before its headers
    were sent) holds nothing."""
    open_streams[token.token_id] += 1
    try:
        await subscription.open()
        first, over = await opening()
        for line in first:
            yield ndjson(line)
        if not first:
            # Daphne sends the answer's headers with its first bytes: a stream with
            # nothing to say yet would leave its client waiting for them until the
            # first keep-alive (bench/api_streams.py). An empty line is a keep-alive.
            yield b"\n"
        while not over:
            message = await subscription.next(settings.API_STREAM_KEEPALIVE_SECONDS)
            if message is None:
                if subscription.broken:
                    logger.warning("an API stream's channel layer failed: stream closed")
                    return
                if not await token_still_valid(token.token_id):
                    return
                for line in await tick() if tick is not None else []:
                    yield ndjson(line)
                yield b"\n"
                continue
            if message.get("type") == "account.closed":
                return
            lines, over = await handle(message)
            for line in lines:
                yield ndjson(line)
    finally:
        await subscription.close()
        open_streams[token.token_id] -= 1
        if open_streams[token.token_id] <= 0:
            del open_streams[token.token_id]


def _respond(
    token: TokenUse,
    groups: list[str],
    opening: Callable[[], Awaitable[tuple[list[dict[str, Any]], bool]]],
    handle: Handler,
    tick: Tick | None = None,
) -> HttpResponseBase:
    limit = settings.API_STREAMS_PER_TOKEN
    if limit and open_streams[token.token_id] >= limit:
        return gate.error(
            _("Too many streams open with this token: close one first."),
            429,
            Retry_After="60",
        )
    response = StreamingHttpResponse(
        _lines(token, Subscription(groups), opening, handle, tick), content_type=NDJSON
    )
    # Proxies must pass each line on as it comes (nginx buffers otherwise).
    response["X-Accel-Buffering"] = "no"
    response["Cache-Control"] = "no-store"
    return response


# --------------------------------------------------------------------------- events


@gate.stream_endpoint("challenge:read", "bot:play", "board:play")
async def events(request: HttpRequest, token: TokenUse) -> HttpResponseBase:
    """``GET /api/stream/event``: every pending challenge and every game in progress
    when it opens, then ``challenge``, ``challengeCanceled``, ``challengeDeclined``,
    ``gameStart`` and ``gameFinish`` as they happen."""
    player = token.player
    # The stream listens before it reads what is waiting, so a challenge or a game made
    # in between arrives twice, in the opening and as news: each is told once.
    told: set[tuple[Any, Any]] = set()

    def once(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        fresh = []
        for line in lines:
            subject = line.get("challenge") or line.get("game") or {}
            key = (line.get("type"), subject.get("id"))
            if key not in told:
                told.add(key)
                fresh.append(line)
        return fresh

    async def opening() -> tuple[list[dict[str, Any]], bool]:
        lines = await in_pool(lichess_reads.opening_events)(player)
        return once(lines), False

    async def handle(message: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
        kind = message.get("type")
        if kind == "challenge.event":
            if message.get("event") == "challenge_accepted":
                return [], False  # its game's gameStart follows
            line = await in_pool(lichess_reads.challenge_event_of)(
                player, message["challenge"]["id"]
            )
            return once([line] if line is not None else []), False
        if kind == "game.event":
            game = message.get("game") or {}
            if message.get("event") == "game_started":
                wanted = "gameStart"
            elif game.get("status") == Game.Status.FINISHED:
                wanted = "gameFinish"
            else:
                return [], False
            line = await in_pool(lichess_reads.game_event)(
                player, game["id"], wanted
            )
            return once([line] if line is not None else []), False
        return [], False

    return _respond(token, [player_group(player.pk), account_group(player.pk)], opening, handle)


# --------------------------------------------------------------------------- games


class GameStream:
    """One player's stream of one game: what it has sent (the version and the moves),
    so that each event adds only what changed."""

    def __init__(self, token: TokenUse, game: Game) -> None:
        self.player = token.player
        self.game = game
        self.colour = game.colour_of(self.player.pk) or ""
        self.moves: list[str] = []
        self.version = -1
        self.gone_sent = False

    def read(self) -> tuple[Game, list[str]]:
        """The game now, and its moves (only those not read before)."""
        game = selectors.game(self.game.pk)
        moves = self.moves + lichess_reads.moves_uci(game, after=len(self.moves))
        return game, moves

    def full(self) -> dict[str, Any]:
        game, self.moves = self.read()
        self.game, self.version = game, game.version
        people = lichess_reads.people([game.white, game.black])
        return lichess.game_full(game, self.moves, people)

    def state(self) -> dict[str, Any] | None:
        game, moves = self.read()
        if game.version <= self.version and game.is_active == self.game.is_active:
            return None
        self.game, self.moves, self.version = game, moves, game.version
        return lichess.game_state(game, moves)

    def opponent_ran_out(self) -> bool:
        """Whether the opponent's clock, running, has passed its deadline: the win may
        be claimed (``claim-victory``) before the sweep ends the game."""
        game = self.game
        return (
            game.is_active
            and game.colour_on_clock != self.colour
            and game.deadline is not None
            and game.paused_at is None
            and game.deadline <= timezone.now()
        )


async def _game_stream(
    request: HttpRequest, token: TokenUse, game_id: str, api: str
) -> HttpResponseBase:
    found = await in_pool(game_for)(token, game_id, api)
    stream = GameStream(token, found)

    async def opening() -> tuple[list[dict[str, Any]], bool]:
        full = await in_pool(stream.full)()
        # A finished game: its gameFull, and the stream closes (lichess).
        return [full], not stream.game.is_active

    async def handle(message: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
        kind = message.get("type")
        if kind == "chat.message":
            return [lichess.chat_line(message["message"])], False
        if kind != "game.event" or message.get("version", 0) <= stream.version:
            return [], False
        line = await in_pool(stream.state)()
        lines = [line] if line is not None else []
        if stream.gone_sent and not stream.opponent_ran_out():
            stream.gone_sent = False
            lines.append(lichess.opponent_gone(gone=False))
        return lines, not stream.game.is_active

    async def tick() -> list[dict[str, Any]]:
        if stream.opponent_ran_out() and not stream.gone_sent:
            stream.gone_sent = True
            return [lichess.opponent_gone(gone=True, claim_in_seconds=0)]
        return []

    return _respond(
        token,
        [game_players_group(found.pk), account_group(token.player.pk)],
        opening,
        handle,
        tick,
    )


@gate.stream_endpoint("board:play")
async def board_game(request: HttpRequest, token: TokenUse, game_id: str) -> HttpResponseBase:
    """``GET /api/board/game/stream/{id}``: ``gameFull``, then ``gameState`` at every
    change, ``chatLine``, ``opponentGone`` when the opponent's time has run out; it
    closes when the game ends."""
    return await _game_stream(request, token, game_id, BOARD)


@gate.stream_endpoint("bot:play")
async def bot_game(request: HttpRequest, token: TokenUse, game_id: str) -> HttpResponseBase:
    """``GET /api/bot/game/stream/{id}``: as the Board API's, for a bot."""
    return await _game_stream(request, token, game_id, BOT)


# --------------------------------------------------------------------------- watchers


class WatchedGame:
    """A watcher's stream of one game (lichess's "stream moves of a game"): how many
    moves it has sent, so that each event adds only the new ones."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.sent = 0
        self.version = -1

    def description(self) -> dict[str, Any]:
        game = self.game
        last = lichess_reads.last_moves([game]).get(game.pk, "")
        people = lichess_reads.people([game.white, game.black])
        return lichess.watched_game(game, people, last_move=last)

    def opening(self) -> list[dict[str, Any]]:
        """The description; for a game in progress, its start and each position since."""
        self.game = selectors.game(self.game.pk)
        self.version = self.game.version
        lines = [self.description()]
        if self.game.is_active:
            lines.append(lichess.watched_position(self.game, self.game.start_fen, None))
            lines += self.news()
        return lines

    def news(self) -> list[dict[str, Any]]:
        """A line per move played since the last sent; the description again once the
        game has ended (lichess's last line)."""
        game = self.game
        positions = lichess_reads.positions_after(game, after=self.sent)
        self.sent += len(positions)
        lines = [lichess.watched_position(game, fen, uci) for uci, fen in positions]
        if not game.is_active:
            lines.append(self.description())
        return lines

    def changed(self) -> list[dict[str, Any]]:
        game = selectors.game(self.game.pk)
        if game.version <= self.version and game.is_active == self.game.is_active:
            return []
        self.game, self.version = game, game.version
        return self.news()


@gate.stream_endpoint()
async def watch_game(request: HttpRequest, token: TokenUse, game_id: str) -> HttpResponseBase:
    """``GET /api/stream/game/{id}``: the game's description, then its positions (the
    start and each move since, then each new move), and the description again when it
    ends, which closes the stream; a finished game's description alone. Any token: every
    game is public here, and no engine data is in it."""
    found = await in_pool(lichess_reads.any_game)(game_id)
    watched = WatchedGame(found)

    async def opening() -> tuple[list[dict[str, Any]], bool]:
        lines = await in_pool(watched.opening)()
        return lines, not watched.game.is_active

    async def handle(message: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
        if message.get("type") != "game.event" or message.get("version", 0) <= watched.version:
            return [], False
        lines = await in_pool(watched.changed)()
        return lines, not watched.game.is_active

    return _respond(
        token, [game_group(found.pk), account_group(token.player.pk)], opening, handle
    )
