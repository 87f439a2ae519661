"""Who plays through a gateway that names its players without a password: one rule for
the ``#`` protocol (seed 001) and chessirc (seed 004), described in
``docs/protocols/guests.md``.

A name the administrator linked to an account plays as that account, but only while the
gateway requires its shared secret (otherwise anyone who can reach the port could type
the name) and, on the ``#`` protocol, where every player's client sends the secret, only
with the account's own gateway key (:class:`accounts.models.GatewayKey`): the shared
secret alone let any client play as any linked name. chessirc's one client is the bot,
trusted with a whole channel by its secret, so its nicks need no key. Any other name
plays as that gateway's guest (``name@gateway``, or ``nick@chessirc.channel``), unless
the administrator turned guests off for the gateway. A linked name is never a guest's,
whatever the secret: it stays reserved.

Synchronous and touching the database: the gateways call it from their worker threads.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from accounts import selectors as account_selectors
from accounts import services as account_services
from accounts.types import Player
from ajedrez.core.errors import DomainError
from legacy_tcp.models import Gateway, GatewayPolicy, LinkedName

# The gateways' names, as their policies and linked names record them.
DISTRIBUIDO = Gateway.DISTRIBUIDO.value
CHESSIRC = Gateway.CHESSIRC.value


class GuestsNotAllowed(DomainError):
    code = "guests_not_allowed"
    default_message = _("Guests may not play through this gateway.")


class NameReserved(DomainError):
    code = "name_reserved"
    default_message = _("That name belongs to a registered player.")


class LinkedAccountClosed(DomainError):
    code = "linked_account_closed"
    default_message = _("The account linked to that name is closed.")


class LinkKeyRequired(DomainError):
    code = "link_key_required"
    default_message = _("That name is linked to an account: send it with the account's key.")


class WrongLinkKey(DomainError):
    code = "wrong_link_key"
    default_message = _("That is not the key of the account linked to that name.")


class NameNotLinked(DomainError):
    code = "name_not_linked"
    default_message = _("That name is linked to no account: register it without a key.")


# The gateways whose linked names need the account's key (see the module's docstring).
GATEWAYS_WITH_LINK_KEYS = frozenset({DISTRIBUIDO})


def guests_allowed(gateway: str) -> bool:
    policy = GatewayPolicy.objects.filter(gateway=gateway).first()
    return policy is None or policy.guests_allowed


def player_for(
    *,
    gateway: str,
    name: str,
    channel: str = "",
    trusted: bool,
    address: str | None = None,
    key: str | None = None,
) -> Player:
    """The account that ``name`` plays as on ``gateway`` (and IRC ``channel``).

    ``trusted``: the gateway requires a shared secret from its clients, so a linked name
    may act as its account. ``address``: the client's, where the players connect
    themselves (new guests from one address are limited). ``key``: the account's gateway
    key the client sent with the name, which a linked name needs on the gateways of
    :data:`GATEWAYS_WITH_LINK_KEYS`. Raises :class:`NameReserved`,
    :class:`LinkKeyRequired`, :class:`WrongLinkKey`, :class:`NameNotLinked`,
    :class:`LinkedAccountClosed`, :class:`GuestsNotAllowed`,
    :class:`~accounts.errors.GuestsRateLimited` or :class:`~accounts.errors.InvalidGuestName`.
    """
    link = (
        LinkedName.objects.filter(gateway=gateway, channel=channel, name=name)
        .select_related("player")
        .first()
    )
    if link is not None:
        if not trusted:
            raise NameReserved()
        if gateway in GATEWAYS_WITH_LINK_KEYS:
            if not key:
                raise LinkKeyRequired()
            if not account_selectors.gateway_key_matches(link.player_id, key):
                raise WrongLinkKey()
        if not link.player.is_active:
            raise LinkedAccountClosed()
        return link.player
    if key:
        # A key asks for an account: never a guest by mistake.
        raise NameNotLinked()
    if not guests_allowed(gateway):
        raise GuestsNotAllowed()
    return account_services.guest_player(
        gateway=gateway, name=name, channel=channel, address=address
    )
