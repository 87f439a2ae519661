"""The language cookie a logged-in player's choice sets, as Django's own switcher does."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse


def set_language_cookie(response: HttpResponse, language: str) -> None:
    """What Django's own language switcher sets, with the same cookie settings."""
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )
