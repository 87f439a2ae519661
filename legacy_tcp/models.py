"""What the administrator decides about the gateways that name players without a
password (``docs/protocols/guests.md``): whether guests may play through each, and which
names stand for registered accounts."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Gateway(models.TextChoices):
    DISTRIBUIDO = "distribuido", _("Ajedrez Distribuido (# protocol)")
    CHESSIRC = "chessirc", _("chessirc (IRC bot)")


class GatewayPolicy(models.Model):
    """Per gateway: may names nobody linked play as guests? A gateway without a row
    admits guests (the default this service ships with)."""

    gateway = models.CharField(_("gateway"), max_length=20, choices=Gateway, primary_key=True)
    guests_allowed = models.BooleanField(
        _("guests may play"),
        default=True,
        help_text=_(
            "Off: only the names linked to accounts below may register; games in progress "
            "go on."
        ),
    )

    class Meta:
        verbose_name = _("gateway policy")
        verbose_name_plural = _("gateway policies")

    def __str__(self) -> str:
        return str(self.get_gateway_display())


class LinkedName(models.Model):
    """A name on a gateway (and IRC channel) that plays as a registered account: its games
    are that account's, rated, and can be finished in the browser. Honoured only while
    the gateway requires its shared secret, since the name itself proves nothing, and on
    the ``#`` protocol only with the account's own key (``accounts.models.GatewayKey``)."""

    gateway = models.CharField(_("gateway"), max_length=20, choices=Gateway)
    channel = models.CharField(
        _("channel"),
        max_length=50,
        blank=True,
        default="",
        help_text=_("IRC channel without the # (chessirc only)."),
    )
    name = models.CharField(_("name on the gateway"), max_length=30)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="gateway_names",
        verbose_name=_("account"),
        limit_choices_to={"is_staff": False, "guest__isnull": True},
    )

    class Meta:
        verbose_name = _("linked name")
        verbose_name_plural = _("linked names")
        constraints = [
            models.UniqueConstraint(
                fields=["gateway", "channel", "name"], name="one_link_per_gateway_channel_name"
            )
        ]

    def __str__(self) -> str:
        where = f"{self.gateway} #{self.channel}" if self.channel else self.gateway
        return f"{self.name} ({where}) → {self.player}"
