"""Correspondence time control: days per move, and the deadline that follows from it.

A game with a time control gives the player it waits for a number of days from the last
move (or the start) to make the next one; the deadline is stored on the game, in UTC,
so that finding the games whose time has run out is one indexed query. Pure functions,
no database.
"""

from __future__ import annotations

import datetime as dt

from django.utils.translation import gettext, ngettext

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
