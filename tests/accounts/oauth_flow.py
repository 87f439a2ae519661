"""An OAuth2 client's side of the flow, for the tests: the request it sends the player
with, the code it is sent back, the exchange it makes."""

from __future__ import annotations

import secrets
from urllib.parse import parse_qs, urlencode, urlsplit

from django.test import Client

from accounts import oauth

REDIRECT = "https://app.example.com/callback"
VERIFIER = secrets.token_urlsafe(48)


def request_params(**overrides: str | None) -> dict[str, str]:
    params = {
        "response_type": "code",
        "client_id": "example.com",
        "redirect_uri": REDIRECT,
        "code_challenge_method": "S256",
        "code_challenge": oauth.challenge_of(VERIFIER),
        "scope": "board:play challenge:read",
        "state": "st4te",
    }
    for name, value in overrides.items():
        if value is None:
            params.pop(name, None)
        else:
            params[name] = value
    return params


def oauth_url(**overrides: str | None) -> str:
    return "/oauth?" + urlencode(request_params(**overrides))


def query_of(location: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(location).query).items()}


def granted_code(client: Client, **overrides: str | None) -> str:
    response = client.post(oauth_url(**overrides), {"decision": "accept"})
    assert response.status_code == 303, response.content
    return query_of(response["Location"])["code"]


def exchange(code: str | None, /, **overrides: str | None):
    body = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": VERIFIER,
        "redirect_uri": REDIRECT,
        "client_id": "example.com",
    }
    for name, value in overrides.items():
        if value is None:
            body.pop(name, None)
        else:
            body[name] = value
    return Client().post("/api/token", body)
