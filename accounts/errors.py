"""The accounts' domain errors (their base, :class:`DomainError`, is the core's)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from ajedrez.core.errors import DomainError


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


class GuestsRateLimited(DomainError):
    code = "guests_rate_limited"
    default_message = _("Too many new guests from this address: try again later.")


class InvalidGuestName(DomainError):
    code = "invalid_guest_name"
    default_message = _("That name cannot be a guest's.")


class NoSuchToken(DomainError):
    code = "no_such_token"
    default_message = _("No such token")


class UnknownScope(DomainError):
    code = "unknown_scope"
    default_message = _("Unknown scope.")


class TokenRefused(DomainError):
    code = "token_refused"
    default_message = _("The token could not be made.")
