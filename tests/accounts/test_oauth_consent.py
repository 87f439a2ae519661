"""OAuth2's consent page at lichess's path (``/oauth``): what it shows, where it sends
the player back, and every request it refuses."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client
from django.urls import reverse

from accounts import tokens
from accounts.models import ApiToken, OAuthAuthorization
from tests.accounts.oauth_flow import (
    REDIRECT,
    exchange,
    granted_code,
    oauth_url,
    query_of,
)

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


