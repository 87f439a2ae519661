"""Template helpers for correspondence clocks: the time controls offered, their labels,
and a countdown element that ``static/js/countdown.js`` keeps up to date."""

from __future__ import annotations

import datetime as dt

from django import template
from django.utils.html import format_html
from django.utils.translation import gettext

from games import clock

register = template.Library()


@register.simple_tag
def time_control_choices(chosen: str = "") -> list[tuple[str, str, bool]]:
    """The time controls for a select (:func:`games.clock.time_control_choices`),
    ``chosen`` selected when a refused form comes back with it."""
    return clock.time_control_choices(chosen)


@register.simple_tag
def fischer_limits() -> dict[str, int]:
    """The bounds of a Fischer clock's three numbers of days, for the form's fields."""
    return {
        "base": clock.FISCHER_MAX_BASE_DAYS,
        "increment": clock.FISCHER_MAX_INCREMENT_DAYS,
        "cap": clock.FISCHER_MAX_CAP_DAYS,
    }


@register.filter
def time_control(days: int | None) -> str:
    return clock.label(days)


@register.simple_tag
def countdown(deadline: dt.datetime | None, mine: bool = False) -> str:
    """A ``<time>`` counting down to ``deadline``: the server writes the UTC moment and
    a first text; the page's script counts down each second and shows the moment in the
    reader's own time zone. Nothing without a deadline."""
    if deadline is None:
        return ""
    left = max(dt.timedelta(0), deadline - dt.datetime.now(dt.UTC))
    return format_html(
        '<time class="countdown{}" datetime="{}" data-deadline="{}" data-mine="{}"'
        ' data-expired="{}" title="{}">{}</time>',
        " countdown-low" if mine and left < clock.LOW_TIME else "",
        deadline.isoformat(),
        deadline.isoformat(),
        "1" if mine else "0",
        gettext("time is up"),
        deadline.strftime("%Y-%m-%d %H:%M UTC"),
        clock.left_text(left),
    )


@register.filter
def time_left(deadline: dt.datetime | None) -> str:
    """``2d 5h left``: the time until ``deadline``, as a first text before the script."""
    if deadline is None:
        return ""
    return clock.left_text(max(dt.timedelta(0), deadline - dt.datetime.now(dt.UTC)))


@register.filter
def seconds_left(seconds: int | None) -> str:
    """``2d 5h left``: a Fischer bank of ``seconds`` (the read model's), as text."""
    if seconds is None:
        return ""
    return clock.left_text(dt.timedelta(seconds=seconds))
