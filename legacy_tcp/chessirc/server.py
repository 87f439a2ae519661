"""chessirc (seed 004): the server the IRC bot talks to, on the shared
:class:`~legacy_tcp.transport.server.LineServer`.

One connection is one session for one IRC channel (at most one session per channel):
the bot relays its players' requests, each naming its nick, and shows the replies in the
channel. The nicks play as the channel's guests, or as accounts linked to them
(``docs/protocols/guests.md``). Each reply is built by the codec from what one service or
selector call returned. Decisions are in ``docs/protocols/chessirc.md``.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any

from accounts.errors import DomainError
from accounts.types import Player
from accounts.validators import channel_validator
from games import errors, rules, selectors, services
from games.models import Game
from legacy_tcp import guests
from legacy_tcp.chessirc import codec
from legacy_tcp.models import Gateway
from legacy_tcp.transport.following import PasswordlessGateway
from legacy_tcp.transport.server import Connection

GATEWAY = Gateway.CHESSIRC.value
DEFAULT = "default"


# --------------------------------------------------------------------------- database work


@dataclass(frozen=True)
class GameView:
    """A game as a reply needs it: position, status, the moves so far in SAN."""

    id: int
    public_id: str
    version: int
    fen: str
    start_fen: str
    status: str
    result: str
    termination: str
    draw_offer_by: str
    sans: tuple[str, ...]

    @property
    def finished(self) -> bool:
        return self.status != Game.Status.ACTIVE


def view(game_id: int) -> GameView:
    game = selectors.game(game_id)
    sans = tuple(selectors.moves(game_id).values_list("san", flat=True))
    return GameView(
        game.pk,
        game.public_id,
        game.version,
        game.fen,
        game.start_fen,
        game.status,
        game.result,
        game.termination,
        game.draw_offer_by,
        sans,
    )


def register(nick: str, channel: str, trusted: bool) -> Player:
    return guests.player_for(gateway=GATEWAY, name=nick, channel=channel, trusted=trusted)


def start(white: Player, black: Player, fen: str, site: str) -> GameView:
    game = services.start_gateway_game(white=white, black=black, initial_fen=fen, site=site)
    return view(game.pk)


def move(game_id: int, player: Player, text: str) -> GameView:
    services.make_move(
        game_id=game_id, player=player, move_number=None, move=text, withdraws_offer=True
    )
    return view(game_id)


def draw(game_id: int, player: Player) -> tuple[str, GameView]:
    what, _game = services.offer_or_accept_draw(game_id=game_id, player=player)
    return what, view(game_id)


def resign(game_id: int, player: Player) -> GameView:
    services.resign(game_id=game_id, player=player)
    return view(game_id)


def abandon(game_id: int) -> None:
    """The session closed with its game unfinished: lost by the guest it waited for."""
    with contextlib.suppress(errors.GameNotFound):
        services.leave_gateway_game(game_id=game_id)


# --------------------------------------------------------------------------- the server


@dataclass(eq=False)
class Session:
    peer: str
    admitted: bool = False
    channel: str | None = None
    # Registered nicks in order (white first) and the accounts they play as.
    nicks: list[str] = field(default_factory=list)
    players: list[Player] = field(default_factory=list)
    game_id: int | None = None
    # The last version of the game this connection was told of (see legacy_tcp.transport.following).
    version: int = 0
    closed: bool = False


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
            await self.run_in_db(abandon, session.game_id)
        await self._end_session(conn)

    async def _end_session(self, conn: Connection) -> None:
        session: Session = conn.session
        if session.channel is not None and self.channels.get(session.channel) is conn:
            del self.channels[session.channel]
        if session.game_id is not None:
            await self.unfollow(conn, session.game_id)
        session.channel = None
        session.game_id = None
        session.nicks, session.players = [], []

    # ------------------------------------------------------------------ other doors

    def _nick_of(self, session: Session, colour: str | None) -> str:
        return session.nicks[0 if colour == rules.WHITE else 1]

    async def event_data(self, conn: Connection, message: dict[str, Any]) -> bytes:
        """A change made through another door (a linked account in the browser), as the
        reply the bot would have had, sent unasked."""
        session: Session = conn.session
        assert session.game_id is not None
        event, by = message["event"], message.get("by")
        game = await self.run_in_db(view, session.game_id)
        if event == "move" and not game.finished:
            return self._position(session, game, rules.colour_to_move(game.fen))
        if event == "draw_offered":
            nick = self._nick_of(session, by)
            other = self._nick_of(session, rules.BLACK if by == rules.WHITE else rules.WHITE)
            return codec.message(
                f"'{nick}' ofrece tablas. '{other}' puede aceptarlas con DRAW {other}."
            )
        if event == "draw_declined":
            return codec.message(f"'{self._nick_of(session, by)}' rechaza las tablas.")
        if not game.finished:
            return b""
        if event == "move":
            ending = codec.ENDINGS.get(game.termination, "Fin de la partida.")
            return await self._ended(conn, game, ending, board=True)
        text = {
            "resigned": f"'{self._nick_of(session, by)}' abandona.",
            "abandoned": f"'{self._nick_of(session, by)}' abandona.",
            "draw_accepted": f"'{self._nick_of(session, by)}' acepta las tablas.",
        }.get(event, "Fin de la partida.")
        return await self._ended(conn, game, text, board=False)

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
                data = codec.message(codec.DOMAIN_ERRORS.get(exc.code, codec.SERVER_ERROR))
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
            return self._authenticate(session, args[0]), False
        if not session.admitted:
            return codec.message(codec.SECRET_REQUIRED), False
        if verb == "CLOSE":
            return await self._close(conn), True
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
        if verb == "POSITION":
            return codec.message((await self.run_in_db(view, session.game_id)).fen), False
        if verb == "PGN":
            game = await self.run_in_db(view, session.game_id)
            return codec.message(f"La partida se ha guardado en {game.public_id}.pgn."), False
        if verb == "BOARD":
            side = {"WHITE": rules.WHITE, "BLACK": rules.BLACK}.get(args[0].upper())
            if side is None:
                return codec.message(codec.SIDE_EXPECTED), False
            game = await self.run_in_db(view, session.game_id)
            return self._position(session, game, side), False
        player = self._player(session, args[0])
        if player is None:
            return codec.message(f"'{args[0]}' no juega esta partida."), False
        if verb == "MOVE":
            return await self._move(conn, player, args[0], args[1])
        if verb == "DRAW":
            return await self._draw(conn, player, args[0])
        game = await self.run_in_db(resign, session.game_id, player)
        return await self._ended(conn, game, f"'{args[0]}' abandona.", board=False), True

    def _authenticate(self, session: Session, secret: str) -> bytes:
        if self.admit(session, secret):
            return codec.message(codec.SECRET_ACCEPTED)
        return codec.message(codec.WRONG_SECRET)

    async def _close(self, conn: Connection) -> bytes:
        session: Session = conn.session
        channel = session.channel
        if session.game_id is not None:
            await self.run_in_db(abandon, session.game_id)
        await self._end_session(conn)
        if channel is None:
            return codec.message("Se ha cerrado la conexión.")
        return codec.message(f"Se ha cerrado la sesión en {channel}.")

    def _open_session(self, conn: Connection, channel: str) -> bytes:
        session: Session = conn.session
        if session.channel is not None:
            return codec.message(f"Ya hay una sesión iniciada en {session.channel}.")
        if not channel.startswith("#"):
            return codec.message(codec.CHANNEL_NEEDS_HASH)
        try:
            channel_validator(channel[1:])
        except Exception:
            return codec.message(codec.INVALID_CHANNEL)
        if channel in self.channels:
            return codec.message(f"Ya hay una sesión en {channel}.")
        self.channels[channel] = conn
        session.channel = channel
        return codec.message(f"Se ha iniciado una sesión en {channel}.")

    async def _register(self, session: Session, nick: str) -> bytes:
        if session.game_id is not None or len(session.nicks) == 2:
            return codec.message(codec.BOTH_REGISTERED)
        if nick in session.nicks:
            return codec.message(f"'{nick}' ya está registrado.")
        if len(nick) > codec.NICK_MAX:
            return codec.message(codec.INVALID_NICK)
        assert session.channel is not None
        player = await self.run_in_db(register, nick, session.channel[1:], self.trusted)
        if player in session.players:
            return codec.message(codec.DOMAIN_ERRORS["self_challenge"])
        session.nicks.append(nick)
        session.players.append(player)
        side = "Blancas" if len(session.nicks) == 1 else "Negras"
        return codec.message(f"Se ha registrado '{nick}' para jugar con {side}.")

    async def _start(self, conn: Connection, nick: str, position: str) -> bytes:
        session: Session = conn.session
        if session.game_id is not None:
            return codec.message(codec.ALREADY_STARTED)
        if nick not in session.nicks:
            return codec.message(f"'{nick}' no está registrado en esta partida.")
        if len(session.nicks) < 2:
            return codec.message(codec.MISSING_PLAYER)
        fen = "" if position.lower() == DEFAULT else position
        game = await self.run_in_db(
            start, session.players[0], session.players[1], fen, session.channel
        )
        session.game_id = game.id
        session.version = game.version
        await self.follow(conn, game.id)
        # After START the board is shown from White's side, whoever is to move.
        return self._position(session, game, rules.WHITE, history=False)

    def _player(self, session: Session, nick: str) -> Player | None:
        if nick not in session.nicks:
            return None
        return session.players[session.nicks.index(nick)]

    def _nick_to_move(self, session: Session, fen: str) -> str:
        return session.nicks[0 if rules.colour_to_move(fen) == rules.WHITE else 1]

    def _position(
        self, session: Session, game: GameView, side: str, *, history: bool = True
    ) -> bytes:
        status = codec.to_move(
            rules.colour_to_move(game.fen),
            self._nick_to_move(session, game.fen),
            rules.in_check(game.fen),
        )
        return codec.board_reply(
            self._history(game) if history else "", status, game.fen, side
        )

    @staticmethod
    def _history(game: GameView) -> str:
        return codec.history_line(
            game.sans, rules.colour_to_move(game.start_fen) == rules.WHITE
        )

    async def _move(
        self, conn: Connection, player: Player, nick: str, text: str
    ) -> tuple[bytes, bool]:
        session: Session = conn.session
        assert session.game_id is not None
        game = await self.run_in_db(view, session.game_id)
        if self._nick_to_move(session, game.fen) != nick:
            return codec.message(f"No es el turno de '{nick}'."), False
        game = await self.run_in_db(move, session.game_id, player, text)
        session.version = max(session.version, game.version)
        if game.finished:
            ending = codec.ENDINGS.get(game.termination, "Fin de la partida.")
            return await self._ended(conn, game, ending, board=True), True
        side = rules.colour_to_move(game.fen)
        return self._position(session, game, side), False

    async def _draw(self, conn: Connection, player: Player, nick: str) -> tuple[bytes, bool]:
        session: Session = conn.session
        what, game = await self.run_in_db(draw, session.game_id, player)
        session.version = max(session.version, game.version)
        if what == "offered":
            other = session.nicks[1] if session.nicks[0] == nick else session.nicks[0]
            return codec.message(
                f"'{nick}' ofrece tablas. '{other}' puede aceptarlas con DRAW {other}."
            ), False
        return await self._ended(conn, game, f"'{nick}' acepta las tablas.", board=False), True

    async def _ended(
        self, conn: Connection, game: GameView, text: str, *, board: bool
    ) -> bytes:
        """The game is over: the reply says so, and the session ends with it."""
        lines = codec.ending_lines(text, game.result, f"{game.public_id}.pgn")
        if board:
            side = rules.colour_to_move(game.fen)
            data = codec.board_reply(self._history(game), "\n".join(lines), game.fen, side)
        else:
            data = codec.reply(*lines)
        await self._end_session(conn)
        return data
