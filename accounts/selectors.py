"""Reads of accounts: players by name, login sessions, preferences.

Each returns in a bounded number of indexed queries and writes nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from importlib import import_module

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.db.models import Exists, Q, QuerySet
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from accounts import errors
from accounts.models import (
    GATEWAY_KEY_MAX_LENGTH,
    ApiToken,
    BotAccount,
    GatewayKey,
    GuestIdentity,
    Preferences,
)
from accounts.types import Player

User = get_user_model()


def players() -> QuerySet:
    """The accounts that play: open, not staff (an administrator who wants to play
    does so with a player account of their own), and registered: a gateway's guests
    (:class:`~accounts.models.GuestIdentity`) play only where their gateway pairs them."""
    return User.objects.filter(is_active=True, is_staff=False, guest__isnull=True)


def is_player(user: Player) -> bool:
    """Whether ``user`` is one of :func:`players` (no query: the account as loaded; a
    guest, having no usable password, is never logged in to be asked about)."""
    return user.is_active and not user.is_staff


def is_guest(player_id: int) -> bool:
    """Whether ``player_id`` is a gateway's guest rather than a registered account."""
    return GuestIdentity.objects.filter(player_id=player_id).exists()


def guests_among(player_ids: Iterable[int]) -> set[int]:
    """Which of ``player_ids`` are gateways' guests (one query; none when none is asked)."""
    ids = list(player_ids)
    if not ids:
        return set()
    return set(GuestIdentity.objects.filter(player_id__in=ids).values_list("player_id", flat=True))


def active_player(username: str) -> Player:
    """The player (open, not staff) named ``username``;
    :class:`~accounts.errors.UserNotFound` otherwise."""
    try:
        return players().get(username=username)
    except User.DoesNotExist as exc:
        raise errors.UserNotFound() from exc


def active_player_named(name: str) -> Player:
    """The player (open, registered, not staff) whose user name is ``name`` in any case
    (lichess's user ids are lower case); :class:`~accounts.errors.UserNotFound`
    otherwise."""
    # A name no account can have is looked up nowhere (PostgreSQL refuses a NUL).
    plausible = 0 < len(name) <= 150 and name.isprintable()
    found = players().filter(username__iexact=name).first() if plausible else None
    if found is None:
        raise errors.UserNotFound()
    return found


def player_id_of(username: str) -> int | None:
    """The id of the account named ``username`` (any case; closed accounts too, whose
    games stay in others' archives), or None."""
    return User.objects.filter(username__iexact=username).values_list("pk", flat=True).first()


def active_players(query: str = "") -> QuerySet:
    """Active players by user name, matching ``query`` in the user name or full name."""
    found = players().select_related("record").order_by("username")
    if query:
        found = found.filter(
            Q(username__icontains=query)
            | Q(first_name__icontains=query)
            | Q(last_name__icontains=query)
        )
    return found


def players_changed_since(since: dt.datetime, *, exclude: Player) -> QuerySet:
    """Active players who joined, or whose access was restored, after ``since`` (ESPOL JAUT).

    Seed 000 keeps one date per user, "joined or status last changed"; JAUT lists the
    players whose date is later than the client's, so a reopened account reaches clients
    that synchronised before it was reopened.
    """
    return (
        User.objects.filter(
            Q(date_joined__gt=since) | Q(access_change__changed_at__gt=since),
            is_active=True,
            guest__isnull=True,
        )
        .exclude(pk=exclude.pk)
        .order_by("username")
    )


def player_names_changed_since(since: dt.datetime, *, exclude: Player) -> list[str]:
    """The user names of :func:`players_changed_since`, in the same order (ESPOL JAUT)."""
    return list(
        players_changed_since(since, exclude=exclude).values_list("username", flat=True)
    )


def _open_account(player_id: int) -> QuerySet:
    # A bot plays through the lichess API alone: its sockets and ESPOL sessions end.
    return User.objects.filter(pk=player_id, is_active=True, bot__isnull=True)


