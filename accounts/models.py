"""Subscription requests, approved by an administrator, and each player's preferences."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
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
    # The zone the browser reported at sign-up; approval makes it the player's.
    time_zone = models.CharField(_("time zone"), max_length=64, blank=True, default="")
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
    # lichess's "go to the next game after moving", for a player with many games at once.
    next_game_after_move = models.BooleanField(
        _("after my move, go to the next game where it is my move"), default=False
    )
    # E-mail. ``mail`` off stops every kind (the "all mail" link in each message);
    # ``mail_kinds`` holds only the kinds the player turned on or off, so a kind added
    # later starts at its default (``games.models.MAILED_BY_DEFAULT``) for everyone.
    mail = models.BooleanField(_("send me e-mail"), default=True)
    mail_kinds = models.JSONField(_("kinds of e-mail"), default=dict, blank=True)
    # Instead of a mail per move, one a day listing the games that wait for the player,
    # at ``digest_hour`` in their zone (lichess's daily correspondence mail).
    mail_digest = models.BooleanField(
        _("one e-mail a day with the games where it is my move, instead of one per move"),
        default=False,
    )
    digest_hour = models.PositiveSmallIntegerField(
        _("hour of the daily e-mail"),
        default=8,
        validators=[MinValueValidator(0), MaxValueValidator(23)],
    )
    # The language last chosen while logged in: pages take it at each login (on any
    # machine) and mail is written in it. Empty: none chosen (see page_language).
    language = models.CharField(
        _("language"), max_length=8, choices=settings.LANGUAGES, blank=True, default=""
    )
    # The zone pages and mail show times in (an IANA name; empty: the browser's, else
    # UTC). Guessed from the browser at sign-up; ``accounts.time_zones``.
    time_zone = models.CharField(_("time zone"), max_length=64, blank=True, default="")
    # The language the player last read the site in, recorded when they log in and when
    # they save these preferences (the browser's, or the one the menu set for that
    # browser): mail is written in it while ``language`` is empty, so a player who reads
    # the site in English without choosing is not mailed in the site's Spanish.
    page_language = models.CharField(
        _("language the site is read in"),
        max_length=8,
        choices=settings.LANGUAGES,
        blank=True,
        default="",
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
        "next_game_after_move",
    )

    def __str__(self) -> str:
        return f"preferences of {self.player}"

    def mail_language(self) -> str:
        """The language the player's mail is written in: the one they chose, else the
        one they last read the site in, else the site's."""
        return self.language or self.page_language or settings.LANGUAGE_CODE

    def mail_choice(self, kind: str) -> bool | None:
        """The player's own switch for the notification kind ``kind``, or ``None`` if never
        touched (``games.models.notification_kinds`` knows the defaults)."""
        chosen = self.mail_kinds.get(kind) if isinstance(self.mail_kinds, dict) else None
        return chosen if isinstance(chosen, bool) else None



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


class ApiToken(models.Model):
    """A personal access token of the lichess-compatible API (docs/protocols/lichess.md):
    a client sends it as ``Authorization: Bearer``, and may do what its scopes allow.

    Only the SHA-256 digest of the token is kept; the token itself is shown once, when it
    is made. It is 24 random letters and digits (over 140 bits): nobody can guess one, or
    find one from its digest, so a fast hash is enough, and checking a token on every
    request costs no password hash.
    """

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    description = models.CharField(_("description"), max_length=100)
    digest = models.CharField(max_length=64, unique=True)
    # lichess's scope names ("board:play", "challenge:read", …): accounts.tokens.SCOPES.
    scopes = models.JSONField(_("scopes"), default=list)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    # Written at most once a minute (accounts.tokens.use_token), not on every request.
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    # A token granted to an application through OAuth (accounts.oauth) lapses, as
    # lichess's do after a year; a personal token never does (None).
    expires_at = models.DateTimeField(_("expires at"), null=True, blank=True)

    class Meta:
        verbose_name = _("API access token")
        verbose_name_plural = _("API access tokens")
        indexes = [models.Index(fields=["player", "created_at"])]

    def __str__(self) -> str:
        return f"{self.description} ({self.player})"


class OAuthAuthorization(models.Model):
    """An authorisation code a player granted an application on the consent page
    (``/oauth``), waiting to be exchanged for a token (``POST /api/token``): single use,
    short-lived, bound to the application's ``client_id``, its ``redirect_uri`` and its
    PKCE challenge (accounts.oauth). Only the code's SHA-256 digest is kept."""

    digest = models.CharField(max_length=64, unique=True)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    client_id = models.CharField(max_length=100)
    redirect_uri = models.CharField(max_length=2000)
    # BASE64URL(SHA256(code_verifier)): 43 characters.
    code_challenge = models.CharField(max_length=128)
    scopes = models.JSONField(default=list)
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        verbose_name = _("OAuth authorisation code")
        verbose_name_plural = _("OAuth authorisation codes")

    def __str__(self) -> str:
        return f"{self.client_id} ({self.player_id})"


class BotAccount(models.Model):
    """A player upgraded to a bot through the lichess API (``POST
    /api/bot/account/upgrade``): it plays through the API alone (the site's login and
    ESPOL refuse it) and is shown as a bot. An account that has played no game may be
    upgraded; the upgrade is for good, as on lichess."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="bot"
    )
    upgraded_at = models.DateTimeField(_("upgraded at"), default=timezone.now)

    class Meta:
        verbose_name = _("bot account")
        verbose_name_plural = _("bot accounts")

    def __str__(self) -> str:
        return f"bot {self.player_id}"


class GatewayKey(models.Model):
    """The account's own key for the gateways that name their players without a password
    (``docs/protocols/guests.md``): a name the administrator linked to the account plays
    as it over the ``#`` protocol only when the client sends this key with the name.

    Only a digest is kept, so the key is shown once, when it is made (the preferences
    page makes a new one, which ends the old). A SHA-256 digest suffices: the key is
    random (:data:`GATEWAY_KEY_BYTES`), so there is no dictionary to try, unlike a
    password, and checking it costs microseconds, not a slow hash per registration.
    """

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="gateway_key",
    )
    digest = models.CharField(max_length=64)
    created_at = models.DateTimeField(_("made at"), default=timezone.now)

    class Meta:
        verbose_name = _("gateway key")
        verbose_name_plural = _("gateway keys")

    def __str__(self) -> str:
        return f"gateway key of {self.player}"

    @staticmethod
    def digest_of(key: str) -> str:
        return hashlib.sha256(key.encode()).hexdigest()


# Random bytes in a gateway key: 32 URL-safe characters (letters, digits, ``-`` and ``_``,
# none of them ``#`` or ``:``, which the ``#`` protocol's registration uses).
GATEWAY_KEY_BYTES = 24
# The longest text that is looked at as a key (a key is 32 characters).
GATEWAY_KEY_MAX_LENGTH = 64
