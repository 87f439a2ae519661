"""Round-robin pairings by FIDE's Berger tables (FIDE Handbook C.05, Annex 1).

Players are numbered 1…n by lot. For an even n the table has n − 1 rounds; round 1 is
1–n, 2–(n−1), 3–(n−2)…, the first named playing white. Each next round is the previous
one with every number k < n moved on by n/2 (counted round 1…n−1), each pair keeping its
colours, except the pair with n, whose colours swap: so n alternates white and black, and
the table printed in the Handbook comes out, pair by pair and in its order.

For an odd n the table of n + 1 is used and whoever meets n + 1 has a bye that round.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pairing:
    """One game of the round robin: in ``round``, ``white`` plays ``black`` (numbers)."""

    round: int
    white: int
    black: int


def berger_table(players: int) -> list[list[tuple[int, int]]]:
    """The Berger table for ``players`` (at least 2): a list of rounds, each a list of
    (white, black) numbers in the Handbook's order. For an odd count it is the table of
    ``players + 1``, so pairs with that number are byes."""
    if players < 2:
        raise ValueError("a round robin needs at least 2 players")
    n = players + players % 2
    half = n // 2
    current = [(i, n + 1 - i) for i in range(1, half + 1)]
    rounds = [current]
    for _ in range(n - 2):

        def moved(k: int) -> int:
            return k if k == n else (k - 1 + half) % (n - 1) + 1

        current = [
            (moved(black), moved(white)) if n in (white, black) else (moved(white), moved(black))
            for white, black in current
        ]
        rounds.append(current)
    return rounds


def round_robin(players: int, *, cycles: int = 1) -> list[Pairing]:
    """Every game of a round robin of ``players`` in ``cycles`` (1: each pair once; 2: each
    pair twice, the second time with the colours reversed), byes left out. The rounds of
    the second cycle follow those of the first (a table of r rounds: r + 1…2r).

    In correspondence chess every game starts at once, so the round numbers order nothing
    in time: they name the games (the PGN's Round tag) and decide the colours."""
    if cycles not in (1, 2):
        raise ValueError("a round robin has one or two cycles")
    table = berger_table(players)
    games = []
    for cycle in range(cycles):
        for number, pairs in enumerate(table, start=1 + cycle * len(table)):
            for white, black in pairs:
                if max(white, black) > players:
                    continue  # the bye
                if cycle:
                    white, black = black, white
                games.append(Pairing(number, white, black))
    return games
