"""Subscription requests and their approval; leaving the service."""

from __future__ import annotations

import secrets
from importlib import import_module

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import errors, time_zones
from accounts.events import publish_account_closed
from accounts.models import (
    GATEWAY_KEY_BYTES,
    AccessChange,
    GatewayKey,
    GuestIdentity,
    LoginSession,
    Preferences,
    SubscriptionRequest,
    guest_username,
)
from accounts.signals import account_closing
from accounts.throttling import client_address, count_request
from accounts.types import Player
from accounts.validators import channel_validator, guest_name_validator, username_validator

User = get_user_model()


def username_problem(username: str) -> str | None:
    """Why ``username`` cannot be requested now, or ``None`` when it can."""
    try:
        username_validator(username)
    except ValidationError as exc:
        return " ".join(str(m) for m in exc.messages)
    if User.objects.filter(username__iexact=username).exists():
        return _("That user name is taken.")
    if SubscriptionRequest.objects.filter(
        username__iexact=username, status=SubscriptionRequest.Status.PENDING
    ).exists():
        return _("A request for that user name is already waiting for approval.")
    return None


def request_subscription(
    *, username: str, password: str, comment: str = "", email: str = "", time_zone: str = ""
) -> SubscriptionRequest:
    """Record a request to join (ESPOL SUBS); an administrator approves or rejects it.

    The password is kept only as a hash; ``time_zone`` (the browser's guess) is kept if it
    names a known zone and dropped otherwise. Raises :class:`~accounts.errors.SubscriptionRefused`
    with the reason when the name is taken, already requested, or not acceptable.
    """
    username = username.strip()
    if problem := username_problem(username):
        raise errors.SubscriptionRefused(problem)
    if not password:
        raise errors.SubscriptionRefused(_("A password is required."))
    # Hashed before the transaction: Argon2 takes tens of milliseconds of CPU, and on
    # SQLite a write transaction holds the database's one write lock from its start, so
    # every move, web or TCP, would wait behind each anonymous request's hash.
    password_hash = make_password(password)
    with transaction.atomic():
        # Again under the transaction: the name may have been taken during the hash.
        if problem := username_problem(username):
            raise errors.SubscriptionRefused(problem)
        try:
            with transaction.atomic():
                return SubscriptionRequest.objects.create(
                    username=username,
                    password_hash=password_hash,
                    comment=comment.strip()[:200],
                    email=email.strip(),
                    time_zone=time_zone if time_zones.is_known(time_zone) else "",
                )
        except IntegrityError as exc:
            raise errors.SubscriptionRefused(
                _("A request for that user name is already waiting for approval.")
            ) from exc


def _lock_pending(request_id: int) -> SubscriptionRequest:
    try:
        found = SubscriptionRequest.objects.select_for_update().get(pk=request_id)
    except SubscriptionRequest.DoesNotExist as exc:
        raise errors.SubscriptionNotFound() from exc
    if found.status != SubscriptionRequest.Status.PENDING:
        raise errors.SubscriptionNotPending()
    return found


@transaction.atomic
def approve_subscription(*, request_id: int, admin: Player | None) -> Player:
    """Approve a pending request: the account is created, active, with the requested password."""
    found = _lock_pending(request_id)
    if User.objects.filter(username__iexact=found.username).exists():
        raise errors.SubscriptionRefused(_("That user name is taken."))
    first, _sep, last = found.comment.partition(" ")
    user = User(username=found.username, email=found.email, first_name=first[:150],
                last_name=last[:150], is_active=True)
    user.password = found.password_hash
    user.save()
    if found.time_zone:
        Preferences.objects.create(player=user, time_zone=found.time_zone)
    found.status = SubscriptionRequest.Status.APPROVED
    found.decided_by = admin
    found.decided_at = timezone.now()
    found.user = user
    found.save()
    return user


@transaction.atomic
def reject_subscription(*, request_id: int, admin: Player | None) -> SubscriptionRequest:
    """Reject a pending request: no account is created."""
    found = _lock_pending(request_id)
    found.status = SubscriptionRequest.Status.REJECTED
    found.decided_by = admin
    found.decided_at = timezone.now()
    found.save()
    return found


def _end_login_sessions(player: Player) -> None:
    """Delete the account's login sessions: a cookie issued before the account closed must
    not log it in again if access is restored."""
    keys = list(LoginSession.objects.filter(player=player).values_list("session_key", flat=True))
    LoginSession.objects.filter(player=player).delete()
    store = import_module(settings.SESSION_ENGINE).SessionStore
    # Told after the commit: the session store may be a cache across the network.
    transaction.on_commit(lambda: [store(session_key=key).delete() for key in keys])


def end_login_sessions(player: Player) -> None:
    """End every login session of ``player`` (in the caller's transaction): an account
    upgraded to a bot plays through the API alone."""
    _end_login_sessions(player)


def _record_access(player: Player, *, active: bool, by: Player | None) -> None:
    player.is_active = active
    player.save(update_fields=["is_active"])
    AccessChange.objects.update_or_create(
        player=player, defaults={"changed_at": timezone.now(), "changed_by": by}
    )


