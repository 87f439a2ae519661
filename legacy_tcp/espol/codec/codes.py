"""ESPOL's codes and value formats, shared by its commands and its replies.

The response codes and the domain errors they stand for, ESPOL's dates (seconds since
1970), its square numbering, its promotion numbers and its colour letters.
"""

from __future__ import annotations

import datetime as dt
import enum

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
    # ACEP with the colour the challenger did not leave (a challenge made on the web or
    # the lichess API, where the challenger may choose): a bad colour, as 802 says.
    "colour_chosen_by_challenger": Code.F_PARAM,
    "invalid_time_control": Code.F_PARAM,
    "subscription_refused": Code.F_SUBS,
    "subscription_not_pending": Code.F_SUBS,
}

# ESPOL's promocion: the UCI promotion letter ("" for none) → its code, and back.
PROMOTION_CODES = {"": 0, "n": 2, "b": 3, "r": 4, "q": 5}
PROMOTION_LETTER = {str(code): letter for letter, code in PROMOTION_CODES.items()}
# ESPOL's colour letters (blancas, negras), and back.
COLOUR_LETTER = {"white": "B", "black": "N"}
LETTER_COLOUR = {letter: colour for colour, letter in COLOUR_LETTER.items()}


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
    return jugada[:4].lower() + PROMOTION_LETTER.get(promocion, "")


def fecha(moment: dt.datetime) -> str:
    """ESPOL date: 11 zero-padded digits of whole seconds since 1970-01-01 UTC."""
    return f"{max(0, int(moment.timestamp())):011d}"
