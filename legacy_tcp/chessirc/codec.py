"""chessirc (seed 004): a pure codec for the line protocol between the IRC bot and the
chess server.

One request a line (``MOVE netman d4``); every reply is a message, or the history, the
message, ``<:=:>`` and the board in the seed's colour-tag markup, and ends with the
``-###-`` line. This module reads requests and writes replies; it knows no sockets and no
database. Decisions are in ``docs/protocols/chessirc.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MAX_LINE = 512
NICK_MAX = 30
END = "-###-"
DELIMITER = "<:=:>"
LIGHT, DARK = "<BYELLOW>", "<BBLUE>"
WHITE_PIECE, BLACK_PIECE = "<bWHITE>", "<bBLACK>"
LINE_END_TAG = "<NORMAL>"
# The original draws both sides with the solid symbols and tells them apart by colour.
GLYPHS = {"k": "♚", "q": "♛", "r": "♜", "b": "♝", "n": "♞", "p": "♟"}
# SAN's English piece letters → the Spanish ones the original shows.
SPANISH_PIECES = str.maketrans({"K": "R", "Q": "D", "R": "T", "B": "A", "N": "C"})
SIDE_NAMES = {"white": "Blancas", "black": "Negras"}

# Refusals: one Spanish sentence each.
UNKNOWN = "Orden desconocida."
NO_SESSION = "No hay ninguna sesión iniciada."
CHANNEL_NEEDS_HASH = "El nombre del canal debe empezar por '#'."
INVALID_CHANNEL = "Nombre de canal inválido."
INVALID_NICK = "Nick inválido."
BOTH_REGISTERED = "Ya se han registrado ambos jugadores."
MISSING_PLAYER = "Faltan jugadores por registrarse."
ALREADY_STARTED = "La partida ya ha comenzado."
NOT_STARTED = "La partida no ha comenzado."
INVALID_FEN = "La posición FEN no es válida."
ILLEGAL_MOVE = "Movimiento ilegal."
DRAW_OFFER_PENDING = "Hay una oferta de tablas pendiente."
NO_DRAW_OFFER = "No hay ninguna oferta de tablas que aceptar."
SIDE_EXPECTED = "Se espera White o Black."
TOO_LONG = "Línea demasiado larga."
NOT_UTF8 = "La línea no es UTF-8."
SECRET_REQUIRED = "Se requiere la clave: AUTH <clave>."
WRONG_SECRET = "Clave incorrecta."
# Not checked: too many checks wait from the address, or its turn would come too late.
SECRET_NOT_CHECKED = "Demasiadas claves en espera desde esta dirección; inténtelo más tarde."
SECRET_ACCEPTED = "Clave aceptada."
SERVER_ERROR = "Error del servidor; nada ha cambiado."
BUSY = "Servidor ocupado; inténtelo más tarde."
GAME_OVER = "Fin de la partida."

DOMAIN_ERRORS = {
    "invalid_move": ILLEGAL_MOVE,
    "illegal_move": ILLEGAL_MOVE,
    "invalid_position": INVALID_FEN,
    "draw_offer_pending": DRAW_OFFER_PENDING,
    "no_draw_offer": NO_DRAW_OFFER,
    "game_finished": "La partida ha terminado.",
    "not_your_turn": "No es el turno de '{nick}'.",
    "invalid_guest_name": INVALID_NICK,
    "guests_not_allowed": "En este servidor solo juegan los nicks vinculados a una cuenta.",
    "name_reserved": "Ese nick está reservado.",
    "linked_account_closed": "La cuenta vinculada a ese nick está cerrada.",
    # At the site's limit of games per pair (one unless the administrator allows more).
    "active_game_exists": "Estos jugadores ya tienen en curso las partidas que el sitio permite.",
    "self_challenge": "Un jugador no puede jugar contra sí mismo.",
    "user_not_found": "La cuenta vinculada a ese nick está cerrada.",
}


# --------------------------------------------------------------------------- requests


@dataclass(frozen=True)
class ParseError:
    message: str


@dataclass(frozen=True)
class Request:
    """A request: its verb and its arguments, as the bot relayed them."""

    verb: str
    args: tuple[str, ...]


# Verb → (number of arguments, usage shown when they do not fit).
VERBS = {
    "AUTH": (1, "AUTH <clave>"),
    "SESSION": (1, "SESSION <#canal>"),
    "CLOSE": (0, "CLOSE"),
    "REGISTER": (1, "REGISTER <nick>"),
    "START": (2, "START <nick> <FEN|Default>"),
    "MOVE": (2, "MOVE <nick> <jugada>"),
    "BOARD": (1, "BOARD <White|Black>"),
    "POSITION": (0, "POSITION"),
    "PGN": (0, "PGN"),
    "DRAW": (1, "DRAW <nick>"),
    "RESIGN": (1, "RESIGN <nick>"),
}


def parse_line(line: bytes) -> Request | ParseError:
    """One request line (its end included or not). START's FEN keeps its spaces."""
    raw = line.rstrip(b"\r\n")
    if len(raw) > MAX_LINE:
        return ParseError(TOO_LONG)
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        return ParseError(NOT_UTF8)
    if not text.isprintable():
        return ParseError(UNKNOWN)
    verb, _, rest = text.partition(" ")
    # Verbs are upper case, as the original reads them (it refuses ``move a e4``).
    if verb not in VERBS:
        return ParseError(UNKNOWN)
    arity, usage = VERBS[verb]
    args: tuple[str, ...]
    if verb == "START":
        nick, _, position = rest.strip().partition(" ")
        args = (nick, position.strip()) if nick and position.strip() else ()
    else:
        args = tuple(rest.split())
    if len(args) != arity:
        return ParseError(f"Uso: {usage}.")
    return Request(verb, args)


