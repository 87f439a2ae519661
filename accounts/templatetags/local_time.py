"""Dates and times as the reader reads them: in the page's zone (the reader's, see
``accounts.time_zones``), with the zone named, since a correspondence player's opponent is
often in another one."""

from __future__ import annotations

import datetime as dt

from django import template
from django.utils.formats import date_format
from django.utils.timezone import get_current_timezone_name

register = template.Library()


@register.filter(expects_localtime=True)
def local_datetime(value: dt.datetime | None) -> str:
    """``value`` in the locale's date-and-time format and the page's zone, the zone's
    abbreviation after it: "25 Nov 2026, 23:30 CET"."""
    if not isinstance(value, dt.datetime):
        return ""
    return f"{date_format(value, 'DATETIME_FORMAT')} {value.tzname() or ''}".rstrip()


@register.simple_tag
def current_time_zone() -> str:
    """The IANA name of the page's zone, for the scripts that write times."""
    return get_current_timezone_name()
