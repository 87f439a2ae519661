"""Personal access tokens of the lichess-compatible API: made, used, revoked.

A token carries lichess's scope names (:data:`SCOPES`); an endpoint names the scopes it
accepts, and a token with none of them is refused as lichess refuses it (403, "Missing
scope"). Only players get tokens: open, registered, not staff (an administrator plays
with a player account of their own), the accounts :func:`accounts.selectors.players`
lists. A token whose account has closed, or become staff, stops working at once.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.crypto import get_random_string
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts import errors, selectors
from accounts.models import ApiToken
from accounts.types import Player

# lichess's scope names that this service's API uses, and what each lets a client do.
SCOPES = {
    "preference:read": gettext_lazy("Read your preferences"),
    "email:read": gettext_lazy("Read your e-mail address"),
    "challenge:read": gettext_lazy("Read incoming challenges"),
    "challenge:write": gettext_lazy("Create, accept, decline challenges"),
    "board:play": gettext_lazy("Play games with the Board API"),
    "bot:play": gettext_lazy("Play games with the Bot API (bot accounts only)"),
}

# The token's first letters say what it is, as lichess's personal tokens do ("lip_").
PREFIX = "lip_"
RANDOM_LENGTH = 24
DESCRIPTION_MAX_LENGTH = 100
# How often a token's "last used" is written: a client polling every second must not
# cost a write per request.
LAST_USED_RESOLUTION = dt.timedelta(minutes=1)


def digest_of(token: str) -> str:
    """The SHA-256 digest a token is stored by."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _clean_scopes(scopes: Iterable[str]) -> list[str]:
    wanted = list(dict.fromkeys(scopes))
    unknown = [scope for scope in wanted if scope not in SCOPES]
    if unknown:
        raise errors.UnknownScope(
            _("Unknown scope: %(scopes)s.") % {"scopes": ", ".join(unknown)}
        )
    # Stored in the catalogue's order, so a token's scopes always read the same way.
    return [scope for scope in SCOPES if scope in wanted]


def create_token(
    *,
    player: Player,
    description: str,
    scopes: Iterable[str],
    expires_at: dt.datetime | None = None,
    prefix: str = PREFIX,
) -> tuple[ApiToken, str]:
    """A new token for ``player`` with ``scopes``; returns it and the token's text, which
    is not stored and cannot be shown again. A token granted through OAuth
    (:mod:`accounts.oauth`) has lichess's ``lio_`` ``prefix`` and lapses at
    ``expires_at``; a personal token never does."""
    description = description.strip()
    if not description or len(description) > DESCRIPTION_MAX_LENGTH:
        raise errors.TokenRefused(
            _("A token's description has 1 to %(n)d characters.") % {"n": DESCRIPTION_MAX_LENGTH}
        )
    cleaned = _clean_scopes(scopes)
    text = prefix + get_random_string(RANDOM_LENGTH)
    with transaction.atomic():
        # Read in the transaction: the account may have closed since the caller read it.
        if not selectors.players().filter(pk=player.pk).exists():
            raise errors.TokenRefused(_("Only open player accounts may have API tokens."))
        token = ApiToken.objects.create(
            player=player,
            description=description,
            digest=digest_of(text),
            scopes=cleaned,
            expires_at=expires_at,
        )
    return token, text


@transaction.atomic
def revoke_token(*, player: Player, token_id: int) -> None:
    """``player`` revokes one of their tokens: it is deleted and refused from now on."""
    deleted, _rows = ApiToken.objects.filter(pk=token_id, player=player).delete()
    if not deleted:
        raise errors.NoSuchToken()


@dataclass(frozen=True)
class TokenUse:
    """A request's token, checked: whose it is and what it may do."""

    token_id: int
    player: Player
    scopes: frozenset[str]


def use_token(text: str, *, now: dt.datetime | None = None) -> TokenUse:
    """The token ``text`` checked for a request: :class:`~accounts.errors.NoSuchToken`
    when unknown or revoked, :class:`~accounts.errors.UserNotFound` when its account may
    no longer play. Marks it used, at most once per :data:`LAST_USED_RESOLUTION`."""
    if not text or len(text) > 200:
        raise errors.NoSuchToken()
    now = now or timezone.now()
    found = (
        ApiToken.objects.select_related("player")
        .filter(unexpired(now), digest=digest_of(text))
        .first()
    )
    if found is None:
        raise errors.NoSuchToken()
    # A guest never gets a token (create_token), so the account as loaded is enough.
    if not selectors.is_player(found.player):
        raise errors.UserNotFound()
    if found.last_used_at is None or found.last_used_at < now - LAST_USED_RESOLUTION:
        # Conditional: two requests at once write it once.
        stale = Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_RESOLUTION)
        ApiToken.objects.filter(stale, pk=found.pk).update(last_used_at=now)
    return TokenUse(found.pk, found.player, frozenset(found.scopes))


def still_valid(token_id: int) -> bool:
    """Whether the token ``token_id`` still exists, has not expired and its account may
    still play."""
    return token_id in valid_among([token_id])


def valid_among(token_ids: Iterable[int]) -> set[int]:
    """Which of ``token_ids`` still work (:func:`still_valid`), in one query: a process's
    open streams ask for all their tokens at once, so a revoked token's streams end."""
    ids = list(token_ids)
    if not ids:
        return set()
    return set(
        ApiToken.objects.filter(
            unexpired(timezone.now()),
            pk__in=ids,
            player__in=selectors.players(),
        ).values_list("pk", flat=True)
    )


def unexpired(now: dt.datetime) -> Q:
    """The tokens still usable at ``now``: personal ones, and granted ones not lapsed."""
    return Q(expires_at__isnull=True) | Q(expires_at__gt=now)


@transaction.atomic
def revoke_bearer(text: str) -> None:
    """The token ``text`` revokes itself (lichess's ``DELETE /api/token``)."""
    ApiToken.objects.filter(digest=digest_of(text)).delete()
