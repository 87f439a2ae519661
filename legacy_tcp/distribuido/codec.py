"""The ``#`` protocol of Ajedrez Distribuido v1.0 (seed 001): a pure codec.

Lines of fields between ``#`` (``#INSCRIBIR#alice#``), one message a line. This module
turns a received line into a command object (or a :class:`ParseError`) and builds every
line the server sends; it knows no sockets and no database. The decisions that close the
seed's gaps are in ``docs/protocols/distribuido.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from games.clock import DAYS_PER_MOVE

# The longest line a client may send, without its line end. The longest honest one is
# a MOVIMIENTO with a 30-character name: far below.
MAX_LINE = 512
NAME_MAX = 30
LINE_END = b"\n"

WHITE_LETTER, BLACK_LETTER = "B", "N"
COLOUR_LETTER = {"white": WHITE_LETTER, "black": BLACK_LETTER}

# Game states of the seed's MOVIMIENTO reply.
EN_JUEGO, JAQUE, JAQUE_MATE, TABLAS = "EN_JUEGO", "JAQUE", "JAQUE_MATE", "TABLAS"
RESULTS = {"1-0": "GANADOR_B", "0-1": "GANADOR_N", "1/2-1/2": "TABLAS"}
# FIN of a game that ended with no result (aborted: a player left before their first
# move, or nobody moved twice before the clock ran out). The seed has no word for it;
# ``ANULADA`` is this gateway's, so that a client is told the game is over at all.
ABORTED = "ANULADA"

# Refusals: the seed's wording where it gives one ("Movimiento inválido", "No es tu
# turno", "Nombre duplicado", "Partida completa"), the same style elsewhere.
MALFORMED = "Mensaje mal formado"
UNKNOWN = "Comando desconocido"
NOT_UTF8 = "El mensaje no es UTF-8"
TOO_LONG = "Línea demasiado larga"
EMPTY_FIELD = "Campo vacío"
INVALID_NAME = "Nombre inválido"
DUPLICATE_NAME = "Nombre duplicado"
ALREADY_REGISTERED = "Ya inscrito"
NOT_REGISTERED = "No inscrito"
WRONG_CODE = "Código incorrecto"
NOT_STARTED = "Partida no iniciada"
INVALID_MOVE = "Movimiento inválido"
NOT_YOUR_TURN = "No es tu turno"
SECRET_REQUIRED = "Se requiere la clave (CLAVE)"
WRONG_SECRET = "Clave incorrecta"
# Not checked: too many checks wait from the address, or its turn would come too late.
SECRET_NOT_CHECKED = "Demasiadas claves en espera desde esta dirección; inténtelo más tarde"
GAME_NOT_FOUND = "Partida no encontrada"
GAME_OVER = "La partida ha terminado"
SERVER_ERROR = "Error del servidor; nada ha cambiado"
INVALID_CLOCK = "Reloj inválido: días por jugada " + ", ".join(map(str, DAYS_PER_MOVE))
BUSY = "Servidor ocupado; inténtelo más tarde"

# Domain error codes (games.errors, accounts.errors, legacy_tcp.guests) → refusal text.
DOMAIN_ERRORS = {
    "invalid_move": INVALID_MOVE,
    "illegal_move": INVALID_MOVE,
    "not_your_turn": NOT_YOUR_TURN,
    "wrong_move_number": NOT_YOUR_TURN,
    "draw_offer_pending": "Hay una oferta de tablas pendiente",
    "game_finished": GAME_OVER,
    "game_not_found": GAME_NOT_FOUND,
    "not_a_player": NOT_REGISTERED,
    # At the site's limit of games per pair (one unless the administrator allows more).
    "active_game_exists": "Estos jugadores ya tienen en curso las partidas que el sitio permite",
    "self_challenge": DUPLICATE_NAME,
    "user_not_found": "Cuenta cerrada",
    "invalid_guest_name": INVALID_NAME,
    "guests_not_allowed": "Solo juegan los nombres vinculados a una cuenta",
    "name_reserved": "Nombre reservado",
    "linked_account_closed": "Cuenta cerrada",
    "guests_rate_limited": "Demasiados invitados nuevos desde esta dirección; inténtelo más tarde",
    "link_key_required": "Nombre vinculado a una cuenta: envíe nombre:llave",
    "wrong_link_key": "Llave incorrecta",
    "name_not_linked": "Nombre no vinculado a ninguna cuenta: inscríbase sin llave",
}


# --------------------------------------------------------------------------- commands


@dataclass(frozen=True)
class ParseError:
    message: str


@dataclass(frozen=True)
class Command:
    name = ""


@dataclass(frozen=True)
class Clave(Command):
    """Extension: the shared secret, first line when the server requires one."""

    secret: str
    name = "CLAVE"


@dataclass(frozen=True)
class Inscribir(Command):
    """``#INSCRIBIR#nombre#``, or with the extension's clock ``#INSCRIBIR#nombre#dias#``
    (days per move): registrants are paired with one who asked for the same clock.

    Extension: a name linked to an account is sent with the account's gateway key,
    ``nombre:llave`` in the name's field (no name can hold a ``:``, so a seed client
    carries it as a name, and then sends it as its ``codigo``: :attr:`campo`)."""

    nombre: str
    dias: int | None = None
    # Never shown (a log or a traceback prints commands).
    llave: str | None = field(default=None, repr=False)
    name = "INSCRIBIR"

    @property
    def campo(self) -> str:
        """The name's field as sent."""
        return f"{self.nombre}:{self.llave}" if self.llave else self.nombre


