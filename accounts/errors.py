"""Domain errors: the base every app's errors share, and the accounts' own.

Each error has a stable machine ``code`` (front doors map it: HTTP status, WebSocket error
frame, ESPOL response code) and a human ``message``. The base lives in the lowest app, so
that every app above can raise errors the front doors handle alike.
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


class UserNotFound(DomainError):
    code = "user_not_found"
    default_message = _("No such active player.")


class SubscriptionRefused(DomainError):
    code = "subscription_refused"
    default_message = _("The subscription request was refused.")


class SubscriptionNotPending(DomainError):
    code = "subscription_not_pending"
    default_message = _("That subscription request has already been decided.")


class SubscriptionNotFound(DomainError):
    code = "subscription_not_found"
    default_message = _("No such subscription request.")


class WrongPassword(DomainError):
    code = "wrong_password"
    default_message = _("Wrong password.")


class InvalidGuestName(DomainError):
    code = "invalid_guest_name"
    default_message = _("That name cannot be a guest's.")
