"""Correspondence time controls, and the deadline that follows from them.

Two kinds: days per move (the player the game waits for has that many days from the last
move, or the start, to make the next one) and a Fischer clock (each player has a bank of
time, base days at the start; the bank of the side to move runs down, and after a move
the mover's bank gets the increment, capped). Either way the deadline of the player the
game waits for is stored on the game, in UTC ("now + bank" for a Fischer clock), so that
finding the games whose time has run out is one indexed query, the sweep, vacations and
the warnings treat both kinds alike, and the side not on the clock keeps its bank as a
duration. Pure functions, no database: the one place of the clocks' arithmetic, for the
services that write and the read model that shows.
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


# --------------------------------------------------------------------------- Fischer

# The bounds of a Fischer clock's days: ICCF's and SchemingMind's events stay well inside.
FISCHER_MAX_BASE_DAYS = 365
FISCHER_MAX_INCREMENT_DAYS = 30
FISCHER_MAX_CAP_DAYS = 365
DAY = dt.timedelta(days=1)


@dataclass(frozen=True)
class Fischer:
    """A Fischer clock: ``base_days`` in each bank at the start, ``increment_days`` added
    to the mover's bank after each move, never past ``cap_days``."""

    base_days: int
    increment_days: int
    cap_days: int

    @property
    def base(self) -> dt.timedelta:
        return self.base_days * DAY

    @property
    def increment(self) -> dt.timedelta:
        return self.increment_days * DAY

    @property
    def cap(self) -> dt.timedelta:
        return self.cap_days * DAY

    def bank_after_move(self, left: dt.timedelta) -> dt.timedelta:
        """The mover's bank after a move made with ``left`` on it: the increment added,
        capped (a bank already past the cap, which cannot happen, comes down to it)."""
        return min(max(dt.timedelta(0), left) + self.increment, self.cap)


def fischer_problem(base_days: object, increment_days: object, cap_days: object) -> str | None:
    """Why these numbers make no Fischer clock (a sentence in the active language), or
    ``None`` when they make one. Whole days only: a bool, a float or a text is refused."""
    values = {"base": base_days, "increment": increment_days, "cap": cap_days}
    if any(type(value) is not int for value in values.values()):
        return gettext("The Fischer clock's base, increment and cap must be whole days.")
    assert isinstance(base_days, int) and isinstance(increment_days, int)
    assert isinstance(cap_days, int)
    if not 1 <= base_days <= FISCHER_MAX_BASE_DAYS:
        return gettext("The Fischer clock's base must be 1 to %(max)d days.") % {
            "max": FISCHER_MAX_BASE_DAYS
        }
    if not 0 <= increment_days <= FISCHER_MAX_INCREMENT_DAYS:
        return gettext("The Fischer clock's increment must be 0 to %(max)d days.") % {
            "max": FISCHER_MAX_INCREMENT_DAYS
        }
    if not base_days <= cap_days <= FISCHER_MAX_CAP_DAYS:
        return gettext(
            "The Fischer clock's cap must be at least its base and at most %(max)d days."
        ) % {"max": FISCHER_MAX_CAP_DAYS}
    return None


def fischer_label(fischer: Fischer) -> str:
    """``30 days + 1 per move (max 40)``, in the active language."""
    return ngettext(
        "%(base)d day + %(increment)d per move (max %(cap)d)",
        "%(base)d days + %(increment)d per move (max %(cap)d)",
        fischer.base_days,
    ) % {"base": fischer.base_days, "increment": fischer.increment_days, "cap": fischer.cap_days}


def pgn_fischer_time_control(fischer: Fischer) -> str:
    """The PGN ``TimeControl`` tag of a Fischer clock: ``2592000+86400``, base+increment
    in seconds (PGN standard 9.6.1; the cap has no place in it)."""
    return f"{fischer.base_days * 86_400}+{fischer.increment_days * 86_400}"


def left_on_deadline(
    deadline: dt.datetime, paused_at: dt.datetime | None, now: dt.datetime
) -> dt.timedelta:
    """What a running clock (or one standing still since ``paused_at``) has left before
    ``deadline``; never below zero."""
    return max(dt.timedelta(0), deadline - (paused_at or now))


class _Banked(Protocol):
    @property
    def is_active(self) -> bool: ...
    @property
    def deadline(self) -> dt.datetime | None: ...
    @property
    def paused_at(self) -> dt.datetime | None: ...
    @property
    def time_left(self) -> dt.timedelta | None: ...
    @property
    def colour_on_clock(self) -> str: ...
    @property
    def colour_to_move(self) -> str: ...
    @property
    def fischer(self) -> Fischer | None: ...
    @property
    def white_bank(self) -> dt.timedelta | None: ...
    @property
    def black_bank(self) -> dt.timedelta | None: ...


def bank_of(game: _Banked, colour: str, now: dt.datetime) -> dt.timedelta | None:
    """What ``colour`` has in its Fischer bank at ``now`` (``None`` without a Fischer
    clock): the side on the clock what is left before its deadline (standing still on
    vacation); the offerer of a draw waiting for the answer what it had when it offered;
    the other side its stored bank. A finished game shows the banks as they stood."""
    if game.fischer is None:
        return None
    if game.is_active and game.deadline is not None:
        if colour == game.colour_on_clock:
            return left_on_deadline(game.deadline, game.paused_at, now)
        if game.time_left is not None and colour == game.colour_to_move:
            return game.time_left
    stored = game.white_bank if colour == rules.WHITE else game.black_bank
    return stored if stored is not None else game.fischer.base


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
