"""Web clients logged in as the shared test players."""

from __future__ import annotations

import pytest
from django.test import Client


def _logged_in(user) -> Client:
    client = Client()
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
