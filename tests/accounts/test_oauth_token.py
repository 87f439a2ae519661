"""OAuth2's token endpoint at lichess's path: ``POST /api/token`` exchanges a code
for a token, ``DELETE /api/token`` revokes it; every exchange it refuses, with lichess's
errors."""

from __future__ import annotations

import datetime as dt
import json
import secrets

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import tokens
from accounts.models import ApiToken, OAuthAuthorization
from tests.accounts.oauth_flow import (
    REDIRECT,
    VERIFIER,
    exchange,
    granted_code,
)

# --------------------------------------------------------------------------- exchange


def test_the_code_is_exchanged_for_an_ordinary_token(player_client, alice):
    code = granted_code(player_client)

    response = exchange(code)

    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert body["token_type"] == "Bearer" and body["access_token"].startswith("lio_")
    assert body["expires_in"] == 365 * 24 * 3600
    token = ApiToken.objects.get(digest=tokens.digest_of(body["access_token"]))
    assert (token.player, token.description) == (alice, "example.com")
    assert token.scopes == ["challenge:read", "board:play"]
    assert token.expires_at > timezone.now() + dt.timedelta(days=364)
    account = Client(HTTP_AUTHORIZATION=f"Bearer {body['access_token']}").get("/api/account")
    assert account.status_code == 200 and account.json()["username"] == "alice"


def test_the_granted_token_is_listed_and_revocable_on_the_preferences_page(player_client):
    text = exchange(granted_code(player_client)).json()["access_token"]
    token = ApiToken.objects.get(digest=tokens.digest_of(text))

    page = player_client.get(reverse("preferences")).content.decode()
    assert "example.com" in page and f'data-token-id="{token.pk}"' in page
    player_client.post(reverse("api_token_revoke", args=[token.pk]))

    assert Client(HTTP_AUTHORIZATION=f"Bearer {text}").get("/api/account").status_code == 401


def test_a_json_body_is_read_too(player_client):
    code = granted_code(player_client)
    response = Client().post(
        "/api/token",
        json.dumps({
            "grant_type": "authorization_code", "code": code, "code_verifier": VERIFIER,
            "redirect_uri": REDIRECT, "client_id": "example.com",
        }),
        content_type="application/json",
    )
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("code", "status", "description"),
    [
        (None, 400, "code required"),
        (12345, 400, "authorization code invalid"),
        (True, 400, "authorization code invalid"),
        ([1, 2], 400, "Invalid value for code"),
        ({"a": 1}, 400, "Invalid value for code"),
    ],
)
def test_a_json_code_of_another_type_is_refused(db, code, status, description):
    body = {"grant_type": "authorization_code", "code": code, "code_verifier": VERIFIER,
            "redirect_uri": REDIRECT, "client_id": "example.com"}
    response = Client().post("/api/token", json.dumps(body), content_type="application/json")
    assert response.status_code == status
    assert description in json.dumps(response.json())


def test_a_code_is_spent_by_its_first_exchange(player_client):
    code = granted_code(player_client)
    assert exchange(code).status_code == 200

    again = exchange(code)

    assert again.status_code == 400
    assert again.json() == {
        "error": "invalid_grant",
        "error_description": "authorization code invalid, expired or consumed",
    }


def test_a_wrong_verifier_spends_the_code(player_client):
    code = granted_code(player_client)

    wrong = exchange(code, code_verifier=secrets.token_urlsafe(48))
    assert wrong.status_code == 400
    assert wrong.json() == {
        "error": "invalid_grant",
        "error_description": "hash of code_verifier does not match code_challenge",
    }
    # No second guess: the right verifier now finds no code.
    assert exchange(code).json()["error_description"] == (
        "authorization code invalid, expired or consumed"
    )
    assert not ApiToken.objects.exists()


def test_a_code_expires_after_two_minutes(player_client):
    code = granted_code(player_client)

    with time_machine.travel(timezone.now() + dt.timedelta(seconds=121), tick=False):
        response = exchange(code)

    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid_grant", "error_description": "authorization code expired"
    }


def test_a_code_still_works_just_before_two_minutes(player_client):
    code = granted_code(player_client)
    with time_machine.travel(timezone.now() + dt.timedelta(seconds=110), tick=False):
        assert exchange(code).status_code == 200


