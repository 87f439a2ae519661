"""Players split into groups of even strength: snake seeding.

With g groups, the players in seed order (the strongest first) go to groups 1, 2, …, g,
then g, …, 2, 1, then 1, 2, … again, so each group gets one player of each "tier" and the
sums of the seeds even out; group sizes differ by one at most.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import ceil
from typing import TypeVar

T = TypeVar("T")


def group_count(players: int, size: int) -> int:
    """How many groups of at most ``size`` hold ``players``."""
    if size < 2:
        raise ValueError("a group holds at least 2 players")
    return max(1, ceil(players / size))


def snake_groups(seeded: Sequence[T], size: int) -> list[list[T]]:
    """``seeded`` (best first) dealt into :func:`group_count` groups, snake fashion."""
    count = group_count(len(seeded), size)
    groups: list[list[T]] = [[] for _ in range(count)]
    for index, player in enumerate(seeded):
        lap, place = divmod(index, count)
        groups[place if lap % 2 == 0 else count - 1 - place].append(player)
    return groups
