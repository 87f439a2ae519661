"""The ``#`` protocol gateway of Ajedrez Distribuido v1.0 (seed 001), on the shared
:class:`~legacy_tcp.transport.server.LineServer`.

Registrants are paired as they arrive: the first waits with white, the next plays black
against them, the one after waits again. Each connection is one player (its ``codigo``
is the name it registered, valid on that connection only) or one watcher. Everything
that happens to a followed game, through this door or any other (the browser, ESPOL, the
admin), reaches the connection the way it reaches a browser: the channel layer's event
for the game, turned into the protocol's lines by the codec. A connection remembers the
last version of its game it was told about, so the reply to its own move and the event
of that same move are not both sent.

Each command is one call in :mod:`.handlers` (a service or the read model), run on a
database thread through :meth:`LineServer.run_in_db`. Decisions are in
``docs/protocols/distribuido.md``.
"""

from __future__ import annotations

import hmac
import logging
from dataclasses import dataclass
from typing import Any

from accounts.types import Player
from ajedrez.core.errors import DomainError
from games.state import gateways
from legacy_tcp.distribuido import codec, handlers
from legacy_tcp.transport.connection import Connection
from legacy_tcp.transport.passwordless import PasswordlessGateway, SecretCheck

# --------------------------------------------------------------------------- the server


@dataclass(eq=False)
class Session:
    peer: str
    # Past the shared secret (always, when the server requires none).
    admitted: bool = False
    # The registered name: the player's codigo, valid on this connection only; and the
    # field it was registered with (``nombre:llave`` for a linked name), a codigo too.
    name: str | None = None
    registered_as: str | None = None
    player: Player | None = None
    guest: bool = True
    colour: str | None = None
    # The clock asked for at registration (days per move; None: no clock).
    days: int | None = None
    # The game played or watched, and its last version this connection was told of.
    game_id: int | None = None
    watching: bool = False
    version: int = 0
    closed: bool = False


