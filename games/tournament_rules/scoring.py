"""Standings of a round-robin group, and ICCF's rule for a player who withdraws.

Players are ordered by points (win 1, draw ½), then by the tiebreaks ICCF uses for its
sections, in this order: the Sonneborn–Berger score (the points of each opponent beaten,
and half the points of each opponent drawn with), the number of wins, and the direct
encounter (the points scored in the games between the players still level). Players
level on all of these share their place; they are listed, and a qualifying cut-off is
decided, by seed (the order given, strongest first).

A withdrawal (ICCF Playing Rules): when a player leaves with fewer than half of their
games finished, all their results are annulled, for their opponents too; otherwise the
games left unfinished are lost (the services end them so) and everything counts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

P = TypeVar("P", bound=Hashable)


@dataclass(frozen=True)
class GameResult(Generic[P]):
    """A game of the group: ``score`` is white's points (1, 0.5, 0), ``None`` while it is
    being played."""

    white: P
    black: P
    score: float | None


@dataclass(frozen=True)
class Standing(Generic[P]):
    """One player's line of the table. ``place`` is shared by players level on every
    tiebreak, and ``None`` for a player whose results were annulled."""

    player: P
    points: float
    played: int
    left: int
    wins: int
    sonneborn_berger: float
    place: int | None
    annulled: bool


def annuls_on_withdrawal(finished: int, total: int) -> bool:
    """Whether a player withdrawing with ``finished`` of their ``total`` games over has
    all their results annulled (under half finished) rather than the rest lost."""
    return 2 * finished < total


def standings(
    players: Sequence[P],
    games: Iterable[GameResult[P]],
    *,
    annulled: Collection[P] = (),
) -> list[Standing[P]]:
    """The table of ``players`` (in seed order, strongest first) after ``games``; the
    games of the players in ``annulled`` count for nobody, and those players come last.
    Every game must be between two of ``players``."""
    seed = {player: index for index, player in enumerate(players)}
    points: dict[P, float] = defaultdict(float)
    played: dict[P, int] = defaultdict(int)
    left: dict[P, int] = defaultdict(int)
    wins: dict[P, int] = defaultdict(int)
    counted: list[GameResult[P]] = []
    for game in games:
        if game.white not in seed or game.black not in seed:
            raise ValueError(f"a game between {game.white!r} and {game.black!r}: not of this group")
        if game.white in annulled or game.black in annulled:
            continue
        if game.score is None:
            left[game.white] += 1
            left[game.black] += 1
            continue
        counted.append(game)
        for player, score in ((game.white, game.score), (game.black, 1 - game.score)):
            points[player] += score
            played[player] += 1
            wins[player] += score == 1
    sonneborn_berger: dict[P, float] = defaultdict(float)
    for game in counted:
        assert game.score is not None
        sonneborn_berger[game.white] += game.score * points[game.black]
        sonneborn_berger[game.black] += (1 - game.score) * points[game.white]

    ranked = sorted(
        (p for p in players if p not in annulled),
        key=lambda p: (-points[p], -sonneborn_berger[p], -wins[p], seed[p]),
    )
    encounter = _direct_encounters(ranked, counted, points, sonneborn_berger, wins)
    ranked.sort(key=lambda p: (-points[p], -sonneborn_berger[p], -wins[p], -encounter[p], seed[p]))

    def level(p: P) -> tuple[float, float, int, float]:
        return (points[p], sonneborn_berger[p], wins[p], encounter[p])

    table = []
    place = 0
    for index, player in enumerate(ranked):
        if index == 0 or level(player) != level(ranked[index - 1]):
            place = index + 1
        table.append(
            Standing(player, points[player], played[player], left[player], wins[player],
                     sonneborn_berger[player], place, annulled=False)
        )
    table += [
        Standing(player, 0.0, 0, 0, 0, 0.0, None, annulled=True)
        for player in players
        if player in annulled
    ]
    return table


def _direct_encounters(
    ranked: list[P],
    games: list[GameResult[P]],
    points: dict[P, float],
    sonneborn_berger: dict[P, float],
    wins: dict[P, int],
) -> dict[P, float]:
    """For each player level with others on points, Sonneborn–Berger and wins: the
    points they scored in the games among those players (0 for the others)."""
    tied: dict[tuple[float, float, int], set[P]] = defaultdict(set)
    for player in ranked:
        tied[(points[player], sonneborn_berger[player], wins[player])].add(player)
    encounter: dict[P, float] = defaultdict(float)
    for level in tied.values():
        if len(level) < 2:
            continue
        for game in games:
            if game.white in level and game.black in level:
                assert game.score is not None
                encounter[game.white] += game.score
                encounter[game.black] += 1 - game.score
    return encounter