# --------------------------------------------------------------------------- replies


def reply(*lines: str) -> bytes:
    """A reply: its lines, then the end mark."""
    return "".join(f"{line}\n" for line in (*lines, END)).encode()


def message(text: str) -> bytes:
    return reply(text)


def board_reply(history: str, text: str, fen: str, side: str) -> bytes:
    """History (when there is one), message, the delimiter, and the board from ``side``."""
    head = [history] if history else []
    return reply(*head, text, DELIMITER, *board_lines(fen, side))


def board_lines(fen: str, side: str) -> list[str]:
    """The 8 rank lines and the file-letter line of ``fen`` seen from ``side`` (``white``:
    rank 8 first, files a→h; ``black``: rank 1 first, files h→a)."""
    rows = fen.split(" ", 1)[0].split("/")
    squares: dict[tuple[int, int], str] = {}
    for rank_index, row in enumerate(rows):
        rank = 8 - rank_index
        file = 0
        for char in row:
            if char.isdigit():
                file += int(char)
            else:
                squares[(file, rank)] = char
                file += 1
    ranks = range(8, 0, -1) if side == "white" else range(1, 9)
    files = range(8) if side == "white" else range(7, -1, -1)
    lines = []
    for rank in ranks:
        cells = []
        for file in files:
            colour = LIGHT if (file + rank) % 2 == 0 else DARK
            piece = squares.get((file, rank))
            if piece is None:
                cells.append(f"{colour}   ")
            else:
                tag = WHITE_PIECE if piece.isupper() else BLACK_PIECE
                cells.append(f"{colour}{tag} {GLYPHS[piece.lower()]} ")
        lines.append(f"{rank} {''.join(cells)}{LINE_END_TAG}")
    lines.append("   " + "  ".join("abcdefgh"[file] for file in files))
    return lines


def spanish_san(san: str) -> str:
    """``Nf3`` → ``Cf3``, ``Qxh4#`` → ``Dxh4#``, ``e8=Q`` → ``e8=D``; castling unchanged."""
    return san.translate(SPANISH_PIECES)