class DistribuidoServer(PasswordlessGateway):
    name = "distribuido"
    refusal = codec.nok(codec.BUSY)
    max_line = codec.MAX_LINE
    setting_prefix = "DISTRIBUIDO"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Names registered on open connections, and the registrant waiting for a game,
        # one per clock asked for (days per move, or None for no clock).
        self.names: dict[str, Connection] = {}
        self.waiting: dict[int | None, Connection] = {}

    # ------------------------------------------------------------------ hooks

    def new_session(self, peer: str) -> Session:
        return Session(peer=peer, admitted=not self.secret)

    def session_user(self, conn: Connection) -> str | None:
        return codec.log_value(conn.session.name)

    def overlong_reply(self, conn: Connection) -> bytes:
        self._log(logging.INFO, "command peer=%s command=<overlong>", conn.peer)
        return codec.nok(codec.TOO_LONG)

    async def answer(self, conn: Connection, line: bytes) -> tuple[bytes, bool]:
        command = codec.parse_line(line)
        conn.commands += 1
        if isinstance(command, codec.ParseError):
            reply = codec.nok(command.message)
        else:
            reply = await self._answer(conn, command)
        self._log(
            logging.INFO,
            "command peer=%s user=%s command=%s reply=%s",
            conn.peer,
            codec.log_value(conn.session.name),
            "<ParseError>" if isinstance(command, codec.ParseError) else command.name,
            reply.split(b"#")[1].decode(),
        )
        return reply, False

    async def closed(self, conn: Connection) -> None:
        session: Session = conn.session
        session.closed = True
        if self.waiting.get(session.days) is conn:
            del self.waiting[session.days]
        if session.game_id is not None and not session.watching and session.guest:
            # Nothing can bring a guest back to its game: it is lost by abandonment.
            await self.run_in_db(handlers.abandon, session.game_id, session.player)
        await self._unfollow(conn)
        if session.name is not None and self.names.get(session.name) is conn:
            del self.names[session.name]

    # ------------------------------------------------------------------ commands

    async def _answer(self, conn: Connection, command: codec.Command) -> bytes:
        session: Session = conn.session
        if isinstance(command, codec.Clave):
            return await self._admit_with_secret(conn, command.secret)
        if not session.admitted:
            return codec.nok(codec.SECRET_REQUIRED)
        try:
            if isinstance(command, codec.Inscribir):
                return await self._register(conn, command)
            if isinstance(command, codec.Partidas):
                return codec.games_list(await self.run_in_db(handlers.games_in_progress))
            if isinstance(command, codec.Observar):
                return await self._watch(conn, command.partida)
            if isinstance(command, codec.Dejar):
                await self._unfollow(conn)
                return codec.ok()
            if isinstance(command, codec.Historial):
                return await self._history(conn, command.codigo)
            return await self._play(conn, command)
        except DomainError as exc:
            return codec.domain_refusal(exc.code)
        except Exception:
            self.log.exception(
                "distribuido.error peer=%s user=%s command=%s",
                conn.peer,
                codec.log_value(session.name),
                command.name,
            )
            return codec.nok(codec.SERVER_ERROR)

    async def _admit_with_secret(self, conn: Connection, secret: str) -> bytes:
        check = await self.admit(conn, secret)
        if check is SecretCheck.ADMITTED:
            return codec.ok()
        if check is SecretCheck.NOT_NOW:
            return codec.nok(codec.SECRET_NOT_CHECKED)
        return codec.nok(codec.WRONG_SECRET)

    async def _register(self, conn: Connection, command: codec.Inscribir) -> bytes:
        session: Session = conn.session
        name, days = command.nombre, command.dias
        if session.name is not None or session.watching:
            return codec.nok(codec.ALREADY_REGISTERED)
        if len(name) > codec.NAME_MAX:
            return codec.nok(codec.INVALID_NAME)
        if name in self.names:
            return codec.nok(codec.DUPLICATE_NAME)
        # Held before the first await: a second INSCRIBIR of the name meanwhile is refused.
        self.names[name] = conn
        try:
            session.player, session.guest = await self.run_in_db(
                handlers.register, name, self.trusted, conn.address, command.llave
            )
        except BaseException:
            del self.names[name]
            raise
        session.name = name
        session.registered_as = command.campo
        session.days = days
        opponent = self.waiting.get(days)
        if opponent is None or opponent.session.closed:
            self.waiting[days] = conn
            session.colour = "white"
            return codec.ok(codec.WHITE_LETTER)
        del self.waiting[days]
        try:
            game = await self.run_in_db(
                handlers.start, opponent.session.player, session.player, days
            )
        except BaseException:
            # The one waiting goes on waiting; this registration is undone.
            if not opponent.session.closed:
                self.waiting[days] = opponent
            del self.names[name]
            session.name = session.player = session.registered_as = None
            raise
        session.colour = "black"
        opponent.session.colour = "white"
        for player in (opponent, conn):
            player.session.game_id = game.id
            player.session.version = game.version
            await self._follow(player, game.id)
        if opponent.session.closed:
            # White left while the game was being created.
            await self.run_in_db(handlers.abandon, game.id, opponent.session.player)
        else:
            await self.push(opponent, codec.inicio(game))
        return codec.ok(codec.BLACK_LETTER) + codec.inicio(game)

    def _own_game(self, session: Session, codigo: str) -> int:
        """The game of the registered player whose code is ``codigo``, or a refusal."""
        if session.name is None or session.watching:
            raise _Refusal(codec.NOT_REGISTERED)
        if not _is_own_code(session, codigo):
            raise _Refusal(codec.WRONG_CODE)
        if session.game_id is None:
            raise _Refusal(codec.NOT_STARTED)
        return session.game_id

    async def _play(self, conn: Connection, command: codec.Command) -> bytes:
        session: Session = conn.session
        assert isinstance(command, codec.Movimiento | codec.ConsultarTablero | codec.Rendirse)
        try:
            game_id = self._own_game(session, command.codigo)
        except _Refusal as refusal:
            return codec.nok(refusal.text)
        if isinstance(command, codec.ConsultarTablero):
            game = await self.run_in_db(handlers.read_game, game_id)
            return codec.board(game)
        if isinstance(command, codec.Movimiento):
            game = await self.run_in_db(handlers.move, game_id, session.player, command.movimiento)
            reply = codec.moved(game)
        else:
            game = await self.run_in_db(handlers.resign, game_id, session.player)
            reply = codec.winner(game.result)
        session.version = max(session.version, game.version)
        if game.finished:
            reply += codec.fin(game.result)
            await self._game_over(conn)
        return reply

    async def _history(self, conn: Connection, codigo: str) -> bytes:
        session: Session = conn.session
        if session.name is not None and _is_own_code(session, codigo):
            game_id: int | None = session.game_id
            if game_id is None:
                return codec.nok(codec.NOT_STARTED)
        else:
            game_id = gateways.game_id_of(codigo)
            if game_id is None:
                return codec.nok(codec.WRONG_CODE if session.name else codec.GAME_NOT_FOUND)
        return codec.history(await self.run_in_db(handlers.history_of, game_id))

    async def _watch(self, conn: Connection, public_id: str) -> bytes:
        session: Session = conn.session
        if session.name is not None:
            return codec.nok(codec.ALREADY_REGISTERED)
        game_id = gateways.game_id_of(public_id)
        if game_id is None:
            return codec.nok(codec.GAME_NOT_FOUND)
        game = await self.run_in_db(handlers.read_game, game_id)
        if game.finished:
            return codec.nok(codec.GAME_OVER)
        await self._unfollow(conn)
        session.watching = True
        session.game_id = game.id
        session.version = game.version
        await self._follow(conn, game.id)
        return codec.moved(game)

    async def _game_over(self, conn: Connection) -> None:
        """The connection's game ended: it may register (or watch) again."""
        session: Session = conn.session
        await self._unfollow(conn)
        if session.name is not None and self.names.get(session.name) is conn:
            del self.names[session.name]
        session.name = session.player = session.colour = session.registered_as = None
        session.guest = True

    # ------------------------------------------------------------------ live events

    async def _follow(self, conn: Connection, game_id: int) -> None:
        await self.follow(conn, game_id)

    async def _unfollow(self, conn: Connection) -> None:
        session: Session = conn.session
        game_id = session.game_id
        session.game_id = None
        session.watching = False
        if game_id is not None:
            await self.unfollow(conn, game_id)

    async def event_data(self, conn: Connection, message: dict[str, Any]) -> bytes:
        return codec.event_lines(message["event"], gateways.from_event(message))

    async def game_over(self, conn: Connection) -> None:
        await self._game_over(conn)


def _is_own_code(session: Session, codigo: str) -> bool:
    """Whether ``codigo`` is the connection's own: its name, or the field it registered
    with (a seed client keeps what it typed, ``nombre:llave`` for a linked name)."""
    own = [session.name, session.registered_as]
    return any(
        code is not None and hmac.compare_digest(codigo.encode(), code.encode()) for code in own
    )


class _Refusal(Exception):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text
