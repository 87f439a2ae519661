"""Signals the games app sends for the apps and modules that act on its events."""

from __future__ import annotations

from django.dispatch import Signal

# Sent after the commit that saved a notification, with ``notification=`` the row (new,
# or an unread "opponent moved" updated with the next move: ``collapsed=True``).
notification_created = Signal()

# Sent after the commit that queued a game's analysis (``analysis=`` the row) or a
# position of the analysis board (``evaluation=``): the background worker takes it up.
analysis_requested = Signal()
position_evaluation_requested = Signal()
