"""OAuth2's authorisation code flow with PKCE, as lichess serves it (lila's
``modules/oauth``): an application sends a player to ``/oauth`` with its ``client_id``
(any name: there is no registration), its ``redirect_uri`` and a ``code_challenge``; the
player grants it on a consent page; the application exchanges the code it was sent
back, with the ``code_verifier``, for an ordinary API token (``POST /api/token``).

Refusals are OAuth2's (RFC 6749 §4.1.2.1 and §5.2) with lichess's texts: an
:class:`OAuthError` carries the ``error`` code and its ``error_description``, which are
for the application's developer and so stay in English, as lichess's do.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit, urlunsplit

from django.db import transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare, get_random_string

from accounts import errors, selectors, tokens
from accounts.models import OAuthAuthorization
from accounts.types import Player

# lichess's: a code lives two minutes; a token granted with it a year.
CODE_LIFETIME = dt.timedelta(minutes=2)
TOKEN_LIFETIME = dt.timedelta(days=365)
CODE_PREFIX = "liu_"
TOKEN_PREFIX = "lio_"
CODE_RANDOM_LENGTH = 32
# The application's name becomes the token's description (tokens.DESCRIPTION_MAX_LENGTH).
CLIENT_ID_MAX_LENGTH = tokens.DESCRIPTION_MAX_LENGTH
REDIRECT_URI_MAX_LENGTH = 2000
STATE_MAX_LENGTH = 1000
# RFC 7636 §4.1: a verifier has 43 to 128 unreserved characters; the S256 challenge is
# the verifier's SHA-256 in base64url without padding, always 43 characters.
VERIFIER = re.compile(r"[A-Za-z0-9\-._~]{43,128}")
CHALLENGE = re.compile(r"[A-Za-z0-9\-_]{43}")
# Plain http is refused except to the application's own machine (lila's list).
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]", "::1", "[::]", "::", "0.0.0.0"})


class OAuthError(Exception):
    """An OAuth2 refusal: ``error`` (RFC 6749's code) and ``description`` (lichess's)."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(f"{error}: {description}")
        self.error = error
        self.description = description

    def as_json(self) -> dict[str, str]:
        return {"error": self.error, "error_description": self.description}


def _invalid_request(description: str) -> OAuthError:
    return OAuthError("invalid_request", description)


def _invalid_grant(description: str) -> OAuthError:
    return OAuthError("invalid_grant", description)


def _present(params: Mapping[str, str], name: str) -> str | None:
    value = params.get(name)
    return value if value else None


def check_redirect_uri(text: str | None) -> str:
    """``text`` as a redirect URI the consent page may send a player to, or the
    :class:`OAuthError` saying why not: an absolute ``https`` address, ``http`` only to
    the loopback, or an application's own scheme in reverse domain notation
    (``com.example.app:/callback``), as lichess allows; never ``javascript:`` or
    ``data:``, nor a fragment (RFC 6749 §3.1.2)."""
    if not text:
        raise _invalid_request("redirect_uri required")
    if (
        len(text) > REDIRECT_URI_MAX_LENGTH
        or not text.isascii()
        or not text.isprintable()
        or any(c.isspace() for c in text)
    ):
        raise _invalid_request("redirect_uri invalid")
    try:
        parts = urlsplit(text)
        host = parts.hostname or ""
        parts.port  # noqa: B018 (raises ValueError on a port that is no number)
    except ValueError as exc:
        raise _invalid_request("redirect_uri invalid") from exc
    scheme = parts.scheme.lower()
    if not scheme or parts.fragment or "#" in text:
        raise _invalid_request("redirect_uri invalid")
    if scheme in ("http", "https"):
        if not host:
            raise _invalid_request("redirect_uri invalid")
        if scheme == "http" and host not in LOOPBACK_HOSTS and f"[{host}]" not in LOOPBACK_HOSTS:
            raise _invalid_request(
                "insecure redirect_uri not allowed (use https, or http to localhost)"
            )
    elif "." not in scheme:
        raise _invalid_request(
            "exotic redirect_uri scheme not allowed (use reverse domain notation like "
            "com.example:// for custom applications)"
        )
    return text