@pytest.mark.parametrize(
    ("overrides", "description"),
    [
        ({"redirect_uri": "https://app.example.com/other"}, "different redirect_uri"),
        ({"redirect_uri": REDIRECT + "/"}, "different redirect_uri"),
        ({"client_id": "evil.example"}, "different client_id"),
    ],
)
def test_a_code_is_bound_to_its_redirect_uri_and_client(player_client, overrides, description):
    response = exchange(granted_code(player_client), **overrides)

    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid_grant" and description in body["error_description"]
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize(
    ("overrides", "error", "description"),
    [
        ({"grant_type": None}, "invalid_request", "grant_type required"),
        ({"grant_type": ""}, "invalid_request", "grant_type required"),
        ({"grant_type": "refresh_token"}, "unsupported_grant_type", "authorization_code"),
        ({"code": None}, "invalid_request", "code required"),
        ({"code": ""}, "invalid_request", "code required"),
        ({"code": "liu_" + "x" * 5000}, "invalid_grant", "invalid, expired or consumed"),
        ({"code": "liu_unknown"}, "invalid_grant", "invalid, expired or consumed"),
        ({"code": "liu_ñandú\u2603"}, "invalid_grant", "invalid, expired or consumed"),
        ({"code_verifier": None}, "invalid_request", "code_verifier required"),
        ({"code_verifier": "tooshort"}, "invalid_request", "code_verifier too short"),
        ({"code_verifier": "a" * 129}, "invalid_request", "code_verifier invalid"),
        ({"code_verifier": "é" * 50}, "invalid_request", "code_verifier invalid"),
        ({"code_verifier": "a b" * 20}, "invalid_request", "code_verifier invalid"),
        ({"redirect_uri": None}, "invalid_request", "redirect_uri required"),
        ({"client_id": None}, "invalid_request", "client_id required"),
        ({"client_id": ""}, "invalid_request", "client_id required"),
    ],
)
def test_a_wrong_exchange_gets_lichess_error(overrides, error, description, db):
    response = exchange("liu_" + "a" * 32, **overrides)

    assert response.status_code == 400
    assert response["Access-Control-Allow-Origin"] == "*"
    body = response.json()
    assert body["error"] == error and description in body["error_description"]


def test_an_empty_exchange_asks_for_the_grant_type(db):
    response = Client().post("/api/token")
    assert response.json()["error_description"] == "grant_type required"


def test_an_exchange_that_is_not_a_form_or_json_is_refused(db):
    assert Client().post("/api/token", "[1, 2]", content_type="application/json").status_code == 400
    response = Client().post("/api/token", "x", content_type="text/plain")
    assert response.status_code == 415


def test_a_huge_exchange_body_is_refused(db):
    response = Client().post("/api/token", {"code": "x" * 20_000})
    assert response.status_code == 413


@pytest.mark.parametrize("method", ["get", "put", "patch"])
def test_the_token_endpoint_takes_post_and_delete_only(db, method):
    response = getattr(Client(), method)("/api/token")
    assert response.status_code == 405
    assert response["Allow"] == "POST, DELETE"
    assert "error" in response.json()


def test_an_account_closed_after_the_consent_gets_no_token(player_client, alice):
    code = granted_code(player_client)
    alice.is_active = False
    alice.save()

    response = exchange(code)

    assert response.status_code == 400 and response.json()["error"] == "invalid_grant"
    assert not ApiToken.objects.exists()


def test_exchanges_are_counted_per_address(settings, db):
    settings.API_TOKEN_REQUESTS_PER_MINUTE = 3
    for _ in range(3):
        assert exchange("liu_nothing").status_code == 400

    refused = exchange("liu_nothing")

    assert refused.status_code == 429
    assert int(refused["Retry-After"]) >= 1
    assert refused.json()["error"]
    other = Client(REMOTE_ADDR="10.0.0.7").post("/api/token", {})
    assert other.status_code == 400


def test_expired_codes_are_forgotten_when_new_ones_are_made(player_client):
    granted_code(player_client)
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=3), tick=False):
        granted_code(player_client)
    assert OAuthAuthorization.objects.count() == 1


# --------------------------------------------------------------------------- revoke


def test_delete_revokes_the_token_it_is_sent_with(player_client, alice):
    text = exchange(granted_code(player_client)).json()["access_token"]
    _other, other_text = tokens.create_token(player=alice, description="mine", scopes=[])
    client = Client(HTTP_AUTHORIZATION=f"Bearer {text}")

    response = client.delete("/api/token")

    assert response.status_code == 204
    assert response["Access-Control-Allow-Origin"] == "*"
    assert client.get("/api/account").status_code == 401
    assert client.delete("/api/token").status_code == 401
    assert Client(HTTP_AUTHORIZATION=f"Bearer {other_text}").get("/api/account").status_code == 200


@pytest.mark.parametrize("header", [None, "", "Bearer ", "Bearer lip_unknown", "Basic abc"])
def test_delete_without_a_known_token_is_refused(db, header):
    extra = {} if header is None else {"HTTP_AUTHORIZATION": header}
    response = Client(**extra).delete("/api/token")
    assert response.status_code == 401
    assert "error" in response.json()


def test_delete_is_counted_against_the_tokens_rate(settings, alice):
    settings.API_REQUESTS_PER_MINUTE = 1
    _token, text = tokens.create_token(player=alice, description="x", scopes=[])
    client = Client(HTTP_AUTHORIZATION=f"Bearer {text}")
    assert client.get("/api/account").status_code == 200
    assert client.delete("/api/token").status_code == 429


def test_an_expired_token_is_refused(alice):
    _token, text = tokens.create_token(
        player=alice, description="old app", scopes=[],
        expires_at=timezone.now() - dt.timedelta(seconds=1),
    )
    response = Client(HTTP_AUTHORIZATION=f"Bearer {text}").get("/api/account")
    assert response.status_code == 401
    assert not tokens.still_valid(_token.pk)
