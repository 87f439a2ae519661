"""The base of every error a service raises on purpose.

Each error has a stable machine ``code`` (front doors map it: HTTP status, WebSocket error
frame, the gateways' reply codes) and a human ``message``. It lives in the core, below
every app, so that each app's errors are handled alike at every door.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _


class DomainError(Exception):
    """Base of every error the service layers raise on purpose."""

    code: str = "domain_error"
    default_message = _("The request could not be carried out.")

    def __init__(self, message: str | None = None, **details: object) -> None:
        self.message = str(message or self.default_message)
        self.details = details
        super().__init__(self.message)

    def as_dict(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, **self.details}