def with_query(redirect_uri: str, params: Mapping[str, str]) -> str:
    """``redirect_uri`` with ``params`` added to its query (its own query is kept,
    RFC 6749 §3.1.2)."""
    parts = urlsplit(redirect_uri)
    added = urlencode(params)
    query = f"{parts.query}&{added}" if parts.query else added
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


@dataclass(frozen=True)
class Prompt:
    """An authorisation request good enough to show the consent page and to send the
    player back with an answer: its ``redirect_uri`` and ``client_id`` are checked; the
    rest is checked when the player answers (:meth:`authorize`), as lichess does."""

    client_id: str
    redirect_uri: str
    state: str | None
    response_type: str | None
    code_challenge_method: str | None
    code_challenge: str | None
    scope: str

    @property
    def redirect_host(self) -> str:
        """Where the player will be sent, as the consent page names it."""
        parts = urlsplit(self.redirect_uri)
        return parts.hostname or f"{parts.scheme}://"

    def redirect_with(self, params: Mapping[str, str]) -> str:
        answer = dict(params)
        if self.state is not None:
            answer["state"] = self.state
        return with_query(self.redirect_uri, answer)

    def error_url(self, error: OAuthError) -> str:
        return self.redirect_with(error.as_json())

    def cancel_url(self) -> str:
        return self.error_url(OAuthError("access_denied", "user cancelled authorization"))

    def requested_scopes(self) -> list[str]:
        """The scopes asked for, in the request's order; :class:`OAuthError`
        ``invalid_scope`` for one this service does not know."""
        keys = list(dict.fromkeys(self.scope.split()))
        for key in keys:
            if key not in tokens.SCOPES:
                raise OAuthError("invalid_scope", f"invalid scope: {key[:50]}")
        return keys

    def authorize(self) -> list[str]:
        """The scopes to grant, once the request is checked whole; otherwise the
        :class:`OAuthError` to send the application."""
        if self.code_challenge_method is None:
            raise _invalid_request("code_challenge_method required")
        if self.code_challenge_method != "S256":
            raise OAuthError("unauthorized_client", "supports only code_challenge_method 'S256'")
        if self.code_challenge is None:
            raise _invalid_request("code_challenge required")
        if not CHALLENGE.fullmatch(self.code_challenge):
            raise _invalid_request("code_challenge invalid (BASE64URL(SHA256(code_verifier)))")
        scopes = self.requested_scopes()
        if self.response_type is None:
            raise _invalid_request("response_type required")
        if self.response_type != "code":
            raise OAuthError("unsupported_response_type", "supports only response_type 'code'")
        return scopes


def read_prompt(params: Mapping[str, str]) -> Prompt:
    """The authorisation request in ``params`` (``/oauth``'s query); an
    :class:`OAuthError` when it cannot even be answered (no usable ``redirect_uri`` or
    ``client_id``): the consent page then shows the error instead."""
    redirect_uri = check_redirect_uri(_present(params, "redirect_uri"))
    client_id = (params.get("client_id") or "").strip()
    if not client_id:
        raise _invalid_request("client_id required (choose any)")
    if len(client_id) > CLIENT_ID_MAX_LENGTH or not client_id.isprintable():
        raise _invalid_request(f"client_id invalid (1 to {CLIENT_ID_MAX_LENGTH} characters)")
    state = params.get("state")
    if state is not None and (len(state) > STATE_MAX_LENGTH or not state.isprintable()):
        raise _invalid_request("state invalid")
    return Prompt(
        client_id=client_id,
        redirect_uri=redirect_uri,
        state=state,
        response_type=_present(params, "response_type"),
        code_challenge_method=_present(params, "code_challenge_method"),
        code_challenge=_present(params, "code_challenge"),
        scope=(params.get("scope") or "")[:1000],
    )


