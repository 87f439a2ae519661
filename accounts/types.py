"""Types the apps' annotations share."""

from __future__ import annotations

from django.contrib.auth.models import User as Player
from django.http import HttpRequest

__all__ = ["AuthenticatedRequest", "Player"]


class AuthenticatedRequest(HttpRequest):
    """A request that passed ``login_required``: its user is a player, never anonymous."""

    user: Player
