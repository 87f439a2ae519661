"""lichess's OAuth tag: ``POST /api/token`` exchanges an authorisation code (granted on
the consent page, :mod:`accounts.oauth_views`) for a token; ``DELETE /api/token``
revokes the token it is sent with.

``POST`` takes no token: it is counted per address instead
(``API_TOKEN_REQUESTS_PER_MINUTE``), and refused with OAuth2's error JSON and 400, as
lila answers (``{"error": "invalid_grant", "error_description": "…"}``)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt

from accounts import oauth, tokens
from accounts.throttling import client_address, count_request
from accounts.tokens import TokenUse
from games.api import gate
from games.api.gate import BadRequest, endpoint


@csrf_exempt  # an application's server or script calls it; no cookie is read
def token(request: HttpRequest) -> HttpResponseBase:
    if request.method == "DELETE":
        # endpoint() checks the bearer token (django-stubs cannot see it drop an argument).
        return revoke(request)  # type: ignore[call-arg]
    if request.method == "POST":
        response = obtain(request)
    else:
        response = gate.error(_("Method not allowed."), 405)
        response["Allow"] = "POST, DELETE"
    response["Access-Control-Allow-Origin"] = "*"
    return response


def obtain(request: HttpRequest) -> HttpResponse:
    address = client_address(request.META.get("REMOTE_ADDR")) or "unknown"
    allowance = count_request(
        "oauth-token", address, limit=settings.API_TOKEN_REQUESTS_PER_MINUTE, window=60
    )
    if not allowance.allowed:
        return gate.error(
            _("Too many requests. Try again in a minute."),
            429,
            Retry_After=str(allowance.retry_after),
        )
    try:
        params = gate.fields(request)
    except BadRequest as exc:
        return gate.error(exc.message, exc.status)
    try:
        granted = oauth.exchange(params)
    except oauth.OAuthError as exc:
        return JsonResponse(exc.as_json(), status=400)
    response = JsonResponse(
        {
            "token_type": "Bearer",
            "access_token": granted.access_token,
            "expires_in": granted.expires_in,
        }
    )
    # RFC 6749 §5.1: no cache keeps a token.
    response["Cache-Control"] = "no-store"
    response["Pragma"] = "no-cache"
    return response


@endpoint(methods=("DELETE",))
def revoke(request: HttpRequest, token: TokenUse) -> HttpResponse:
    text = gate.bearer(request)
    assert text is not None  # the gate let the request through with it
    tokens.revoke_bearer(text)
    return HttpResponse(status=204)
