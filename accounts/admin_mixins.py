"""What the admin pages of every app share (here, in the lowest app, so all can use it)."""

from __future__ import annotations

from django.http import HttpRequest


class ReadOnlyAdminMixin:
    """An admin page that shows records and never writes them.

    Games, challenges, decided requests and records change only through the services
    (admin actions call them), so the generic add/change/delete forms are closed.
    """

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