def grant(*, player: Player, prompt: Prompt) -> str:
    """``player`` grants the application of ``prompt`` what it asked: the redirect to
    send them to, with a fresh authorisation code, or with the refusal
    (:class:`OAuthError` raised) when the request is wrong."""
    scopes = prompt.authorize()
    code = CODE_PREFIX + get_random_string(CODE_RANDOM_LENGTH)
    now = timezone.now()
    with transaction.atomic():
        # Read in the transaction: the account may have closed since the page showed.
        if not selectors.players().filter(pk=player.pk).exists():
            raise errors.TokenRefused()
        # Codes nobody exchanged in time are forgotten here (indexed, few).
        OAuthAuthorization.objects.filter(expires_at__lte=now).delete()
        OAuthAuthorization.objects.create(
            digest=tokens.digest_of(code),
            player=player,
            client_id=prompt.client_id,
            redirect_uri=prompt.redirect_uri,
            code_challenge=prompt.code_challenge or "",
            scopes=scopes,
            expires_at=now + CODE_LIFETIME,
        )
    return prompt.redirect_with({"code": code})


@dataclass(frozen=True)
class Granted:
    """The token an exchange made: its text and its lifetime in seconds."""

    access_token: str
    expires_in: int


def challenge_of(verifier: str) -> str:
    """S256: ``BASE64URL(SHA256(verifier))`` without padding (RFC 7636 §4.2)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def exchange(params: Mapping[str, str], *, now: dt.datetime | None = None) -> Granted:
    """``POST /api/token``: the authorisation code in ``params`` exchanged for a token.
    The code is spent by the first exchange that names it, right or wrong (lichess
    removes it before checking), so a wrong verifier cannot be retried."""
    grant_type = _present(params, "grant_type")
    if grant_type is None:
        raise _invalid_request("grant_type required")
    if grant_type != "authorization_code":
        raise OAuthError("unsupported_grant_type", "supports only grant_type 'authorization_code'")
    code = _present(params, "code")
    if code is None:
        raise _invalid_request("code required")
    verifier = _present(params, "code_verifier")
    if verifier is None:
        raise _invalid_request("code_verifier required")
    if len(verifier) < 43:
        raise _invalid_request("code_verifier too short")
    if not VERIFIER.fullmatch(verifier):
        raise _invalid_request("code_verifier invalid (43 to 128 of A-Z a-z 0-9 - . _ ~)")
    redirect_uri = _present(params, "redirect_uri")
    if redirect_uri is None:
        raise _invalid_request("redirect_uri required")
    client_id = _present(params, "client_id")
    if client_id is None:
        raise _invalid_request("client_id required (choose any)")
    pending = _consume(code)
    now = now or timezone.now()
    if pending.expires_at <= now:
        raise _invalid_grant("authorization code expired")
    if pending.redirect_uri != redirect_uri:
        raise _invalid_grant("authorization code was issued for a different redirect_uri")
    if pending.client_id != client_id.strip():
        raise _invalid_grant("authorization code was issued for a different client_id")
    if not constant_time_compare(challenge_of(verifier), pending.code_challenge):
        raise _invalid_grant("hash of code_verifier does not match code_challenge")
    expires_at = now + TOKEN_LIFETIME
    try:
        _token, text = tokens.create_token(
            player=pending.player,
            description=pending.client_id,
            scopes=pending.scopes,
            expires_at=expires_at,
            prefix=TOKEN_PREFIX,
        )
    except errors.TokenRefused as exc:
        # The account closed (or became staff) between the consent and the exchange.
        raise _invalid_grant("authorization code invalid, expired or consumed") from exc
    return Granted(access_token=text, expires_in=int(TOKEN_LIFETIME.total_seconds()))


def _consume(code: str) -> OAuthAuthorization:
    """The pending authorisation of ``code``, deleted so that nobody spends it again."""
    invalid = _invalid_grant("authorization code invalid, expired or consumed")
    if len(code) > 200:
        raise invalid
    with transaction.atomic():
        pending = (
            OAuthAuthorization.objects.select_related("player")
            .filter(digest=tokens.digest_of(code))
            .first()
        )
        # Two exchanges of one code at once: the one whose delete removed the row wins.
        if pending is None or not OAuthAuthorization.objects.filter(pk=pending.pk).delete()[0]:
            raise invalid
    return pending