@dataclass(frozen=True)
class Movimiento(Command):
    codigo: str
    movimiento: str
    name = "MOVIMIENTO"


@dataclass(frozen=True)
class ConsultarTablero(Command):
    codigo: str
    name = "CONSULTARTABLERO"


@dataclass(frozen=True)
class Rendirse(Command):
    codigo: str
    name = "RENDIRSE"


@dataclass(frozen=True)
class Historial(Command):
    """Extension: the moves so far, of one's own game (``codigo``) or of a game by id."""

    codigo: str
    name = "HISTORIAL"


@dataclass(frozen=True)
class Partidas(Command):
    """Extension: the games in progress."""

    name = "PARTIDAS"


@dataclass(frozen=True)
class Observar(Command):
    """Extension: watch a game; its moves and its end are pushed as to its players."""

    partida: str
    name = "OBSERVAR"


@dataclass(frozen=True)
class Dejar(Command):
    """Extension: stop watching."""

    name = "DEJAR"


# Command name → (class, numbers of fields it may have).
COMMANDS: dict[str, tuple[type[Command], tuple[int, ...]]] = {
    "CLAVE": (Clave, (1,)),
    "INSCRIBIR": (Inscribir, (1, 2)),
    "MOVIMIENTO": (Movimiento, (2,)),
    "CONSULTARTABLERO": (ConsultarTablero, (1,)),
    "RENDIRSE": (Rendirse, (1,)),
    "HISTORIAL": (Historial, (1,)),
    "PARTIDAS": (Partidas, (0,)),
    "OBSERVAR": (Observar, (1,)),
    "DEJAR": (Dejar, (0,)),
}


def parse_line(line: bytes) -> Command | ParseError:
    """One received line (its ``\\n`` or ``\\r\\n`` included or not) as a command."""
    if len(line.rstrip(b"\r\n")) > MAX_LINE:
        return ParseError(TOO_LONG)
    try:
        text = line.rstrip(b"\r\n").decode("utf-8").strip()
    except UnicodeDecodeError:
        return ParseError(NOT_UTF8)
    if len(text) < 2 or not (text.startswith("#") and text.endswith("#")):
        return ParseError(MALFORMED)
    fields = text[1:-1].split("#")
    found = COMMANDS.get(fields[0].upper())
    if found is None:
        return ParseError(UNKNOWN)
    command_class, arities = found
    values = [field.strip() for field in fields[1:]]
    if len(values) not in arities:
        return ParseError(f"{MALFORMED}: {usage(fields[0].upper())}")
    if any(not value for value in values):
        return ParseError(EMPTY_FIELD)
    if any(not value.isprintable() for value in values):
        return ParseError(MALFORMED)
    if command_class is Inscribir:
        return _inscribir(values)
    return command_class(*values)


def _inscribir(values: list[str]) -> Inscribir | ParseError:
    days = None
    if len(values) == 2:
        if not (values[1].isascii() and values[1].isdigit() and int(values[1]) in DAYS_PER_MOVE):
            return ParseError(INVALID_CLOCK)
        days = int(values[1])
    name, colon, key = values[0].partition(":")
    if colon and not (name and key):
        return ParseError(EMPTY_FIELD)
    return Inscribir(name, days, llave=key or None)


