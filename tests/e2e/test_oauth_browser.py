"""OAuth2 with PKCE in Chromium, as a third-party application uses it: the player is
sent to ``/oauth``, logs in, grants on the consent page and lands on the application's
own page (a real HTTP server on loopback, in the test) with a code, which the
application exchanges for a token that berserk then plays with."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import berserk
import pytest
import requests
from berserk.exceptions import ResponseError
from playwright.sync_api import expect

from accounts import oauth, tokens
from tests.conftest import PASSWORD, pbkdf2_hash

VERIFIER = secrets.token_urlsafe(48)


class Application:
    """The application's redirect target: records each query its callback is sent (the
    browser also asks it for an icon, which is not recorded)."""

    def __init__(self) -> None:
        self.queries: list[dict[str, str]] = []
        queries = self.queries

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urlsplit(self.path)
                query = parse_qs(url.query)
                if url.path == "/callback":
                    queries.append({key: values[0] for key, values in query.items()})
                body = b"<!doctype html><title>app</title><p>Back in the app.</p>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.redirect_uri = f"http://127.0.0.1:{self.server.server_address[1]}/callback"


@pytest.fixture
def application() -> Iterator[Application]:
    app = Application()
    yield app
    app.server.shutdown()
    app.server.server_close()


def authorize_url(app: Application, state: str) -> str:
    return "/oauth?" + urlencode({
        "response_type": "code",
        "client_id": "berserk-app",
        "redirect_uri": app.redirect_uri,
        "code_challenge_method": "S256",
        "code_challenge": oauth.challenge_of(VERIFIER),
        "scope": "board:play email:read",
        "state": state,
    })


def test_a_player_grants_an_application_a_token_that_berserk_uses(
    new_page, make_player, application, server_url
):
    alice = make_player("alice")
    alice.password = pbkdf2_hash(PASSWORD)  # checked by the server's own hashers
    alice.save()
    page = new_page()

    page.goto(authorize_url(application, "xyz"))
    page.wait_for_url("**/accounts/login/**")
    page.fill("input[name=username]", "alice")
    page.fill("input[name=password]", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url("**/oauth?**")
    expect(page.locator("#oauth-client")).to_have_text("berserk-app")
    expect(page.locator("#oauth-redirect-host")).to_have_text("127.0.0.1")
    expect(page.locator("#oauth-scopes li")).to_have_text(
        [str(tokens.SCOPES["board:play"]), str(tokens.SCOPES["email:read"])]
    )
    page.locator("#oauth-accept").click()
    page.wait_for_url(application.redirect_uri + "?**")
    expect(page.locator("p")).to_have_text("Back in the app.")

    (answer,) = application.queries
    assert answer["state"] == "xyz" and answer["code"].startswith("liu_")
    response = requests.post(f"{server_url}/api/token", data={
        "grant_type": "authorization_code",
        "code": answer["code"],
        "code_verifier": VERIFIER,
        "redirect_uri": application.redirect_uri,
        "client_id": "berserk-app",
    }, timeout=10)
    assert response.status_code == 200, response.text
    token = response.json()["access_token"]

    client = berserk.Client(berserk.TokenSession(token), base_url=server_url)
    assert client.account.get()["username"] == "alice"
    assert client.account.get_email() == alice.email

    revoked = requests.delete(
        f"{server_url}/api/token", headers={"Authorization": f"Bearer {token}"}, timeout=10
    )
    assert revoked.status_code == 204
    with pytest.raises(ResponseError) as refused:
        client.account.get()
    assert refused.value.status_code == 401


def test_a_player_who_cancels_sends_the_application_access_denied(
    new_page, make_player, application
):
    page = new_page(make_player("bob"))

    page.goto(authorize_url(application, "abc"))
    page.locator("#oauth-deny").click()
    page.wait_for_url(application.redirect_uri + "?**")

    assert application.queries == [{
        "error": "access_denied",
        "error_description": "user cancelled authorization",
        "state": "abc",
    }]
