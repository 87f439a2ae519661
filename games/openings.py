"""The names of chess openings (ECO code and name), found by position.

python-chess does not name openings. The names are lichess's chess-openings (CC0), as
vendored into ``games/data/openings.tsv`` by ``scripts/vendor_openings.py``: about 3,500
named positions, read once on first use. A game's opening is the last named position it
passed through (``services.make_move`` keeps it on the game), so a transposition into a
known line gets that line's name, as on lichess.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "openings.tsv"
# The deepest named line is shorter than this many plies (checked by the tests): past it
# no position can be named, and the lookup is skipped.
MAX_PLIES = 40


@dataclass(frozen=True)
class Opening:
    eco: str
    name: str
    moves: str


def position_key(fen: str) -> str:
    """What identifies a position in the book: placement, side to move, castling rights
    (not the move counters, nor the en passant square, which eco.json writes unevenly)."""
    return " ".join(fen.split()[:3])


@cache
def book() -> dict[str, Opening]:
    openings = {}
    with DATA.open(encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#") or not line.strip():
                continue
            key, eco, name, moves = line.rstrip("\n").split("\t")
            openings[key] = Opening(eco, name, moves)
    return openings


def opening_at(fen: str, ply: int) -> Opening | None:
    """The opening named for the position ``fen`` reached at half-move ``ply``, if any."""
    if ply > MAX_PLIES:
        return None
    return book().get(position_key(fen))


@cache
def eco_names() -> list[tuple[str, str]]:
    """Every (ECO code, name) pair in the book, sorted: the archive's choice of openings."""
    return sorted({(o.eco, o.name) for o in book().values()})
