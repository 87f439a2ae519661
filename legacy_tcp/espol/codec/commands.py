"""ESPOL's commands: bytes of one command line → a command object or a :class:`ParseError`
carrying its ESPOL code. Never raises; the handlers decide what a command does.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from legacy_tcp.espol.codec.codes import (
    EPOCH,
    LETTER_COLOUR,
    PROMOTION_LETTER,
    Code,
    fecha,
    square_index,
)

MAX_LINE = 4096
"""Longest command line accepted, in bytes, not counting the line end."""


@dataclass(frozen=True)
class Command:
    """Base of every parsed command. ``name`` is the wire code."""

    @property
    def name(self) -> str:
        return type(self).__name__.upper()

    def loggable(self) -> str:
        """The command as it may appear in logs: secrets replaced by ``***``.

        Other fields are the client's text as sent: quote it with :func:`log_value`
        before it goes into a ``key=value`` log line.
        """
        values = [getattr(self, f) for f in self.__dataclass_fields__]
        shown = [fecha(v) if isinstance(v, dt.datetime) else str(v) for v in values]
        return ":".join([self.name, *shown])


# What may stand unquoted as the value of a key=value log field: anything else could end
# the field early (space), forge another one (``=``), or break the line (control codes).
_LOG_PLAIN = re.compile(r"[^\s=\"'\\]+")


def log_value(value: object) -> str:
    """``value`` as one field of a ``key=value`` log line, quoted when it needs to be.

    A client's user name or command may hold spaces, ``=``, quotes or control characters
    (``USER:x code=102 user=admin``): such a value is written as a Python string literal,
    so it reads as one field and every unprintable character appears escaped.
    """
    text = str(value)
    if _LOG_PLAIN.fullmatch(text) and text.isprintable():
        return text
    return repr(text)


@dataclass(frozen=True)
class User(Command):
    username: str


@dataclass(frozen=True)
class Pass(Command):
    password: str

    def loggable(self) -> str:
        return "PASS:***"


@dataclass(frozen=True)
class Subs(Command):
    username: str
    password: str
    comment: str

    def loggable(self) -> str:
        return f"SUBS:{self.username}:***:***"


@dataclass(frozen=True)
class Unsu(Command):
    username: str
    password: str

    def loggable(self) -> str:
        return f"UNSU:{self.username}:***"


@dataclass(frozen=True)
class Tran(Command):
    since: dt.datetime


@dataclass(frozen=True)
class Jaut(Command):
    since: dt.datetime


@dataclass(frozen=True)
class Ppen(Command):
    since: dt.datetime


@dataclass(frozen=True)
class Jueg(Command):
    opponent: str


@dataclass(frozen=True)
class Acep(Command):
    colour: str  # "white" or "black": the colour the accepting player takes
    challenger: str


@dataclass(frozen=True)
class Spar(Command):
    game_id: int
    after: int


@dataclass(frozen=True)
class Jgda(Command):
    game_id: int
    number: int
    uci: str  # with the promotion letter when promocion asked for one
    reverse: bool


@dataclass(frozen=True)
class Tbls(Command):
    game_id: int
    opponent: str


@dataclass(frozen=True)
class Rtbl(Command):
    game_id: int
    accept: bool
    opponent: str


@dataclass(frozen=True)
class Rend(Command):
    game_id: int
    opponent: str


@dataclass(frozen=True)
class Finp(Command):
    game_id: int
    opponent: str


@dataclass(frozen=True)
class Stat(Command):
    game_id: int


@dataclass(frozen=True)
class Srnk(Command):
    pass


@dataclass(frozen=True)
class Help(Command):
    pass


@dataclass(frozen=True)
class Quit(Command):
    pass


@dataclass(frozen=True)
class ParseError:
    """A line that is not a valid command. ``command`` is its code when that was known."""

    code: Code
    message: str
    command: str | None = None

    def loggable(self) -> str:
        return f"{self.command or '?'}:<unparsed>"


# Commands allowed before login (the seed's login state machine).
BEFORE_LOGIN = frozenset({"USER", "PASS", "SUBS", "HELP", "QUIT"})

# The seed spells two codes two ways; both are accepted.
ALIASES = {"TBLs": "TBLS", "RTBS": "RTBL"}

HELP_TEXT = "\r\n".join(
    [
        "USER:<usuario>",
        "PASS:<password>",
        "SUBS:<usuario>:<password>:<comentario>",
        "UNSU:<usuario>:<password>",
        "TRAN:<fecha>",
        "JAUT:<fecha>",
        "PPEN:<fecha>",
        "JUEG:<usuario destino>",
        "ACEP:<color B|N>:<usuario destino>",
        "SPAR:<partida>:<#jugada>",
        "JGDA:<partida>:<#jugada>:<jugada>:<reverso 0|1>:<posicion>:<promocion 0|2|3|4|5>",
        "TBLS:<partida>:<usuario destino>",
        "RTBL:<partida>:<acepta S|N>:<usuario destino>",
        "REND:<partida>:<usuario destino>",
        "FINP:<partida>:<usuario destino>",
        "STAT:<partida>",
        "SRNK",
        "HELP",
        "QUIT",
    ]
)

_GAME = re.compile(r"[Pp]([0-9]{1,18})")
_NUMBER = re.compile(r"[0-9]{1,9}")
_DATE = re.compile(r"[0-9]{1,11}")
_MOVE = re.compile(r"([a-h][1-8])([a-h][1-8])([nbrq]?)")
_POSITION = re.compile(r"([0-5][0-9]|6[0-3])([0-5][0-9]|6[0-3])")


class _Bad(Exception):
    def __init__(self, code: Code, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _field_count(fields: list[str], wanted: int, syntax: str) -> list[str]:
    # The seed writes some commands with a trailing ':' (SPAR, QUIT, SRNK): tolerate one.
    if len(fields) == wanted + 1 and fields[-1] == "":
        fields = fields[:-1]
    if len(fields) != wanted:
        raise _Bad(Code.F_PARAM, f"expected {syntax}")
    return fields


def _name(text: str, what: str) -> str:
    if not text:
        raise _Bad(Code.F_PARAM, f"{what} is empty")
    return text


def _game(text: str) -> int:
    match = _GAME.fullmatch(text)
    if match is None:
        raise _Bad(Code.F_PARAM, "partida must be P followed by digits (P0000001)")
    return int(match.group(1))


def _number(text: str, what: str) -> int:
    if _NUMBER.fullmatch(text) is None:
        raise _Bad(Code.F_PARAM, f"{what} must be a number")
    return int(text)


def _date(text: str) -> dt.datetime:
    if _DATE.fullmatch(text) is None:
        raise _Bad(Code.F_PARAM, "fecha must be 11 digits (seconds since 1970-01-01 UTC)")
    return EPOCH + dt.timedelta(seconds=int(text))


def _move(jugada: str, reverso: str, posicion: str, promocion: str) -> tuple[str, bool]:
    """The UCI move the JGDA fields describe, after checking that they agree."""
    move = _MOVE.fullmatch(jugada.lower())
    if move is None:
        raise _Bad(Code.F_PARAM, "jugada must be a coordinate move such as e2e4")
    if reverso not in ("0", "1"):
        raise _Bad(Code.F_PARAM, "reverso must be 0 or 1")
    squares = _POSITION.fullmatch(posicion)
    if squares is None:
        raise _Bad(Code.F_PARAM, "posicion must be 4 digits, two squares 00-63")
    if promocion not in PROMOTION_LETTER:
        raise _Bad(Code.F_PARAM, "promocion must be 0, 2, 3, 4 or 5")
    source, target, letter = move.groups()
    if (int(squares.group(1)), int(squares.group(2))) != (
        square_index(source),
        square_index(target),
    ):
        raise _Bad(Code.F_ILLEGAL, "posicion does not match jugada")
    wanted = PROMOTION_LETTER[promocion]
    # A 1995 client sends four-letter moves and says the promotion in promocion; a newer
    # one may also append the letter. Either way the two must agree.
    if letter and letter != wanted:
        raise _Bad(Code.F_ILLEGAL, "promocion does not match jugada")
    return f"{source}{target}{wanted}", reverso == "1"


def _build(code: str, rest: str | None) -> Command:
    if code in ("HELP", "QUIT", "SRNK"):
        if rest is not None and rest.strip():
            raise _Bad(Code.F_PARAM, f"{code} takes no arguments")
        return {"HELP": Help, "QUIT": Quit, "SRNK": Srnk}[code]()
    if rest is None:
        raise _Bad(Code.F_PARAM, f"{code} needs arguments: {code}:...")
    if code == "PASS":
        # The whole remainder is the password, so it may contain ':'.
        return Pass(_name(rest.strip(), "password"))
    if code == "SUBS":
        parts = [p.strip() for p in rest.split(":", 2)]
        if len(parts) == 2:
            parts.append("")
        if len(parts) != 3:
            raise _Bad(Code.F_PARAM, "expected SUBS:usuario:password:comentario")
        return Subs(_name(parts[0], "usuario"), _name(parts[1], "password"), parts[2])
    if code == "UNSU":
        user, sep, password = rest.partition(":")
        if not sep:
            raise _Bad(Code.F_PARAM, "expected UNSU:usuario:password")
        return Unsu(_name(user.strip(), "usuario"), _name(password.strip(), "password"))
    fields = [f.strip() for f in rest.split(":")]
    if code == "USER":
        (user,) = _field_count(fields, 1, "USER:usuario")
        return User(_name(user, "usuario"))
    if code in ("TRAN", "JAUT", "PPEN"):
        (date,) = _field_count(fields, 1, f"{code}:fecha")
        return {"TRAN": Tran, "JAUT": Jaut, "PPEN": Ppen}[code](_date(date))
    if code == "JUEG":
        (user,) = _field_count(fields, 1, "JUEG:usuario")
        return Jueg(_name(user, "usuario destino"))
    if code == "ACEP":
        colour, user = _field_count(fields, 2, "ACEP:color:usuario")
        if colour not in LETTER_COLOUR:
            raise _Bad(Code.F_PARAM, "color must be B (white) or N (black)")
        return Acep(LETTER_COLOUR[colour], _name(user, "usuario destino"))
    if code == "SPAR":
        game, number = _field_count(fields, 2, "SPAR:partida:#jugada")
        return Spar(_game(game), _number(number, "#jugada"))
    if code == "JGDA":
        game, number, jugada, reverso, posicion, promocion = _field_count(
            fields, 6, "JGDA:partida:#jugada:jugada:reverso:posicion:promocion"
        )
        game_id, move_number = _game(game), _number(number, "#jugada")
        uci, reverse = _move(jugada, reverso, posicion, promocion)
        return Jgda(game_id, move_number, uci, reverse)
    if code in ("TBLS", "REND", "FINP"):
        game, user = _field_count(fields, 2, f"{code}:partida:usuario")
        return {"TBLS": Tbls, "REND": Rend, "FINP": Finp}[code](
            _game(game), _name(user, "usuario destino")
        )
    if code == "RTBL":
        game, answer, user = _field_count(fields, 3, "RTBL:partida:S|N:usuario")
        if answer not in ("S", "N"):
            raise _Bad(Code.F_PARAM, "acepta must be S or N")
        return Rtbl(_game(game), answer == "S", _name(user, "usuario destino"))
    if code == "STAT":
        (game,) = _field_count(fields, 1, "STAT:partida")
        return Stat(_game(game))
    raise _Bad(Code.F_CMDINV, "unknown command")


KNOWN = frozenset(
    {"USER", "PASS", "SUBS", "UNSU", "TRAN", "JAUT", "PPEN", "JUEG", "ACEP", "SPAR", "JGDA",
     "TBLS", "RTBL", "REND", "FINP", "STAT", "SRNK", "HELP", "QUIT"}
)


def parse_line(line: bytes) -> Command | ParseError:
    """Read one command line (with or without its CR LF / LF). Never raises."""
    if line.endswith(b"\n"):
        line = line[:-1]
    if line.endswith(b"\r"):
        line = line[:-1]
    if len(line) > MAX_LINE:
        return ParseError(Code.F_PARAM, f"line longer than {MAX_LINE} bytes")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return ParseError(Code.F_PARAM, "the line is not valid UTF-8")
    head, sep, rest = text.partition(":")
    code = head.strip()
    code = ALIASES.get(code, code)
    if code not in KNOWN:
        return ParseError(Code.F_CMDINV, "unknown command (codes are case-sensitive)")
    try:
        return _build(code, rest if sep else None)
    except _Bad as bad:
        return ParseError(bad.code, bad.message, code)