def usage(command: str) -> str:
    """What ``command``'s fields are, in words (a refusal cannot quote ``#``)."""
    fields = {
        "CLAVE": "la clave",
        "INSCRIBIR": "el nombre y, si se quiere reloj, los dias por jugada",
        "MOVIMIENTO": "el codigo y el movimiento",
        "CONSULTARTABLERO": "el codigo",
        "RENDIRSE": "el codigo",
        "HISTORIAL": "el codigo o la partida",
        "OBSERVAR": "la partida",
    }.get(command)
    return f"{command} lleva {fields}" if fields else f"{command} no lleva campos"


# --------------------------------------------------------------------------- replies


def line(*fields: str) -> bytes:
    """``#a#b#`` and the line end. A ``#`` inside a field would split it: none is sent
    (no name can hold one; SAN's mate sign is written ``++``, see :func:`history`)."""
    return ("#" + "".join(f"{field.replace('#', '?')}#" for field in fields)).encode() + LINE_END


def ok(*fields: str) -> bytes:
    return line("OK", *fields)


def nok(text: str) -> bytes:
    return line("NOK", text)


def domain_refusal(code: str) -> bytes:
    return nok(DOMAIN_ERRORS.get(code, SERVER_ERROR))


class Position(Protocol):
    """What a reply shows of a game (the read model's ``games.state.gateways.GatewayGame``)."""

    @property
    def fen(self) -> str: ...
    @property
    def turn(self) -> str: ...
    @property
    def in_check(self) -> bool: ...
    @property
    def status(self) -> str: ...
    @property
    def result(self) -> str: ...
    @property
    def termination(self) -> str: ...


def state_of(game: Position) -> str:
    """The seed's ``estado`` of a position and game: EN_JUEGO, JAQUE, JAQUE_MATE or TABLAS."""
    if game.status != "active":
        if game.termination == "checkmate":
            return JAQUE_MATE
        if game.result == "1/2-1/2":
            return TABLAS
    return JAQUE if game.in_check else EN_JUEGO


def inicio(game: Position) -> bytes:
    """``#INICIO#turno#tablero#``: pushed to both players when the game starts."""
    return line("INICIO", COLOUR_LETTER[game.turn], game.fen)


def moved(game: Position) -> bytes:
    """``#OK#turno#tablero#estado#`` after a move."""
    return ok(COLOUR_LETTER[game.turn], game.fen, state_of(game))


def board(game: Position) -> bytes:
    """CONSULTARTABLERO's reply: ``#OK#tablero#turno#`` (this order, as the seed has it)."""
    return ok(game.fen, COLOUR_LETTER[game.turn])


def winner(result: str) -> bytes:
    """RENDIRSE's reply: ``#OK#ganador#``."""
    return ok({"1-0": WHITE_LETTER, "0-1": BLACK_LETTER}[result])


def fin(result: str) -> bytes:
    """``#FIN#resultado#``: pushed to players and watchers however the game ended."""
    return line("FIN", RESULTS.get(result, ABORTED))


def event_lines(event: str, game: Position) -> bytes:
    """What a live game event (its name, and the game as it leaves it) becomes on this
    protocol: a move is ``#OK#turno#tablero#estado#``, a resignation ``#OK#ganador#``,
    and any event that leaves the game finished adds ``#FIN#resultado#``. Draw offers
    and declines, which the seed cannot express, send nothing."""
    out = b""
    if event == "move":
        out += moved(game)
    elif event == "resigned":
        out += winner(game.result)
    if game.status != "active":
        out += fin(game.result)
    return out


def history(sans: list[str]) -> bytes:
    """HISTORIAL's reply: ``#OK#e4#e5#Nf3#…#`` in SAN (``#OK#`` before the first move).
    The mate sign ``#`` is the protocol's separator, so a mate is written ``++``."""
    return ok(*(san.replace("#", "++") for san in sans))


def games_list(games: list[tuple[str, str, str]]) -> bytes:
    """PARTIDAS' reply: ``#OK#partida#blancas#negras#…#``, three fields per game."""
    return ok(*(field for game in games for field in game))


def log_value(text: str | None) -> str:
    """A client's text as the log shows it: quoted, escapes visible, cut at 80."""
    return "-" if text is None else repr(text[:80])
