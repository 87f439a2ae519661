"""API clients: a player's token with the scopes a test names, sent as lichess's clients
send it (``Authorization: Bearer``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client

from accounts import tokens


@pytest.fixture
def token_of() -> Callable[..., str]:
    def make(player, *scopes: str) -> str:
        return tokens.create_token(player=player, description="test", scopes=scopes)[1]

    return make


@pytest.fixture
def api(token_of) -> Callable[..., Client]:
    """``api(player, *scopes)``: a test client sending a new token of ``player``."""

    def make(player, *scopes: str) -> Client:
        return Client(HTTP_AUTHORIZATION=f"Bearer {token_of(player, *scopes)}")

    return make
