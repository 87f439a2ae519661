"""The ESPOL v2.0 line protocol (1995): a pure codec.

Bytes of one command line become a command object or a :class:`ParseError` carrying its
ESPOL code; a response code and its data become frames. No sockets, no database: the
server splits the stream into lines and the handlers decide what a command does.

Frame: 3 ASCII digits (code), 1 ASCII digit (``1`` = more frames follow), 2 bytes
big-endian length, then that many bytes of UTF-8 data. Data longer than 65535 bytes is
split across frames; a list is split between its records (:func:`record_frames`), so each
frame holds whole records, as seed 000 has the server fill and send one buffer at a time.
"""

from __future__ import annotations

import datetime as dt
import enum
import re
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

MAX_LINE = 4096
"""Longest command line accepted, in bytes, not counting the line end."""

MAX_FRAME_DATA = 0xFFFF

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


class Code(enum.IntEnum):
    S_USER = 101
    S_PASSWD = 102
    S_TRAN = 103
    S_NODATA = 104
    S_SUBS = 105
    E_SYSTEM = 401
    E_BUSY = 402
    F_CMDINV = 801
    F_PARAM = 802
    F_LOGIN = 803
    F_NOUSER = 814
    F_PASINV = 815
    F_NOGAME = 820
    F_NOTURN = 821
    F_ILLEGAL = 822
    F_MOVENUM = 823
    F_FINISHED = 824
    F_DRAWPEND = 825
    F_NODRAW = 826
    F_EXISTS = 830
    F_NOREQ = 831
    F_SELF = 832
    F_NOMASJUG = 840
    F_SUBS = 850


# The service layer's stable error codes (games.errors) → ESPOL codes. Keyed by the string
# code so the codec needs no import of the domain.
DOMAIN_ERROR_CODES: dict[str, Code] = {
    "user_not_found": Code.F_NOUSER,
    "wrong_password": Code.F_PASINV,
    "game_not_found": Code.F_NOGAME,
    "not_a_player": Code.F_NOGAME,
    "not_your_turn": Code.F_NOTURN,
    "invalid_move": Code.F_ILLEGAL,
    "illegal_move": Code.F_ILLEGAL,
    "nothing_to_claim": Code.F_ILLEGAL,
    "wrong_move_number": Code.F_MOVENUM,
    "game_finished": Code.F_FINISHED,
    "draw_offer_pending": Code.F_DRAWPEND,
    # One offer per own move: a second offer before moving is refused as 825 says.
    "draw_offer_too_soon": Code.F_DRAWPEND,
    "challenge_rate_limited": Code.E_BUSY,
    "no_draw_offer": Code.F_NODRAW,
    "challenge_exists": Code.F_EXISTS,
    "opponent_challenged_first": Code.F_EXISTS,
    "active_game_exists": Code.F_EXISTS,
    "challenge_not_found": Code.F_NOREQ,
    "self_challenge": Code.F_SELF,
    "invalid_colour": Code.F_PARAM,
    "invalid_time_control": Code.F_PARAM,
    "subscription_refused": Code.F_SUBS,
    "subscription_not_pending": Code.F_SUBS,
}


# --------------------------------------------------------------------------- commands


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
# ESPOL's promocion: the UCI promotion letter ("" for none) → its code, and back.
PROMOTION_CODES = {"": 0, "n": 2, "b": 3, "r": 4, "q": 5}
_PROMOTION_LETTER = {str(code): letter for letter, code in PROMOTION_CODES.items()}
# ESPOL's colour letters (blancas, negras), and back.
COLOUR_LETTER = {"white": "B", "black": "N"}
_LETTER_COLOUR = {letter: colour for colour, letter in COLOUR_LETTER.items()}


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
    if promocion not in _PROMOTION_LETTER:
        raise _Bad(Code.F_PARAM, "promocion must be 0, 2, 3, 4 or 5")
    source, target, letter = move.groups()
    if (int(squares.group(1)), int(squares.group(2))) != (
        square_index(source),
        square_index(target),
    ):
        raise _Bad(Code.F_ILLEGAL, "posicion does not match jugada")
    wanted = _PROMOTION_LETTER[promocion]
    # A 1995 client sends four-letter moves and says the promotion in promocion; a newer
    # one may also append the letter. Either way the two must agree.
    if letter and letter != wanted:
        raise _Bad(Code.F_ILLEGAL, "promocion does not match jugada")
    return f"{source}{target}{wanted}", reverso == "1"


class Solicitud(enum.IntEnum):
    """Seed 000's per-colour request flags (``solicitud_blancas``, ``solicitud_negras``)."""

    NONE = 0
    OFFERS_DRAW = 1
    ACCEPTS_DRAW = 2
    RESIGNED = 3