def history_line(last_sans: Sequence[str], plies: int, white_first: bool = True) -> str:
    """The current move pair, numbered from 1 (``1. f3``, ``1. f3 e5``, ``2. g4``), from
    the game's last moves' SAN (oldest first) and the half-moves played; when Black moved
    first, its first move is ``1. ... e5``. Empty before any move."""
    if not last_sans or plies < 1:
        return ""
    plies += 0 if white_first else 1
    number = (plies + 1) // 2
    last = spanish_san(last_sans[-1])
    if plies % 2 == 1:
        return f"{number}. {last}"
    before = spanish_san(last_sans[-2]) if len(last_sans) >= 2 else "..."
    return f"{number}. {before} {last}"


def to_move(side: str, nick: str, check: bool = False) -> str:
    """``Blancas mueven. Es el turno de 'netman'.`` (``Jaque. `` first when in check)."""
    prefix = "Jaque. " if check else ""
    return f"{prefix}{SIDE_NAMES[side]} mueven. Es el turno de '{nick}'."


RESULT_TEXT = {"1-0": "Ganan las Blancas.", "0-1": "Ganan las Negras.", "1/2-1/2": "Tablas."}
ENDINGS = {
    "checkmate": "Jaque mate.",
    "stalemate": "Rey ahogado.",
    "insufficient_material": "Material insuficiente.",
    "seventyfive_moves": "Regla de los 75 movimientos.",
    "fivefold_repetition": "Quíntuple repetición.",
}


def ending_lines(text: str, result: str, public_id: str) -> list[str]:
    """The end of a game: what ended it and who won, the saved PGN, the result line."""
    return [f"{text} {RESULT_TEXT[result]}", pgn_saved(public_id), result]


# --------------------------------------------------------------------------- messages


def refusal(code: str, nick: str = "") -> bytes:
    """A domain error (its stable code) as this wire's sentence; ``nick`` is who asked."""
    return message(DOMAIN_ERRORS.get(code, SERVER_ERROR).replace("{nick}", nick))


def session_opened(channel: str) -> bytes:
    return message(f"Se ha iniciado una sesión en {channel}.")


def session_already_open(channel: str) -> bytes:
    """This connection holds a session already (in ``channel``)."""
    return message(f"Ya hay una sesión iniciada en {channel}.")


def channel_taken(channel: str) -> bytes:
    """Another connection holds ``channel``'s session."""
    return message(f"Ya hay una sesión en {channel}.")


def registered(nick: str, colour: str) -> bytes:
    return message(f"Se ha registrado '{nick}' para jugar con {SIDE_NAMES[colour]}.")


def already_registered(nick: str) -> bytes:
    return message(f"'{nick}' ya está registrado.")


def not_registered(nick: str) -> bytes:
    return message(f"'{nick}' no está registrado en esta partida.")


def not_playing(nick: str) -> bytes:
    return message(f"'{nick}' no juega esta partida.")


def pgn_saved(public_id: str) -> str:
    return f"La partida se ha guardado en {public_id}.pgn."


def draw_offered(colour: str, nick: str) -> bytes:
    """``Blancas ('w') ofrecen tablas.``, as the original says it."""
    return message(f"{SIDE_NAMES[colour]} ('{nick}') ofrecen tablas.")


def draw_declined(nick: str) -> bytes:
    return message(f"'{nick}' rechaza las tablas.")


def resigned(nick: str) -> str:
    return f"'{nick}' abandona."


def draw_accepted(nick: str) -> str:
    return f"'{nick}' acepta las tablas."


def ending(termination: str) -> str:
    """What ended a game that ended on the board (mate, stalemate, an automatic draw)."""
    return ENDINGS.get(termination, GAME_OVER)


def log_value(text: str | None) -> str:
    return "-" if text is None else repr(text[:80])
