"""OAuth2's authorisation code flow with PKCE at lichess's paths: the consent page
(``/oauth``), the exchange (``POST /api/token``), the revocation (``DELETE /api/token``),
and every request they refuse, with lichess's errors."""

from __future__ import annotations

import datetime as dt
import json
import secrets
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import oauth, tokens
from accounts.models import ApiToken, OAuthAuthorization

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


@pytest.fixture
def player_client(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


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


# --------------------------------------------------------------------------- consent


def test_the_consent_page_names_the_application_where_it_leads_and_the_scopes(player_client):
    response = player_client.get(oauth_url())

    assert response.status_code == 200
    page = response.content.decode()
    assert "example.com" in page and 'id="oauth-redirect-host">app.example.com<' in page
    assert str(tokens.SCOPES["board:play"]) in page
    assert str(tokens.SCOPES["challenge:read"]) in page
    assert response["X-Frame-Options"] == "DENY"


def test_the_consent_page_speaks_spanish(alice):
    client = Client(HTTP_ACCEPT_LANGUAGE="es")
    client.force_login(alice)
    page = client.get(oauth_url()).content.decode()
    assert "Autorizar una aplicación" in page and "pide acceso a tu cuenta" in page


def test_the_consent_page_without_scopes_says_only_the_public_profile(player_client):
    page = player_client.get(oauth_url(scope=None)).content.decode()
    assert "only read your public profile" in page


def test_a_visitor_logs_in_first_and_comes_back(db):
    response = Client().get(oauth_url())

    assert response.status_code == 302
    login = urlsplit(response["Location"])
    assert login.path == reverse("login")
    assert parse_qs(login.query)["next"] == [oauth_url()]


def test_accepting_sends_the_player_back_with_a_code_and_the_state(player_client, alice):
    response = player_client.post(oauth_url(), {"decision": "accept"})

    assert response.status_code == 303
    location = response["Location"]
    assert location.startswith(REDIRECT + "?")
    answer = query_of(location)
    assert answer["state"] == "st4te" and answer["code"].startswith("liu_")
    pending = OAuthAuthorization.objects.get()
    assert (pending.player, pending.client_id, pending.scopes) == (
        alice, "example.com", ["board:play", "challenge:read"]
    )
    assert answer["code"] not in pending.digest


def test_denying_sends_the_player_back_with_access_denied(player_client):
    response = player_client.post(oauth_url(), {"decision": "deny"})

    assert response.status_code == 303
    assert query_of(response["Location"]) == {
        "error": "access_denied",
        "error_description": "user cancelled authorization",
        "state": "st4te",
    }
    assert not OAuthAuthorization.objects.exists()


def test_an_answer_without_a_decision_is_a_denial(player_client):
    response = player_client.post(oauth_url(), {})
    assert query_of(response["Location"])["error"] == "access_denied"


def test_the_redirect_uris_own_query_is_kept(player_client):
    response = player_client.post(
        oauth_url(redirect_uri=REDIRECT + "?app=1"), {"decision": "accept"}
    )
    answer = query_of(response["Location"])
    assert answer["app"] == "1" and "code" in answer


def test_without_state_the_answer_has_none(player_client):
    response = player_client.post(oauth_url(state=None), {"decision": "accept"})
    assert "state" not in query_of(response["Location"])


@pytest.mark.parametrize(
    "redirect_uri",
    [
        "http://localhost:8087/cb",
        "http://127.0.0.1/cb",
        "http://[::1]:9000/",
        "com.example.app:/oauth-callback",
    ],
)
def test_loopback_http_and_an_apps_own_scheme_are_allowed(player_client, redirect_uri):
    response = player_client.post(oauth_url(redirect_uri=redirect_uri), {"decision": "accept"})
    assert response.status_code == 303
    assert response["Location"].startswith(redirect_uri + "?code=liu_")


@pytest.mark.parametrize(
    ("redirect_uri", "description"),
    [
        (None, "redirect_uri required"),
        ("", "redirect_uri required"),
        ("javascript:alert(1)", "exotic redirect_uri scheme not allowed"),
        ("data:text/html,<script>alert(1)</script>", "exotic redirect_uri scheme"),
        ("JavaScript://example.com/%0aalert(1)", "exotic redirect_uri scheme"),
        ("http://app.example.com/cb", "insecure redirect_uri not allowed"),
        ("http://localhost.evil.example/cb", "insecure redirect_uri not allowed"),
        ("https://app.example.com/cb#frag", "redirect_uri invalid"),
        ("/relative/path", "redirect_uri invalid"),
        ("https:///no-host", "redirect_uri invalid"),
        ("https://app.example.com:notaport/", "redirect_uri invalid"),
        ("https://ejemplo.españa/cb", "redirect_uri invalid"),
        ("https://app.example.com/a b", "redirect_uri invalid"),
        ("https://app.example.com/\x00", "redirect_uri invalid"),
        ("https://app.example.com/" + "a" * 3000, "redirect_uri invalid"),
    ],
)
def test_an_unusable_redirect_uri_is_shown_not_followed(player_client, redirect_uri, description):
    url = oauth_url(redirect_uri=redirect_uri)
    for response in (player_client.get(url), player_client.post(url, {"decision": "accept"})):
        assert response.status_code == 400
        assert description in response.content.decode()
    assert not OAuthAuthorization.objects.exists()


@pytest.mark.parametrize(
    ("client_id", "description"),
    [
        (None, "client_id required"),
        ("", "client_id required"),
        ("   ", "client_id required"),
        ("x" * 101, "client_id invalid"),
        ("app\x00", "client_id invalid"),
        ("app\nline", "client_id invalid"),
    ],
)
def test_a_missing_or_unusable_client_id_is_shown(player_client, client_id, description):
    response = player_client.get(oauth_url(client_id=client_id))
    assert response.status_code == 400
    assert description in response.content.decode()


def test_a_unicode_client_id_is_an_applications_name(player_client):
    code = granted_code(player_client, client_id="Ajedrez – ♞ app")
    body = exchange(code, client_id="Ajedrez – ♞ app").json()
    assert ApiToken.objects.get(digest=tokens.digest_of(body["access_token"])).description == (
        "Ajedrez – ♞ app"
    )


@pytest.mark.parametrize(
    ("overrides", "error", "description"),
    [
        ({"code_challenge_method": None}, "invalid_request", "code_challenge_method required"),
        ({"code_challenge_method": "plain"}, "unauthorized_client", "only code_challenge_method"),
        ({"code_challenge": None}, "invalid_request", "code_challenge required"),
        ({"code_challenge": "short"}, "invalid_request", "code_challenge invalid"),
        ({"code_challenge": "é" * 43}, "invalid_request", "code_challenge invalid"),
        ({"scope": "board:play study:write"}, "invalid_scope", "invalid scope: study:write"),
        ({"response_type": None}, "invalid_request", "response_type required"),
        ({"response_type": "token"}, "unsupported_response_type", "only response_type 'code'"),
    ],
)
def test_a_wrong_request_is_answered_to_the_application(
    player_client, overrides, error, description
):
    response = player_client.post(oauth_url(**overrides), {"decision": "accept"})

    assert response.status_code == 303
    answer = query_of(response["Location"])
    assert answer["error"] == error and description in answer["error_description"]
    assert answer["state"] == "st4te"
    assert not OAuthAuthorization.objects.exists()


def test_the_longest_redirect_uri_and_state_come_back_whole(player_client):
    redirect_uri = REDIRECT + "?pad=" + "p" * (2000 - len(REDIRECT) - 5)
    state = "ñ♞ " * 333 + "x"
    response = player_client.post(
        oauth_url(redirect_uri=redirect_uri, state=state), {"decision": "accept"}
    )
    assert response.status_code == 303
    answer = query_of(response["Location"])
    assert answer["state"] == state and answer["pad"] == "p" * (2000 - len(REDIRECT) - 5)


def test_a_state_too_long_is_refused(player_client):
    assert player_client.get(oauth_url(state="s" * 1001)).status_code == 400


@pytest.mark.parametrize("method", ["put", "delete", "patch"])
def test_the_consent_page_takes_get_and_post_only(player_client, method):
    assert getattr(player_client, method)(oauth_url()).status_code == 405


def test_an_administrator_cannot_grant(make_player):
    admin = make_player("boss", is_staff=True)
    client = Client()
    client.force_login(admin)

    for response in (client.get(oauth_url()), client.post(oauth_url(), {"decision": "accept"})):
        assert response.status_code == 403
        assert "Only player accounts" in response.content.decode()
    assert not OAuthAuthorization.objects.exists()


def test_the_answer_needs_the_pages_csrf_token(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(oauth_url(), {"decision": "accept"}).status_code == 403


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
