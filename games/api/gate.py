"""What every endpoint of the API does first and last: the token (``Authorization:
Bearer``), its scopes, its rate, the request's body, and the answer's form.

Refusals are lichess's: no token or an unknown one, 401 ``{"error": "No such token"}``;
a token without any of the endpoint's scopes, 403 ``{"error": "Missing scope: …"}`` with
the ``X-OAuth-Scopes`` and ``X-Accepted-OAuth-Scopes`` headers; too many requests, 429
with ``Retry-After`` (lichess asks clients to wait a minute). A domain error becomes 400
with its message, or 404 for what is not there, 429 for a rate.

Texts are in the client's ``Accept-Language``, English when it names none (lichess's
language; the site's own default is Spanish).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, TypeVar

from channels.db import database_sync_to_async
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.http.response import HttpResponseBase
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.csrf import csrf_exempt

from accounts import tokens
from accounts.errors import NoSuchToken, UserNotFound
from accounts.throttling import count_request
from ajedrez.core.errors import DomainError

# Domain errors that say "not there" (lichess: 404) or "too often" (429); the rest 400.
NOT_FOUND_CODES = frozenset(
    {"game_not_found", "not_a_player", "challenge_not_found", "user_not_found",
     "seek_not_found"}
)
RATE_CODES = frozenset({"challenge_rate_limited", "chat_rate_limited"})

View = TypeVar("View", bound=Callable[..., Any])


class BadRequest(Exception):
    """A request this API cannot read: 400 with ``message`` (or ``status``)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def error(message: str, status: int, **headers: str) -> JsonResponse:
    """lichess's error: ``{"error": message}`` with ``status``."""
    response = JsonResponse({"error": message}, status=status)
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response


def ok() -> JsonResponse:
    return JsonResponse({"ok": True})


def domain_error(exc: DomainError) -> JsonResponse:
    """A domain error as lichess answers a refusal."""
    if exc.code in NOT_FOUND_CODES:
        return error(exc.message, 404)
    if exc.code in RATE_CODES:
        retry = str(exc.details.get("retry_after", 60))
        return error(exc.message, 429, Retry_After=retry)
    return error(exc.message, 400)


def _cors(response: HttpResponseBase) -> HttpResponseBase:
    # lichess answers every API call with this header: the token, not a cookie, is the
    # authority, so a page elsewhere gains nothing by calling.
    response["Access-Control-Allow-Origin"] = "*"
    return response


def _language(request: HttpRequest) -> None:
    if not request.headers.get("Accept-Language"):
        translation.activate("en")
        request.LANGUAGE_CODE = "en"


def bearer(request: HttpRequest) -> str | None:
    """The token of ``Authorization: Bearer <token>``, or None without one."""
    header = request.headers.get("Authorization", "")
    scheme, _sep, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def authenticate(
    request: HttpRequest, accepted: Iterable[str]
) -> tokens.TokenUse | HttpResponse:
    """The request's token, checked against the endpoint's ``accepted`` scopes (any one
    of them will do; none named: any token) and counted against its rate; or the
    refusal to send."""
    accepted = tuple(accepted)
    accepted_header = ",".join(accepted)
    text = bearer(request)
    if text is None:
        return error(
            _("Missing authorization header"), 401, X_Accepted_OAuth_Scopes=accepted_header
        )
    try:
        use = tokens.use_token(text)
    except (NoSuchToken, UserNotFound) as exc:
        return error(exc.message, 401, X_Accepted_OAuth_Scopes=accepted_header)
    scope_headers = {
        "X_OAuth_Scopes": ",".join(sorted(use.scopes)),
        "X_Accepted_OAuth_Scopes": accepted_header,
    }
    if accepted and not use.scopes.intersection(accepted):
        return error(
            _("Missing scope: %(scopes)s") % {"scopes": " or ".join(accepted)},
            403,
            **scope_headers,
        )
    allowance = count_request(
        "api",
        str(use.token_id),
        limit=settings.API_REQUESTS_PER_MINUTE,
        window=60,
    )
    if not allowance.allowed:
        return error(
            _("Too many requests. Try again in a minute."),
            429,
            Retry_After=str(allowance.retry_after),
        )
    return use


def _check_method(request: HttpRequest, methods: tuple[str, ...]) -> HttpResponse | None:
    if request.method in methods:
        return None
    response = error(_("Method not allowed."), 405)
    response["Allow"] = ", ".join(methods)
    return response


def endpoint(*accepted: str, methods: tuple[str, ...] = ("GET",)) -> Callable[[View], View]:
    """A synchronous endpoint: ``view(request, token, **kwargs)`` runs once the token
    passed (``token``: :class:`accounts.tokens.TokenUse`), and its domain errors and
    unreadable input become lichess's error answers."""

    def decorate(view: View) -> View:
        @csrf_exempt  # the bearer token is the authority, never a cookie
        @functools.wraps(view)
        def run(request: HttpRequest, **kwargs: Any) -> HttpResponseBase:
            _language(request)
            refused = _check_method(request, methods)
            if refused is None:
                checked = authenticate(request, accepted)
                if isinstance(checked, HttpResponse):
                    refused = checked
            if refused is not None:
                return _cors(refused)
            try:
                response = view(request, checked, **kwargs)
            except BadRequest as exc:
                response = error(exc.message, exc.status)
            except DomainError as exc:
                response = domain_error(exc)
            return _cors(response)

        return run  # type: ignore[return-value]

    return decorate


