"""What every page of a logged-in player shows: how many games await them (the tab's
title says it) and how many notifications are unread (the bell); ``static/js/awaiting.js``
keeps both up to date."""

from __future__ import annotations

from django.http import HttpRequest

from games import notifications, state


def awaiting(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {
        "awaiting_count": lambda: state.awaiting_count(user),
        "notifications_unread": lambda: notifications.unread_count(user.pk),
    }