def solicitudes(*, draw_offer_by: str, ended_by: str, termination: str) -> tuple[int, int]:
    """STAT's ``(solicitud_blancas, solicitud_negras)`` of a game, from what the domain
    keeps: the colour offering a draw now, the colour whose action ended the game, and
    how it ended (colours and terminations by their stored names).

    The seed's flags are a history the domain does not store as such: a draw agreed is
    "offers" for one side and "accepts" for the one who ended it; a resignation or an
    abandonment is "resigned" for the side that ended it.
    """
    flags = {"white": Solicitud.NONE, "black": Solicitud.NONE}
    if draw_offer_by in flags:
        flags[draw_offer_by] = Solicitud.OFFERS_DRAW
    if ended_by in flags:
        other = "black" if ended_by == "white" else "white"
        if termination in ("resignation", "abandonment"):
            flags[ended_by] = Solicitud.RESIGNED
        elif termination == "agreement":
            flags[ended_by] = Solicitud.ACCEPTS_DRAW
            flags[other] = Solicitud.OFFERS_DRAW
    return int(flags["white"]), int(flags["black"])


def square_index(name: str) -> int:
    """``a1`` → 0 … ``h8`` → 63: rank × 8 + file, ESPOL's square numbering."""
    return (int(name[1]) - 1) * 8 + (ord(name[0]) - ord("a"))


def position_of(uci: str) -> str:
    """ESPOL ``posicion`` of a UCI move: four digits, source then destination square."""
    return f"{square_index(uci[:2]):02d}{square_index(uci[2:4]):02d}"


def promotion_of(uci: str) -> int:
    """ESPOL ``promocion`` of a UCI move: 0 none, 2 knight, 3 bishop, 4 rook, 5 queen."""
    return PROMOTION_CODES[uci[4:5]]


def uci_of(jugada: str, promocion: str) -> str:
    """The UCI move of a ``SPAR`` entry: four-letter ``jugada`` plus the ``promocion`` letter."""
    return jugada[:4].lower() + _PROMOTION_LETTER.get(promocion, "")


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
        if colour not in _LETTER_COLOUR:
            raise _Bad(Code.F_PARAM, "color must be B (white) or N (black)")
        return Acep(_LETTER_COLOUR[colour], _name(user, "usuario destino"))
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


# --------------------------------------------------------------------------- responses


def _join_frames(code: int, chunks: list[bytes]) -> bytes:
    """The frames of one response, one per chunk: flag ``1`` on all but the last."""
    if not 100 <= code <= 999:
        raise ValueError(f"response code out of range: {code}")
    head = str(code).encode("ascii")
    out = bytearray()
    for index, chunk in enumerate(chunks):
        more = b"1" if index < len(chunks) - 1 else b"0"
        out += head + more + struct.pack(">H", len(chunk)) + chunk
    return bytes(out)


def _utf8_chunks(payload: bytes) -> list[bytes]:
    """``payload`` in pieces of at most MAX_FRAME_DATA bytes, none splitting a character."""
    chunks = []
    start = 0
    while len(payload) - start > MAX_FRAME_DATA:
        end = start + MAX_FRAME_DATA
        # Back up over continuation bytes (10xxxxxx), at most three in UTF-8, to the
        # first byte of a character; bytes that are not UTF-8 are cut where they fall.
        cut = end
        while cut > end - 3 and payload[cut] & 0xC0 == 0x80:
            cut -= 1
        if payload[cut] & 0xC0 != 0x80:
            end = cut
        chunks.append(payload[start:end])
        start = end
    chunks.append(payload[start:])
    return chunks


