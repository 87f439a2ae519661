"""Fixtures of the accounts' tests."""

from __future__ import annotations

import pytest
from django.test import Client


@pytest.fixture
def player_client(alice) -> Client:
    """A browser logged in as alice."""
    client = Client()
    client.force_login(alice)
    return client
