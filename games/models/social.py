"""What players tell each other and are told: a game's chat and its mutes, the in-app
notifications (the bell), and the record of "your move" mail.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models.challenges import Challenge
from games.models.games import Game
from games.models.notification_kinds import NotificationKind


class ChatMessage(models.Model):
    """A line of a game's chat. Two rooms per game: its players', and its spectators',
    which the players cannot read while the game runs (no advice from the gallery)."""

    class Room(models.TextChoices):
        PLAYERS = "players", _("players")
        SPECTATORS = "spectators", _("spectators")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat_messages")
    room = models.CharField(_("room"), max_length=10, choices=Room)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="chat_messages",
        verbose_name=_("author"),
    )
    # Stored as typed; every page and frame escapes it when it shows it.
    text = models.CharField(_("text"), max_length=300)
    created_at = models.DateTimeField(_("sent at"), default=timezone.now)

    class Meta:
        ordering = ["created_at", "pk"]
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")
        indexes = [models.Index(fields=["game", "room", "created_at"])]

    def __str__(self) -> str:
        return f"{self.author}: {self.text[:40]}"


class ChatMute(models.Model):
    """A player staff have silenced in every game's chat until the row is removed."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="chat_mute",
        verbose_name=_("player"),
    )
    muted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("muted by"),
    )
    muted_at = models.DateTimeField(_("muted at"), default=timezone.now)

    class Meta:
        verbose_name = _("chat mute")
        verbose_name_plural = _("chat mutes")

    def __str__(self) -> str:
        return f"{self.player} muted"


class Notification(models.Model):
    """Something a player is told in the app (the bell): written by the services inside
    their transaction through :func:`games.notifications.notify`, read by its recipient
    only. Several "opponent moved" of one game while unread are one row, updated."""

    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="notifications",
        verbose_name=_("recipient"),
    )
    kind = models.CharField(_("kind"), max_length=24, choices=NotificationKind)
    game = models.ForeignKey(
        Game,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="notifications",
        verbose_name=_("game"),
    )
    challenge = models.ForeignKey(
        Challenge,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="notifications",
        verbose_name=_("challenge"),
    )
    # Who did it (the opponent who moved, the challenger…); None when nobody did (time).
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("by"),
    )
    # Facts of the event that the rows above do not keep: the move's SAN, how the game
    # ended, whether a draw offer was accepted. Plain JSON values only.
    detail = models.JSONField(_("detail"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    read_at = models.DateTimeField(_("read at"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")
        constraints = [
            # One unread "opponent moved" per game: the next move updates it, in one
            # statement whose conflict this is (games.notifications).
            models.UniqueConstraint(
                fields=["recipient", "game"],
                condition=Q(read_at__isnull=True, kind=NotificationKind.OPPONENT_MOVED),
                name="one_unread_move_per_game",
            ),
        ]
        indexes = [
            # The bell's count and the unread of a game (marked read when it is opened).
            models.Index(
                fields=["recipient", "-created_at"],
                condition=Q(read_at__isnull=True),
                name="notification_unread",
            ),
            # The notifications page: all of a player's, newest first.
            models.Index(fields=["recipient", "-created_at"], name="notification_recipient"),
            # The purge of old read ones.
            models.Index(
                fields=["read_at"], condition=Q(read_at__isnull=False), name="notification_read"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} for {self.recipient_id}"

    @property
    def is_unread(self) -> bool:
        return self.read_at is None


class MailedMove(models.Model):
    """When a player was last mailed "your move" about a game: at most one such mail per
    game and player in ``MAIL_MOVE_INTERVAL_HOURS`` (games.mail). Claimed under its row
    lock before the mail goes, and given back if the send fails."""

    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    sent_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["recipient", "game"], name="one_mailed_move_per_game")
        ]

    def __str__(self) -> str:
        return f"move mail of {self.game_id} to {self.recipient_id} at {self.sent_at}"


class DailyDigest(models.Model):
    """The daily mail of the games waiting for a player (games.digest), one per player and
    day of theirs (in their zone): the row is the claim, written before the mail is
    queued, so that several sweeps running at once send it once."""

    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    day = models.DateField()
    queued_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["recipient", "day"], name="one_digest_per_day")
        ]

    def __str__(self) -> str:
        return f"digest of {self.day} to {self.recipient_id}"
