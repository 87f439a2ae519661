"""Who plays through a gateway that names its players without a password: one rule for
the ``#`` protocol (seed 001) and chessirc (seed 004), described in
``docs/protocols/guests.md``.

A name the administrator linked to an account plays as that account, but only while the
gateway requires its shared secret (otherwise anyone who can reach the port could type
the name). Any other name plays as that gateway's guest (``name@gateway``, or
``nick@chessirc.channel``), unless the administrator turned guests off for the gateway.
A linked name is never a guest's, whatever the secret: it stays reserved.

Synchronous and touching the database: the gateways call it from their worker threads.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

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


def guests_allowed(gateway: str) -> bool:
    policy = GatewayPolicy.objects.filter(gateway=gateway).first()
    return policy is None or policy.guests_allowed


def player_for(
    *, gateway: str, name: str, channel: str = "", trusted: bool, address: str | None = None
) -> Player:
    """The account that ``name`` plays as on ``gateway`` (and IRC ``channel``).

    ``trusted``: the gateway requires a shared secret from its clients, so a linked name
    may act as its account. ``address``: the client's, where the players connect
    themselves (new guests from one address are limited). Raises :class:`NameReserved`,
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
        if not link.player.is_active:
            raise LinkedAccountClosed()
        return link.player
    if not guests_allowed(gateway):
        raise GuestsNotAllowed()
    return account_services.guest_player(
        gateway=gateway, name=name, channel=channel, address=address
    )
