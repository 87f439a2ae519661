"""Subscription requests, approved by an administrator, and each player's preferences."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.validators import USERNAME_MAX_LENGTH, username_validator


class SubscriptionRequest(models.Model):
    """A request to join (seed 000: SUBS). Approval creates the active account."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        APPROVED = "approved", _("approved")
        REJECTED = "rejected", _("rejected")

    username = models.CharField(
        _("user name"), max_length=USERNAME_MAX_LENGTH, validators=[username_validator]
    )
    # Only the hash, in Django's password format: approval copies it to the new account.
    password_hash = models.CharField(max_length=256)
    comment = models.CharField(_("full name / comment"), max_length=200, blank=True)
    email = models.EmailField(_("e-mail"), blank=True)
    created_at = models.DateTimeField(_("requested at"), default=timezone.now)
    status = models.CharField(max_length=10, choices=Status, default=Status.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="subscription_request",
    )

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                "username", condition=Q(status="pending"), name="one_pending_request_per_name"
            )
        ]
        indexes = [models.Index(fields=["status", "created_at"])]

    def __str__(self) -> str:
        return f"{self.username} ({self.status})"


class AccessChange(models.Model):
    """The last time an account was closed or reopened, and by whom; which of the two it
    was is the account's own ``is_active``.

    Seed 000 keeps one date per user: when they joined *or* when their status last changed;
    ESPOL JAUT lists the players whose date is later than the client's. Django's
    ``date_joined`` is the first half; this is the second.
    """

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="access_change",
    )
    changed_at = models.DateTimeField(_("changed at"), db_index=True)
    # The administrator who decided, or the player themself when they unsubscribed.
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("changed by"),
    )

    class Meta:
        verbose_name = _("access change")

    def __str__(self) -> str:
        return f"{self.player_id}: access changed at {self.changed_at}"


class Preferences(models.Model):
    """Board and client preferences (seed 000 menus COLORES and PREFERENCIAS)."""

    class Orientation(models.TextChoices):
        AUTO = "auto", _("my colour at the bottom")
        WHITE = "white", _("white at the bottom")
        BLACK = "black", _("black at the bottom")

    class BoardTheme(models.TextChoices):
        BROWN = "brown", _("brown")
        BLUE = "blue", _("blue")
        GREEN = "green", _("green")
        GREY = "grey", _("grey")

    class PieceSet(models.TextChoices):
        # The vendored board (chessground) ships only the cburnett pieces.
        CBURNETT = "cburnett", "cburnett"

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="preferences",
    )
    board_theme = models.CharField(
        _("board colours"), max_length=10, choices=BoardTheme, default=BoardTheme.BROWN
    )
    piece_set = models.CharField(
        _("pieces"), max_length=10, choices=PieceSet, default=PieceSet.CBURNETT
    )
    show_coordinates = models.BooleanField(_("show coordinates"), default=True)
    orientation = models.CharField(
        _("board orientation"), max_length=5, choices=Orientation, default=Orientation.AUTO
    )
    sound = models.BooleanField(_("sound on the opponent's move"), default=True)
    show_status_bar = models.BooleanField(_("show the status bar"), default=True)
    # On for everyone while games have no clock: a correspondence move cannot be taken
    # back, and a slip of the finger or the mouse is the likeliest way to lose one.
    confirm_moves = models.BooleanField(_("confirm each move before it is sent"), default=True)

    def __str__(self) -> str:
        return f"preferences of {self.player}"


class LoginSession(models.Model):
    """A browser's login session, recorded so that closing the account can end it.

    Django's session table does not say whose a session is (the user id is inside the
    encoded data); this index does, so revoking access deletes exactly the account's
    sessions instead of decoding every session stored.
    """

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="login_sessions"
    )
    session_key = models.CharField(max_length=40, unique=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["player", "created_at"])]

    def __str__(self) -> str:
        return f"login session of {self.player}"
