"""Subscription requests, approved by an administrator, and each player's preferences."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.validators import USERNAME_MAX_LENGTH, username_validator


class NotificationKind(models.TextChoices):
    """What a player is told about (``games.models.Notification``). It lives here, below
    games, because each player's per-kind preferences are an account's."""

    CHALLENGE_RECEIVED = "challenge_received", _("challenge received")
    CHALLENGE_ACCEPTED = "challenge_accepted", _("challenge accepted")
    CHALLENGE_DECLINED = "challenge_declined", _("challenge declined")
    OPPONENT_MOVED = "opponent_moved", _("opponent moved")
    DRAW_OFFERED = "draw_offered", _("draw offered")
    DRAW_ANSWERED = "draw_answered", _("draw offer answered")
    GAME_OVER = "game_over", _("game over")
    LOW_TIME = "low_time", _("24 hours left on your clock")
    OPPONENT_ON_VACATION = "opponent_on_vacation", _("opponent on vacation")


# What a correspondence player wants in the inbox: whatever awaits their action (their
# move, a challenge, a draw offer and its answer, the last 24 hours of a clock) and the
# end of a game. A declined challenge and an opponent's vacation wait for the bell.
MAILED_BY_DEFAULT = frozenset(
    {
        NotificationKind.CHALLENGE_RECEIVED,
        NotificationKind.CHALLENGE_ACCEPTED,
        NotificationKind.OPPONENT_MOVED,
        NotificationKind.DRAW_OFFERED,
        NotificationKind.DRAW_ANSWERED,
        NotificationKind.GAME_OVER,
        NotificationKind.LOW_TIME,
    }
)


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
    # E-mail. ``mail`` off stops every kind (the "all mail" link in each message);
    # ``mail_kinds`` holds only the kinds the player turned on or off, so a kind added
    # later starts at its default (MAILED_BY_DEFAULT) for everyone.
    mail = models.BooleanField(_("send me e-mail"), default=True)
    mail_kinds = models.JSONField(_("kinds of e-mail"), default=dict, blank=True)
    # The language last chosen while logged in: pages take it at each login (on any
    # machine) and mail is written in it. Empty: the site's language.
    language = models.CharField(
        _("language"), max_length=8, choices=settings.LANGUAGES, blank=True, default=""
    )

    # The fields of the look, which "Restore the defaults" resets; mail choices stay.
    LOOK_FIELDS = (
        "board_theme",
        "piece_set",
        "show_coordinates",
        "orientation",
        "sound",
        "show_status_bar",
        "confirm_moves",
    )

    def __str__(self) -> str:
        return f"preferences of {self.player}"

    def wants_mail(self, kind: str) -> bool:
        """Whether this player is mailed about ``kind`` (a :class:`NotificationKind`)."""
        return self.mail and self.mail_kind_on(kind)

    def mail_kind_on(self, kind: str) -> bool:
        """The player's switch for ``kind`` (its default if never touched), whatever the
        switch of all mail says."""
        chosen = self.mail_kinds.get(kind) if isinstance(self.mail_kinds, dict) else None
        if isinstance(chosen, bool):
            return chosen
        return kind in MAILED_BY_DEFAULT



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


class GuestIdentity(models.Model):
    """A player admitted without a password by a gateway that names its players (seed 001's
    ``#`` protocol, seed 004's IRC bot): an account of its own, never a registered one.

    Its user name is ``name@gateway`` (``nick@chessirc.channel`` for a channel), which no
    registered name can be: those allow only letters, digits and ``_ - .``. It has no
    usable password (no door logs it in), is left out of the players one can challenge
    or list, and out of the ranking; its games are unrated
    (``docs/protocols/guests.md``).
    """

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="guest"
    )
    gateway = models.CharField(_("gateway"), max_length=20)
    # The IRC channel without its "#" ("" where the gateway has no channels).
    channel = models.CharField(_("channel"), max_length=50, blank=True, default="")
    name = models.CharField(_("name"), max_length=30)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("guest identity")
        verbose_name_plural = _("guest identities")
        constraints = [
            models.UniqueConstraint(
                fields=["gateway", "channel", "name"], name="one_guest_per_gateway_channel_name"
            )
        ]

    def __str__(self) -> str:
        return guest_username(self.gateway, self.channel, self.name)


def guest_username(gateway: str, channel: str, name: str) -> str:
    """The user name a guest is shown by: ``alice@distribuido``, ``bob@chessirc.canal``."""
    return f"{name}@{gateway}.{channel}" if channel else f"{name}@{gateway}"
