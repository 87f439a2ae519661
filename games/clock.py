"""Correspondence time control: days per move, and the deadline that follows from it.

A game with a time control gives the player it waits for a number of days from the last
move (or the start) to make the next one; the deadline is stored on the game, in UTC,
so that finding the games whose time has run out is one indexed query. Pure functions,
no database.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Protocol

from django.utils.translation import gettext, ngettext

from games import rules

# The choices offered (lichess's correspondence and chess.com's Daily both offer 1–14).
DAYS_PER_MOVE = (1, 2, 3, 5, 7, 10, 14)

# What the challenge forms offer first: a correspondence game with a clock. (ESPOL JUEG
# has no field for it: its challenges have none.)
DEFAULT_DAYS_PER_MOVE = 3

# The 24-hour warning and the dashboards speak of this much time left as "little".
LOW_TIME = dt.timedelta(hours=24)


def is_valid_days(days: object) -> bool:
    """Whether ``days`` is one of the offered time controls (``None``: no clock)."""
    return days is None or (type(days) is int and days in DAYS_PER_MOVE)


def deadline_after(moment: dt.datetime, days: int | None) -> dt.datetime | None:
    """The deadline of a move whose clock starts at ``moment``; ``None`` without a clock.

    ``moment`` is aware UTC, and a day is 24 hours of real time: across a change to or
    from summer time the deadline falls an hour earlier or later on the wall clock, as
    it does on lichess, never a player's hour more or less.
    """
    if days is None:
        return None
    return moment + dt.timedelta(days=days)


def label(days: int | None) -> str:
    """``3 days per move`` or ``no time limit``, in the active language."""
    if days is None:
        return gettext("no time limit")
    return ngettext("%(days)d day per move", "%(days)d days per move", days) % {"days": days}


def time_control_choices(chosen: str = "") -> list[tuple[str, str, bool]]:
    """``[("1", "1 day per move", False), …, ("none", "no time limit", False)]`` for a
    select: value, label, and whether it is selected: ``chosen`` (a value the form sent
    before and comes back with) when it is one of them, else the one offered first."""
    choices = [(str(days), label(days)) for days in DAYS_PER_MOVE] + [("none", label(None))]
    selected = chosen if chosen in {value for value, _label in choices} else str(
        DEFAULT_DAYS_PER_MOVE
    )
    return [(value, text, value == selected) for value, text in choices]


def pgn_time_control(days: int | None) -> str:
    """The PGN ``TimeControl`` tag: ``1/259200`` (one move per 3 days, in seconds: the
    standard's moves/seconds period, as chess.com writes its Daily games), ``-`` for no
    time control (PGN standard 9.6.1)."""
    if days is None:
        return "-"
    return f"1/{days * 86_400}"


def left_text(left: dt.timedelta) -> str:
    """``2d 5h left``: the time left on a clock as pages (before their script counts
    down) and e-mail show it."""
    seconds = max(0, int(left.total_seconds()))
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3_600)
    minutes = rest // 60
    if days:
        return gettext("%(days)dd %(hours)dh left") % {"days": days, "hours": hours}
    if hours:
        return gettext("%(hours)dh %(minutes)dm left") % {"hours": hours, "minutes": minutes}
    return gettext("%(minutes)dm left") % {"minutes": minutes}


# --------------------------------------------------------------------------- running out


def is_due(
    *, active: bool, deadline: dt.datetime | None, paused_at: dt.datetime | None, now: dt.datetime
) -> bool:
    """Whether a game's running clock has passed its deadline by ``now``: in progress,
    with a clock that is not standing still (vacation), and the deadline reached."""
    return active and deadline is not None and paused_at is None and deadline <= now


@dataclass(frozen=True)
class Expiry:
    """How a game whose time has run out ends: ``out_of_time`` (the colour the game
    waited for) loses, or the game is aborted; it ended at its deadline, ``at``."""

    out_of_time: str
    outcome: rules.Outcome
    at: dt.datetime

    @property
    def event(self) -> str:
        """The live event that tells of it: ``aborted`` or ``timeout``."""
        return "aborted" if self.outcome.termination == rules.Termination.ABORTED else "timeout"


def expiry(
    *,
    active: bool,
    deadline: dt.datetime | None,
    paused_at: dt.datetime | None,
    colour_on_clock: str,
    fen: str,
    start_fen: str,
    plies_played: int,
    now: dt.datetime,
    can_abort: bool = True,
) -> Expiry | None:
    """How a game in this state has ended by ``now`` on time, or ``None`` while its time
    has not run out (no clock, a clock standing still, time left, or already over).

    The one rule of running out, for the services that write the ending and for the
    read model that shows a game past its deadline as over before the sweep ends it: the
    player the game waits for loses (a draw when the opponent has no mating material);
    before both players have moved the game is aborted instead, unless it cannot be
    (``can_abort`` false: a tournament's game, which is scored whatever happens).
    """
    if deadline is None or not is_due(
        active=active, deadline=deadline, paused_at=paused_at, now=now
    ):
        return None
    # Before each side has moved, the player who ran out never had to answer a move of
    # the opponent: aborted (no result, not rated) rather than lost.
    if can_abort and not rules.both_sides_have_moved(start_fen=start_fen, plies=plies_played):
        return Expiry(colour_on_clock, rules.ABORTED, deadline)
    return Expiry(colour_on_clock, rules.timeout_outcome(fen, colour_on_clock), deadline)


class _OnTheClock(Protocol):
    @property
    def is_active(self) -> bool: ...
    @property
    def deadline(self) -> dt.datetime | None: ...
    @property
    def paused_at(self) -> dt.datetime | None: ...
    @property
    def colour_on_clock(self) -> str: ...
    @property
    def tournament_id(self) -> int | None: ...
    @property
    def fen(self) -> str: ...
    @property
    def start_fen(self) -> str: ...
    @property
    def next_move_number(self) -> int: ...


def expiry_of(game: _OnTheClock, now: dt.datetime) -> Expiry | None:
    """:func:`expiry` of a game (a ``games.models.Game``)."""
    return expiry(
        active=game.is_active,
        deadline=game.deadline,
        paused_at=game.paused_at,
        colour_on_clock=game.colour_on_clock,
        fen=game.fen,
        start_fen=game.start_fen,
        plies_played=game.next_move_number - 1,
        now=now,
        can_abort=game.tournament_id is None,
    )
