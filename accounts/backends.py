"""An authentication backend that logs nobody in: it recognises the password of a
subscription request not approved (yet), so that such a login is told why it cannot
log in, and is not counted as a failed guess (:class:`accounts.throttling.LoginFailureHandler`).

Listed after Django's ``ModelBackend``, and after django-axes' backend, which refuses a
locked-out name before any password is checked, this one's included: a guesser locked
out of a name cannot go on trying its request's password either.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import BaseBackend
from django.contrib.auth.hashers import check_password
from django.http import HttpRequest

from accounts.models import SubscriptionRequest

# The attribute set on the request when the password was a request's: "request_pending"
# or "request_rejected". Read by the login form, ESPOL's check_login and the handler that
# counts failures.
REQUEST_STATE = "subscription_request_state"


def request_state(request: HttpRequest | None) -> str | None:
    """What :class:`SubscriptionRequestBackend` found during this request's login."""
    return getattr(request, REQUEST_STATE, None)


class SubscriptionRequestBackend(BaseBackend):
    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> None:
        if request is None or not username or not password:
            return None
        username = username.strip()
        if get_user_model().objects.filter(username__iexact=username).exists():
            return None  # an account's password was wrong: a failure like any other
        latest = (
            SubscriptionRequest.objects.filter(username__iexact=username)
            .order_by("-created_at", "-pk")
            .first()
        )
        if latest is None or latest.status == SubscriptionRequest.Status.APPROVED:
            return None
        # Only with the request's own password: the answer tells nothing to a guesser.
        if check_password(password, latest.password_hash):
            pending = latest.status == SubscriptionRequest.Status.PENDING
            setattr(request, REQUEST_STATE, "request_pending" if pending else "request_rejected")
        return None