def frames(code: int, data: str | bytes = b"") -> bytes:
    """One response as wire bytes: as many frames as the data needs (at least one).

    For text that is not a list of records (HELP, reasons of failures). Data over 65535
    bytes is cut between characters, so each frame is valid UTF-8 on its own; lists go
    through :func:`record_frames` instead, which cuts between records.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    return _join_frames(code, _utf8_chunks(payload))


def record_frames(code: int, records: Iterable[str], *, head: str = "") -> bytes:
    """A list response: ``head`` then the records, each frame holding whole records only.

    Records carry their own separators: ``P0000001:bob:N:0,`` (PPEN), ``1:e2e4:0:1228:0,``
    (SPAR), ``alice:3,`` (SRNK) end in a comma, and TRAN and JAUT send the date as ``head``
    and each name as ``,name``. The frames' data concatenated is the whole answer, as the
    protocol page says a client reads it (it overrides seed 000, whose JAUT text repeats
    the date in every buffer); no frame ends inside a record or a UTF-8 character.
    """
    chunks: list[bytes] = []
    current = bytearray(head.encode("utf-8"))
    for record in records:
        data = record.encode("utf-8")
        if len(data) > MAX_FRAME_DATA:
            raise ValueError(f"a record of {len(data)} bytes does not fit in a frame")
        if len(current) + len(data) > MAX_FRAME_DATA:
            chunks.append(bytes(current))
            current = bytearray()
        current += data
    chunks.append(bytes(current))
    return _join_frames(code, chunks)


def fecha(moment: dt.datetime) -> str:
    """ESPOL date: 11 zero-padded digits of whole seconds since 1970-01-01 UTC."""
    return f"{max(0, int(moment.timestamp())):011d}"


# --------------------------------------------------------------------------- reply texts
# The gateway's own words after a code (the domain errors' words are the service's).

LOGIN_REQUIRED = "login required: USER then PASS"
PASS_WITHOUT_USER = "PASS must follow an accepted USER"
ACCESS_WITHDRAWN = "your access has been withdrawn: log in again"
SYSTEM_ERROR = "the server could not complete the command; nothing changed"
WRONG_LOGIN = "wrong user name or password"
WRONG_PASSWORD = "wrong password"
SUBSCRIPTIONS_ON_CONNECTION = "too many subscription requests on this connection"
BUSY = "too many connections; try later"
LINE_TOO_LONG = "line too long"


def locked_out(name: str, minutes: int) -> str:
    return f"too many failed logins for {name} from your address; try again in {minutes} min"


def subscriptions_from_address(minutes: int) -> str:
    return f"too many subscription requests from your address; try again in {minutes} min"


UNSU_OWN_NAME = "UNSU takes your own user name."


def not_your_opponent(name: str, public_id: str) -> str:
    return f"{name} is not your opponent in {public_id}."


def no_moves_after(number: int) -> str:
    return f"no moves after {number}"


# --------------------------------------------------------------------------- reply fields
# What the handlers' replies hold, in this wire's formats: the handlers pass the values.


def status_code(*, active: bool) -> int:
    """est_prt: 0 active, 2 finished."""
    return 0 if active else 2


def winner_code(result: str) -> int:
    """ganador: 0 none (yet), 1 white, 2 black, 3 draw."""
    return {"1-0": 1, "0-1": 2, "1/2-1/2": 3}.get(result, 0)


def name_record(name: str) -> str:
    """A player in TRAN's and JAUT's lists: ``,name``."""
    return f",{name}"


def pending_game_record(
    *, public_id: str, opponent: str, opponent_colour: str, active: bool
) -> str:
    """A game in PPEN's list: ``P0000012:rival:N:0,``."""
    colour = COLOUR_LETTER[opponent_colour]
    return f"{public_id}:{opponent}:{colour}:{status_code(active=active)},"


def ranking_record(name: str, wins: int) -> str:
    """A player in SRNK's list: ``name:wins,``."""
    return f"{name}:{wins},"


def move_record(number: int, uci: str, reverse: bool) -> str:
    """A move in SPAR's list: ``number:jugada:reverso:posicion:promocion,``."""
    return f"{number}:{uci[:4]}:{int(reverse)}:{position_of(uci)}:{promotion_of(uci)},"


def game_file(public_id: str) -> str:
    """ACEP's reply: the new game's file name, ``P0000012.PEN``."""
    return f"{public_id}.PEN"


def game_outcome(*, active: bool, result: str) -> str:
    """FINP's reply: ``est_prt:ganador``."""
    return f"{status_code(active=active)}:{winner_code(result)}"


def move_outcome(number: int, *, active: bool, result: str) -> str:
    """JGDA's reply: ``numero:est_prt:ganador``."""
    return f"{number}:{game_outcome(active=active, result=result)}"


def game_status(
    *,
    public_id: str,
    white: str,
    black: str,
    date: dt.datetime,
    active: bool,
    result: str,
    requests: tuple[int, int],
    colour: str | None,
    next_move_number: int,
) -> str:
    """STAT's reply: ``partida:blancas:negras:fecha:est_prt:ganador:solicitud_blancas:
    solicitud_negras:color:numero``; a watcher's ``color`` is ``-``."""
    fields = [
        public_id,
        white,
        black,
        fecha(date),
        status_code(active=active),
        winner_code(result),
        *requests,
        COLOUR_LETTER[colour] if colour is not None else "-",
        next_move_number,
    ]
    return ":".join(str(field) for field in fields)


@dataclass(frozen=True)
class Response:
    code: int
    parts: tuple[bytes, ...]  # the data of each frame, in order

    @property
    def data(self) -> bytes:
        """The data of all its frames, concatenated: the whole answer."""
        return b"".join(self.parts)

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


class FrameDecoder:
    """Incremental decoder for clients and tests: feed bytes, take whole responses."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._parts: list[bytes] = []

    def feed(self, data: bytes) -> Iterator[Response]:
        self._buffer += data
        while len(self._buffer) >= 6:
            code_text, more = bytes(self._buffer[:3]), self._buffer[3:4]
            (length,) = struct.unpack(">H", self._buffer[4:6])
            if len(self._buffer) < 6 + length:
                return
            if not code_text.isdigit() or more not in (b"0", b"1"):
                raise ValueError(f"not an ESPOL frame header: {bytes(self._buffer[:6])!r}")
            self._parts.append(bytes(self._buffer[6 : 6 + length]))
            del self._buffer[: 6 + length]
            if more == b"0":
                parts, self._parts = tuple(self._parts), []
                yield Response(int(code_text), parts)