def _same_password(password: str, auth_hash: str | None) -> bool:
    """Whether ``auth_hash`` (kept by a login) was made from the account's ``password``
    hash, as Django's own ``get_user`` checks a session: a password change since that
    login ends it."""
    if not auth_hash:
        return False
    return constant_time_compare(User(password=password).get_session_auth_hash(), auth_hash)


def is_current_login(player_id: int, auth_hash: str | None) -> bool:
    """Whether ``player_id``'s account is still open and its password unchanged since the
    login that produced ``auth_hash`` (one query).

    The ESPOL gateway asks before every command of a logged-in connection, so that a
    closed account or a changed password ends the connection's login at once.
    """
    password = _open_account(player_id).values_list("password", flat=True).first()
    return password is not None and _same_password(password, auth_hash)


# The session stores that keep their sessions in Django's session table.
DATABASE_SESSION_ENGINES = frozenset({"django.contrib.sessions.backends.db", "accounts.sessions"})


def is_live_session(player_id: int, session_key: str, auth_hash: str | None) -> bool:
    """Whether the login session ``session_key`` has not ended (logged out, expired,
    deleted when the account closed), ``player_id``'s account is still open, and its
    password is the one the session logged in with (``auth_hash``).

    The WebSocket consumers ask before each message a socket sends. With the database
    session store this is one query (the password, if an EXISTS finds the session);
    other stores are asked through their own ``exists``.
    """
    if settings.SESSION_ENGINE not in DATABASE_SESSION_ENGINES:
        store = import_module(settings.SESSION_ENGINE).SessionStore()
        return store.exists(session_key) and is_current_login(player_id, auth_hash)
    live = Session.objects.filter(session_key=session_key, expire_date__gt=timezone.now())
    password = (
        _open_account(player_id).filter(Exists(live)).values_list("password", flat=True).first()
    )
    return password is not None and _same_password(password, auth_hash)


def is_bot(player_id: int) -> bool:
    """Whether ``player_id`` was upgraded to a bot (lichess API): it plays through the
    API alone, and is shown as a bot."""
    return BotAccount.objects.filter(player_id=player_id).exists()


def bots_among(player_ids: Iterable[int]) -> set[int]:
    """Which of ``player_ids`` are bots (one query)."""
    return set(
        BotAccount.objects.filter(player_id__in=list(player_ids)).values_list(
            "player_id", flat=True
        )
    )


def plays_off_the_api(user: Player) -> bool:
    """Whether ``user`` may log in at the site or at ESPOL: a player, not a bot."""
    return is_player(user) and not is_bot(user.pk)


def preferences_of(player: Player) -> Preferences:
    """``player``'s preferences: those they saved, or the defaults (unsaved).

    The one rule for reading them: a player who never saved any has no row, and reading
    never creates one; :func:`accounts.services.save_preferences` does, when they save.
    """
    found = Preferences.objects.filter(player=player).first()
    return found if found is not None else Preferences(player=player)


def api_tokens_of(player: Player) -> QuerySet:
    """``player``'s API access tokens, the newest first."""
    return ApiToken.objects.filter(player=player).order_by("-created_at", "-pk")


def gateway_key_matches(player_id: int, key: str) -> bool:
    """Whether ``key`` is the gateway key of ``player_id`` (compared in constant time)."""
    if not key or len(key) > GATEWAY_KEY_MAX_LENGTH:
        return False
    digest = (
        GatewayKey.objects.filter(player_id=player_id).values_list("digest", flat=True).first()
    )
    return digest is not None and constant_time_compare(digest, GatewayKey.digest_of(key))


def gateway_key_made_at(player_id: int) -> dt.datetime | None:
    """When ``player_id``'s gateway key was made (None: it has none)."""
    return (
        GatewayKey.objects.filter(player_id=player_id)
        .values_list("created_at", flat=True)
        .first()
    )