StreamView = Callable[..., Awaitable[HttpResponseBase]]


def stream_endpoint(*accepted: str) -> Callable[[StreamView], StreamView]:
    """:func:`endpoint` for an asynchronous view (a stream): the token is checked in a
    thread (it reads the database), then ``view(request, token, **kwargs)`` runs on the
    event loop. GET only, as lichess's streams."""

    def decorate(view: StreamView) -> StreamView:
        @csrf_exempt
        @functools.wraps(view)
        async def run(request: HttpRequest, **kwargs: Any) -> HttpResponseBase:
            _language(request)
            refused = _check_method(request, ("GET",))
            if refused is None:
                # On the loop's thread pool, not the request's own thread, whose
                # connection a stream would hold for as long as it is open
                # (games.api.ndjson.in_pool).
                checked = await database_sync_to_async(authenticate, thread_sensitive=False)(
                    request, accepted
                )
                if isinstance(checked, HttpResponse):
                    refused = checked
            if refused is not None:
                return _cors(refused)
            try:
                response = await view(request, checked, **kwargs)
            except BadRequest as exc:
                response = error(exc.message, exc.status)
            except DomainError as exc:
                response = domain_error(exc)
            return _cors(response)

        return run

    return decorate


def not_found(request: HttpRequest) -> HttpResponseBase:
    """Any other path under ``/api/``: lichess's JSON 404, not the site's page."""
    _language(request)
    return _cors(error(_("Not found."), 404))


# --------------------------------------------------------------------------- bodies


def _field(name: str, value: object) -> str | None:
    """A JSON body's value as a form would carry it; None for ``null`` (absent)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise BadRequest(_("Invalid value for %(field)s.") % {"field": name})


def fields(request: HttpRequest) -> Mapping[str, str]:
    """The request's parameters: the query string's, then the body's over them, whether
    the body is a form (as lichess documents) or a JSON object (as berserk sends some).
    A JSON ``null`` is an absent field; a body too long for any endpoint is 413."""
    found: dict[str, str] = {key: request.GET.get(key, "") for key in request.GET}
    length = request.META.get("CONTENT_LENGTH") or "0"
    if not length.isdigit():
        raise BadRequest(_("Invalid Content-Length."))
    if int(length) > settings.API_MAX_BODY_BYTES:
        raise BadRequest(_("Request body too large."), status=413)
    body = request.body
    if len(body) > settings.API_MAX_BODY_BYTES:
        raise BadRequest(_("Request body too large."), status=413)
    if not body.strip():
        return found
    content_type = request.content_type or ""
    if content_type == "application/json":
        try:
            parsed = json.loads(body)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            # RecursionError: brackets nested a thousand deep fit in a few KB.
            raise BadRequest(_("The body is not valid JSON.")) from exc
        if not isinstance(parsed, dict):
            raise BadRequest(_("The body must be a JSON object."))
        for key, value in parsed.items():
            text = _field(str(key), value)
            if text is None:
                found.pop(str(key), None)
            else:
                found[str(key)] = text
        return found
    if content_type in ("application/x-www-form-urlencoded", "multipart/form-data", ""):
        try:
            # A body sent without a type is read as a form, as curl -d sends one.
            form = request.POST if content_type else QueryDict(body, encoding="utf-8")
        except Exception as exc:  # Django raises several kinds on a malformed body
            raise BadRequest(_("The body cannot be read as a form.")) from exc
        for key in form:
            found[key] = form.get(key, "")
        return found
    raise BadRequest(_("Send the parameters as a form or as a JSON object."), status=415)


# The answer to a real-time clock, at every endpoint that makes a game.
REAL_TIME_REFUSED = gettext_lazy(
    "Real-time games are not played here: this service plays correspondence "
    "chess only. Send days (1, 2, 3, 5, 7, 10 or 14 per move), or no time "
    "control."
)


def days_of(text: str | None) -> int | None:
    """The ``days`` parameter: absent or empty for no time limit (the service says
    whether a number is one offered)."""
    if text is None or text == "":
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= 3):
        raise BadRequest(_("days must be a number of days per move: 1, 2, 3, 5, 7, 10 or 14."))
    return int(text)


def flag(value: str | None, *, name: str) -> bool | None:
    """A lichess boolean parameter (``true``/``false``, ``yes``/``no``, ``1``/``0``);
    None when absent."""
    if value is None or value == "":
        return None
    lowered = value.strip().lower()
    if lowered in ("true", "yes", "1"):
        return True
    if lowered in ("false", "no", "0"):
        return False
    raise BadRequest(_("Invalid value for %(field)s.") % {"field": name})
