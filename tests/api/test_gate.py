"""Every endpoint's gate: the token, its scopes, its rate, lichess's JSON errors."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts import tokens
from accounts.services import revoke_access


def test_a_token_reads_its_account(api, alice):
    response = api(alice).get("/api/account")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Access-Control-Allow-Origin"] == "*"
    body = response.json()
    assert body["id"] == "alice" and body["username"] == "alice"
    assert body["perfs"]["correspondence"]["rating"] == 1500
    assert isinstance(body["createdAt"], int)
    assert body["url"].endswith("/players/alice/")
    assert "title" not in body


@pytest.mark.parametrize(
    "header",
    [None, "", "Bearer", "Bearer ", "Basic YWxpY2U6c2VjcmV0", "lip_abc"],
)
def test_a_request_without_a_bearer_token_is_refused(db, header):
    client = Client() if header is None else Client(HTTP_AUTHORIZATION=header)

    response = client.get("/api/account")

    assert response.status_code == 401
    assert response.json() == {"error": "Missing authorization header"}


@pytest.mark.parametrize("token", ["lip_unknown", "x" * 10_000, "lip_ñandú", "'; DROP TABLE"])
def test_an_unknown_token_is_refused(db, token):
    response = Client(HTTP_AUTHORIZATION=f"Bearer {token}").get("/api/account")

    assert response.status_code == 401
    assert response.json() == {"error": "No such token"}


def test_a_revoked_token_is_refused(alice, token_of):
    text = token_of(alice)
    client = Client(HTTP_AUTHORIZATION=f"Bearer {text}")
    assert client.get("/api/account").status_code == 200
    token_id = tokens.use_token(text).token_id

    tokens.revoke_token(player=alice, token_id=token_id)

    response = client.get("/api/account")
    assert response.status_code == 401
    assert response.json() == {"error": "No such token"}


def test_a_closed_account_s_token_is_refused(alice, api):
    client = api(alice)
    revoke_access(player=alice)

    response = client.get("/api/account")

    assert response.status_code == 401
    assert "error" in response.json()


def test_the_bearer_scheme_is_read_in_any_case(alice, token_of):
    client = Client(HTTP_AUTHORIZATION=f"bearer {token_of(alice)}")
    assert client.get("/api/account").status_code == 200


def test_a_token_without_the_scope_is_refused_as_lichess_refuses_it(alice, api):
    response = api(alice, "board:play").get("/api/account/email")

    assert response.status_code == 403
    assert response.json() == {"error": "Missing scope: email:read"}
    assert response["X-OAuth-Scopes"] == "board:play"
    assert response["X-Accepted-OAuth-Scopes"] == "email:read"


def test_a_token_with_the_scope_is_served(alice, api):
    alice.email = "alice@example.org"
    alice.save()

    response = api(alice, "email:read").get("/api/account/email")

    assert response.json() == {"email": "alice@example.org"}


def test_preferences_are_read_by_lichess_names(alice, api):
    response = api(alice, "preference:read").get("/api/account/preferences")

    assert response.status_code == 200
    assert response.json()["prefs"] == {
        "theme": "brown", "pieceSet": "cburnett", "coords": 1, "confirmMove": True,
    }


def test_too_many_requests_are_refused_with_429(alice, api, settings):
    settings.API_REQUESTS_PER_MINUTE = 3
    client = api(alice)
    for _ in range(3):
        assert client.get("/api/account").status_code == 200

    response = client.get("/api/account")

    assert response.status_code == 429
    assert "error" in response.json()
    assert 1 <= int(response["Retry-After"]) <= 60


def test_the_rate_is_counted_per_token(alice, api, settings):
    settings.API_REQUESTS_PER_MINUTE = 1
    first, second = api(alice), api(alice)
    assert first.get("/api/account").status_code == 200
    assert first.get("/api/account").status_code == 429
    assert second.get("/api/account").status_code == 200


def test_a_wrong_method_is_405_in_json(alice, api):
    response = api(alice).post("/api/account")

    assert response.status_code == 405
    assert response["Allow"] == "GET"
    assert "error" in response.json()


@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_an_unknown_api_path_is_a_json_404(db, method):
    response = getattr(Client(), method)("/api/no/such/thing")

    assert response.status_code == 404
    assert response.json() == {"error": "Not found."}


def test_errors_speak_the_client_s_language_and_english_by_default(db):
    english = Client().get("/api/account")
    spanish = Client(HTTP_ACCEPT_LANGUAGE="es").get("/api/account")

    assert english.json() == {"error": "Missing authorization header"}
    assert spanish.status_code == 401
    assert spanish.json() != english.json()


def test_my_games_in_progress_are_listed_the_most_urgent_first(alice, bob, carol, api):
    from games import services

    waiting = services.start_gateway_game(white=alice, black=bob)
    theirs = services.start_gateway_game(white=carol, black=alice)

    body = api(alice).get("/api/account/playing").json()

    assert body["nbMyTurn"] == 1
    assert [g["gameId"] for g in body["nowPlaying"]] == [waiting.short_id, theirs.short_id]
    assert body["nowPlaying"][1]["color"] == "black"
    assert body["nowPlaying"][1]["isMyTurn"] is False


@pytest.mark.parametrize("nb, status", [("abc", 400), ("-1", 400), ("1.5", 400), ("9" * 40, 400),
                                        ("0", 200), ("999", 200), ("", 200)])
def test_the_number_of_games_listed_must_be_a_number(alice, api, nb, status):
    response = api(alice).get("/api/account/playing", {"nb": nb})

    assert response.status_code == status
    assert ("error" in response.json()) == (status == 400)


@pytest.mark.parametrize(
    "body",
    [
        "[" * 5000 + "]" * 5000,
        '{"days": ' + "[" * 5000 + "]" * 5000 + "}",
        '{"days": "3"',
        "\x00",
    ],
    ids=["nested-array", "nested-field", "truncated", "nul"],
)
@pytest.mark.parametrize("path", ["/api/board/seek", "/api/challenge/open", "/api/import"])
def test_a_body_that_is_not_usable_json_is_a_400_everywhere(alice, api, path, body):
    client = api(alice, "board:play", "challenge:write")
    response = client.post(path, body, content_type="application/json")

    assert response.status_code == 400
    assert response.json()["error"] in (
        "The body is not valid JSON.",
        "The body must be a JSON object.",
    )
