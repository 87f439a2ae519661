"""ESPOL's replies: the gateway's own texts after a code and the fields of its answers
(STAT's request flags, the records of its lists), in this wire's formats.
"""

from __future__ import annotations

import datetime as dt
import enum

from legacy_tcp.espol.codec.codes import COLOUR_LETTER, fecha, position_of, promotion_of


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


# --------------------------------------------------------------------------- reply texts
# The gateway's own words after a code (the domain errors' words are the service's).

LOGIN_REQUIRED = "login required: USER then PASS"
PASS_WITHOUT_USER = "PASS must follow an accepted USER"
ACCESS_WITHDRAWN = "your access has been withdrawn: log in again"
SYSTEM_ERROR = "the server could not complete the command; nothing changed"
WRONG_LOGIN = "wrong user name or password"
WRONG_PASSWORD = "wrong password"
# The name's subscription request and its own password: not an account (yet).
REQUEST_PENDING = "your subscription request is waiting for an administrator's approval"
REQUEST_REJECTED = "your subscription request was rejected: this name cannot log in"
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