@transaction.atomic
def revoke_access(*, player: Player, by: Player | None = None) -> None:
    """Close an account: it can no longer log in, and its active games end as losses.

    ``by`` is the administrator who decided it (the player themself when unsubscribing).
    Closing an account that is already closed changes nothing.
    """
    # NO KEY UPDATE, not a full FOR UPDATE: a concurrent accept or challenge inserts rows
    # referencing this user, and PostgreSQL's foreign-key check takes KEY SHARE on it. A
    # full lock would make that insert wait on us while we wait on its challenge row.
    locked = User.objects.select_for_update(no_key=True).get(pk=player.pk)
    if not locked.is_active:
        return
    # The apps above end what the player leaves (games: their games in progress), in
    # this transaction.
    account_closing.send(sender=User, player=locked)
    _end_login_sessions(locked)
    _record_access(locked, active=False, by=by)
    # Open pages would otherwise stay logged in until their next message; published
    # after the games' "abandoned" events, so the player's pages see their games end.
    publish_account_closed(locked.pk)


@transaction.atomic
def restore_access(*, player: Player, by: Player | None = None) -> bool:
    """Reopen a closed account (AdmChess): the player can log in again with their password.

    Games that ended when it was closed stay ended. Returns False when it was not closed.
    """
    locked = User.objects.select_for_update(no_key=True).get(pk=player.pk)
    if locked.is_active:
        return False
    _record_access(locked, active=True, by=by)
    return True


def unsubscribe(*, player: Player, password: str) -> None:
    """The player leaves the service (ESPOL UNSU), confirming with their password."""
    if not player.check_password(password):
        raise errors.WrongPassword()
    revoke_access(player=player, by=player)


def save_preferences(*, player: Player, values: dict[str, object]) -> Preferences:
    """Store ``player``'s preferences (the fields of :class:`Preferences` in ``values``)."""
    preferences, _created = Preferences.objects.update_or_create(player=player, defaults=values)
    return preferences


def set_language(*, player: Player, language: str) -> None:
    """Remember ``language`` (one of ``settings.LANGUAGES``) as ``player``'s: the language
    switcher used while logged in. Another value is ignored, as Django's switcher does."""
    if language not in dict(settings.LANGUAGES):
        return
    Preferences.objects.update_or_create(player=player, defaults={"language": language})


def remember_page_language(*, player: Player, language: str) -> None:
    """Remember ``language`` (one of ``settings.LANGUAGES``) as the language of
    ``player``'s last page, for their mail while they have chosen none. Another value is
    ignored."""
    if language not in dict(settings.LANGUAGES):
        return
    Preferences.objects.update_or_create(player=player, defaults={"page_language": language})


def restore_default_preferences(*, player: Player) -> None:
    """Back to the default look (seed 000: "Color Default"). The mail choices stay: a
    player who stopped some mail must not get it again for resetting the board."""
    defaults = {
        field.name: field.get_default()
        for field in Preferences._meta.concrete_fields
        if field.name in Preferences.LOOK_FIELDS
    }
    Preferences.objects.filter(player=player).update(**defaults)


def stop_mail(*, player_id: int, kind: str | None) -> None:
    """Stop mail of ``kind`` to the player, or all mail (``kind`` None): the one-click
    link of every message. Harmless to repeat."""
    with transaction.atomic():
        preferences, _created = Preferences.objects.select_for_update().get_or_create(
            player_id=player_id
        )
        if kind is None:
            preferences.mail = False
        else:
            preferences.mail_kinds = {**preferences.mail_kinds, kind: False}
        preferences.save(update_fields=["mail", "mail_kinds"])


def guest_player(
    *, gateway: str, name: str, channel: str = "", address: str | None = None
) -> Player:
    """The guest ``name`` of ``gateway`` (and ``channel``): the same account each time the
    name comes back, created the first time (``docs/protocols/guests.md``).

    ``address``: the client's, when the gateway's clients are the players themselves; new
    guest accounts from one address are limited to :setting:`GUESTS_PER_ADDRESS` in
    :setting:`GUESTS_WINDOW_SECONDS` (:class:`~accounts.errors.GuestsRateLimited`).

    Raises :class:`~accounts.errors.InvalidGuestName` for a name or channel outside
    :data:`~accounts.validators.guest_name_validator` and
    :data:`~accounts.validators.channel_validator`.
    """
    try:
        guest_name_validator(name)
        if channel:
            channel_validator(channel)
    except ValidationError as exc:
        raise errors.InvalidGuestName(" ".join(str(m) for m in exc.messages)) from exc
    identity = {"guest__gateway": gateway, "guest__channel": channel, "guest__name": name}
    found = User.objects.filter(**identity).first()
    if found is not None:
        return found
    if address is not None:
        allowance = count_request(
            "guest", client_address(address) or address,
            limit=settings.GUESTS_PER_ADDRESS, window=settings.GUESTS_WINDOW_SECONDS,
        )
        if not allowance.allowed:
            raise errors.GuestsRateLimited(retry_after=allowance.retry_after)
    user = User(username=guest_username(gateway, channel, name), is_active=True)
    # A marker, not a hash: no door can log a guest in.
    user.set_unusable_password()
    try:
        with transaction.atomic():
            user.save()
            GuestIdentity.objects.create(player=user, gateway=gateway, channel=channel, name=name)
    except IntegrityError:
        # The same name arrived on two connections at once: the other one created it.
        return User.objects.get(**identity)
    return user


def make_gateway_key(*, player: Player) -> str:
    """A new gateway key for ``player``, replacing the one it had (which stops working at
    once); returned this once, only its digest is kept (:class:`GatewayKey`)."""
    key = secrets.token_urlsafe(GATEWAY_KEY_BYTES)
    GatewayKey.objects.update_or_create(
        player=player, defaults={"digest": GatewayKey.digest_of(key), "created_at": timezone.now()}
    )
    return key
