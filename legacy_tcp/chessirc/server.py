"""chessirc (seed 004): the server the IRC bot talks to, on the shared
:class:`~legacy_tcp.transport.server.LineServer`.

One connection is one session for one IRC channel (at most one session per channel):
the bot relays its players' requests, each naming its nick, and shows the replies in the
channel. The nicks play as the channel's guests, or as accounts linked to them
(``docs/protocols/guests.md``). Each request is one call of :mod:`.handlers` (a service
or the read model), and each reply is built by the codec from what it returned; what
other doors do reaches the bot from the live event alone. Decisions are in
``docs/protocols/chessirc.md``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from accounts.types import Player
from accounts.validators import channel_validator
from ajedrez.core.errors import DomainError
from games.state import gateways
from games.state.gateways import GatewayGame
from legacy_tcp.chessirc import codec, handlers
from legacy_tcp.transport.connection import Connection
from legacy_tcp.transport.passwordless import PasswordlessGateway, SecretCheck

DEFAULT = "default"
WHITE, BLACK = "white", "black"


@dataclass(eq=False)
class Session:
    peer: str
    admitted: bool = False
    channel: str | None = None
    # Registered nicks in order (white first) and the accounts they play as.
    nicks: list[str] = field(default_factory=list)
    players: list[Player] = field(default_factory=list)
    game_id: int | None = None
    # The last version of the game this connection was told of (see
    # legacy_tcp.transport.following), and the last move it was told of (number, SAN).
    version: int = 0
    last_move: tuple[int, str] | None = None
    closed: bool = False

    def nick_of(self, colour: str | None) -> str:
        return self.nicks[0 if colour == WHITE else 1]

    def told(self, game: GatewayGame) -> None:
        """Remember what the connection was just told of ``game``."""
        self.version = max(self.version, game.version)
        if game.last_sans:
            self.last_move = (game.plies, game.last_sans[-1])


class ChessircServer(PasswordlessGateway):
    name = "chessirc"
    refusal = codec.message(codec.BUSY)
    max_line = codec.MAX_LINE
    setting_prefix = "CHESSIRC"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Channel → the connection holding its session.
        self.channels: dict[str, Connection] = {}

    def new_session(self, peer: str) -> Session:
        return Session(peer=peer, admitted=not self.secret)

    def session_user(self, conn: Connection) -> str | None:
        return codec.log_value(conn.session.channel)

    def overlong_reply(self, conn: Connection) -> bytes:
        self._log(logging.INFO, "command peer=%s command=<overlong>", conn.peer)
        return codec.message(codec.TOO_LONG)

    async def closed(self, conn: Connection) -> None:
        session: Session = conn.session
        session.closed = True
        if session.game_id is not None:
            await self.run_in_db(handlers.abandon, session.game_id)
        await self._end_session(conn)

    async def _end_session(self, conn: Connection) -> None:
        session: Session = conn.session
        if session.channel is not None and self.channels.get(session.channel) is conn:
            del self.channels[session.channel]
        if session.game_id is not None:
            await self.unfollow(conn, session.game_id)
        session.channel = None
        session.game_id = None
        session.last_move = None
        session.nicks, session.players = [], []

    # ------------------------------------------------------------------ other doors

    async def event_data(self, conn: Connection, message: dict[str, Any]) -> bytes:
        """A change made through another door (a linked account in the browser), as the
        reply the bot would have had, sent unasked: built from the event's message."""
        session: Session = conn.session
        assert session.game_id is not None
        event, by = message["event"], message.get("by", "")
        move = message.get("move")
        previous = None
        if move is not None and session.last_move is not None:
            number, san = session.last_move
            previous = san if number == move["number"] - 1 else None
        if move is not None and (
            # The event's state is after a later move too (a conditional reply), or the
            # connection was not told of the move before: the event does not show the
            # move pair, so it is read (the one case the event does not suffice).
            move["number"] != message["game"]["next_move_number"] - 1
            or (previous is None and move["number"] > 1)
        ):
            game = await self.run_in_db(handlers.read, session.game_id)
        else:
            game = gateways.from_event(message, previous_san=previous)
        session.told(game)
        if event == "move" and not game.finished:
            return self._position(session, game, game.turn)
        if event == "draw_offered":
            return codec.draw_offered(by, session.nick_of(by))
        if event == "draw_declined":
            return codec.draw_declined(session.nick_of(by))
        if not game.finished:
            return b""
        if event == "move":
            return await self._ended(conn, game, codec.ending(game.termination), board=True)
        text = {
            "resigned": codec.resigned,
            "abandoned": codec.resigned,
            "draw_accepted": codec.draw_accepted,
        }.get(event)
        ending = text(session.nick_of(by)) if text is not None else codec.GAME_OVER
        return await self._ended(conn, game, ending, board=False)

    async def game_over(self, conn: Connection) -> None:
        # The session ended with the game, as it does after a reply that ends it.
        conn.writer.close()

    async def answer(self, conn: Connection, line: bytes) -> tuple[bytes, bool]:
        request = codec.parse_line(line)
        conn.commands += 1
        close = False
        if isinstance(request, codec.ParseError):
            data = codec.message(request.message)
        else:
            try:
                data, close = await self._answer(conn, request)
            except DomainError as exc:
                nick = request.args[0] if request.args else ""
                data = codec.refusal(exc.code, nick)
            except Exception:
                self.log.exception(
                    "chessirc.error peer=%s channel=%s verb=%s",
                    conn.peer,
                    codec.log_value(conn.session.channel),
                    request.verb,
                )
                data = codec.message(codec.SERVER_ERROR)
        self._log(
            logging.INFO,
            "command peer=%s channel=%s verb=%s close=%s",
            conn.peer,
            codec.log_value(conn.session.channel),
            "<ParseError>" if isinstance(request, codec.ParseError) else request.verb,
            close,
        )
        return data, close

    async def _answer(self, conn: Connection, request: codec.Request) -> tuple[bytes, bool]:
        session: Session = conn.session
        verb, args = request.verb, request.args
        if verb == "AUTH":
            return await self._authenticate(conn, args[0]), False
        if not session.admitted:
            return codec.message(codec.SECRET_REQUIRED), False
        if verb == "CLOSE":
            # The original closes the connection without a reply.
            await self._close(conn)
            return b"", True
        if verb == "SESSION":
            return self._open_session(conn, args[0]), False
        if session.channel is None:
            return codec.message(codec.NO_SESSION), False
        if verb == "REGISTER":
            return await self._register(session, args[0]), False
        if verb == "START":
            return await self._start(conn, *args), False
        if session.game_id is None:
            return codec.message(codec.NOT_STARTED), False
        if verb in ("POSITION", "PGN", "BOARD"):
            return await self._show(session, verb, args), False
        player = self._player(session, args[0])
        if player is None:
            return codec.not_playing(args[0]), False
        if verb == "MOVE":
            return await self._move(conn, player, args[1])
        if verb == "DRAW":
            return await self._draw(conn, player, args[0])
        game = await self.run_in_db(handlers.resign, session.game_id, player)
        return await self._ended(conn, game, codec.resigned(args[0]), board=False), True

    async def _authenticate(self, conn: Connection, secret: str) -> bytes:
        check = await self.admit(conn, secret)
        if check is SecretCheck.ADMITTED:
            return codec.message(codec.SECRET_ACCEPTED)
        if check is SecretCheck.NOT_NOW:
            return codec.message(codec.SECRET_NOT_CHECKED)
        return codec.message(codec.WRONG_SECRET)

    async def _close(self, conn: Connection) -> None:
        session: Session = conn.session
        if session.game_id is not None:
            await self.run_in_db(handlers.abandon, session.game_id)
        await self._end_session(conn)

    def _open_session(self, conn: Connection, channel: str) -> bytes:
        session: Session = conn.session
        if session.channel is not None:
            return codec.session_already_open(session.channel)
        if not channel.startswith("#"):
            return codec.message(codec.CHANNEL_NEEDS_HASH)
        try:
            channel_validator(channel[1:])
        except Exception:
            return codec.message(codec.INVALID_CHANNEL)
        if channel in self.channels:
            return codec.channel_taken(channel)
        self.channels[channel] = conn
        session.channel = channel
        return codec.session_opened(channel)

    async def _register(self, session: Session, nick: str) -> bytes:
        if session.game_id is not None or len(session.nicks) == 2:
            return codec.message(codec.BOTH_REGISTERED)
        if nick in session.nicks:
            return codec.already_registered(nick)
        if len(nick) > codec.NICK_MAX:
            return codec.message(codec.INVALID_NICK)
        assert session.channel is not None
        player = await self.run_in_db(
            handlers.register, nick, session.channel[1:], self.trusted
        )
        if player in session.players:
            return codec.refusal("self_challenge")
        session.nicks.append(nick)
        session.players.append(player)
        return codec.registered(nick, WHITE if len(session.nicks) == 1 else BLACK)

    async def _start(self, conn: Connection, nick: str, position: str) -> bytes:
        session: Session = conn.session
        if session.game_id is not None:
            return codec.message(codec.ALREADY_STARTED)
        if nick not in session.nicks:
            return codec.not_registered(nick)
        if len(session.nicks) < 2:
            return codec.message(codec.MISSING_PLAYER)
        fen = "" if position.lower() == DEFAULT else position
        game = await self.run_in_db(
            handlers.start, session.players[0], session.players[1], fen, session.channel
        )
        session.game_id = game.id
        session.told(game)
        await self.follow(conn, game.id)
        # After START the board is shown from White's side, whoever is to move.
        return self._position(session, game, WHITE, history=False)

    async def _show(self, session: Session, verb: str, args: tuple[str, ...]) -> bytes:
        """POSITION, PGN and BOARD: the game as it is now."""
        assert session.game_id is not None
        side = None
        if verb == "BOARD":
            side = {"WHITE": WHITE, "BLACK": BLACK}.get(args[0].upper())
            if side is None:
                return codec.message(codec.SIDE_EXPECTED)
        game = await self.run_in_db(handlers.read, session.game_id)
        if verb == "POSITION":
            return codec.message(game.fen)
        if verb == "PGN":
            return codec.message(codec.pgn_saved(game.public_id))
        assert side is not None
        return self._position(session, game, side)

    def _player(self, session: Session, nick: str) -> Player | None:
        if nick not in session.nicks:
            return None
        return session.players[session.nicks.index(nick)]

    def _position(
        self, session: Session, game: GatewayGame, side: str, *, history: bool = True
    ) -> bytes:
        status = codec.to_move(game.turn, session.nick_of(game.turn), game.in_check)
        return codec.board_reply(
            self._history(game) if history else "", status, game.fen, side
        )

    @staticmethod
    def _history(game: GatewayGame) -> str:
        return codec.history_line(game.last_sans, game.plies, game.white_first)

    async def _move(self, conn: Connection, player: Player, text: str) -> tuple[bytes, bool]:
        session: Session = conn.session
        assert session.game_id is not None
        game = await self.run_in_db(handlers.move, session.game_id, player, text)
        session.told(game)
        if game.finished:
            return await self._ended(conn, game, codec.ending(game.termination), board=True), True
        return self._position(session, game, game.turn), False

    async def _draw(self, conn: Connection, player: Player, nick: str) -> tuple[bytes, bool]:
        session: Session = conn.session
        what, game = await self.run_in_db(handlers.draw, session.game_id, player)
        session.told(game)
        if what == "offered":
            colour = WHITE if session.nicks[0] == nick else BLACK
            return codec.draw_offered(colour, nick), False
        return await self._ended(conn, game, codec.draw_accepted(nick), board=False), True

    async def _ended(
        self, conn: Connection, game: GatewayGame, text: str, *, board: bool
    ) -> bytes:
        """The game is over: the reply says so, and the session ends with it."""
        lines = codec.ending_lines(text, game.result, game.public_id)
        if board:
            data = codec.board_reply(self._history(game), "\n".join(lines), game.fen, game.turn)
        else:
            data = codec.reply(*lines)
        await self._end_session(conn)
        return data
