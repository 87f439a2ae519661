"""Web clients logged in as the shared test players."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest
from django.test import Client


def _logged_in(user, **options) -> Client:
    client = Client(**options)
    client.force_login(user)
    return client


@pytest.fixture
def as_alice(alice) -> Client:
    return _logged_in(alice)


@pytest.fixture
def as_bob(bob) -> Client:
    return _logged_in(bob)


@pytest.fixture
def as_carol(carol) -> Client:
    return _logged_in(carol)


@pytest.fixture
def server_error(caplog) -> Callable[..., tuple[int, list[logging.LogRecord]]]:
    """Make a request as a browser would see an unexpected error: ``server_error(user,
    "post", url, data, **extra)`` gives the status answered and the errors Django logged
    for it (``django.request``), rather than raising the exception in the test."""

    def request(user, method: str, *args, **extra) -> tuple[int, list[logging.LogRecord]]:
        client = _logged_in(user, raise_request_exception=False)
        with caplog.at_level("ERROR", logger="django.request"):
            response = getattr(client, method)(*args, **extra)
        return response.status_code, [r for r in caplog.records if r.name == "django.request"]

    return request
