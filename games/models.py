"""Challenges, games and moves of correspondence chess.

The integrity rules live in the database as well as in the service layer, so that two
front doors racing each other cannot break them: one move per (game, number), at most one
active game per pair of players, at most one pending challenge per pair of players.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Greatest, Least
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import NotificationKind
from accounts.types import Player
from games import clock, rules

# Days per move a challenge or game may carry; NULL is no time control.
_VALID_DAYS = Q(days_per_move__isnull=True) | Q(days_per_move__in=clock.DAYS_PER_MOVE)


class Challenge(models.Model):
    """An invitation to play; the challenged player accepts it and picks the colour."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        ACCEPTED = "accepted", _("accepted")
        DECLINED = "declined", _("declined")
        WITHDRAWN = "withdrawn", _("withdrawn")

    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent"
    )
    challenged = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_received"
    )
    created_at = models.DateTimeField(default=timezone.now)
    status = models.CharField(max_length=10, choices=Status, default=Status.PENDING)
    decided_at = models.DateTimeField(null=True, blank=True)
    game = models.OneToOneField(
        "Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="challenge"
    )
    # The game's time control: days per move (games.clock.DAYS_PER_MOVE), or None.
    days_per_move = models.PositiveSmallIntegerField(_("days per move"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=_VALID_DAYS, name="challenge_days_per_move"),
            models.CheckConstraint(
                condition=~Q(challenger=models.F("challenged")), name="challenge_not_self"
            ),
            # Unordered pair: covers "one pending challenge per ordered pair" and refuses
            # a challenge to someone who already challenged you, even when both race.
            models.UniqueConstraint(
                Least("challenger", "challenged"),
                Greatest("challenger", "challenged"),
                condition=Q(status="pending"),
                name="one_pending_challenge_per_pair",
            ),
        ]
        indexes = [
            models.Index(fields=["challenged", "status", "created_at"]),
            models.Index(fields=["challenger", "status", "created_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.challenger} → {self.challenged} ({self.status})"

    @property
    def time_control_label(self) -> str:
        return clock.label(self.days_per_move)


# Shown to people (and translated); the stored values are rules.Termination's.
TERMINATION_LABELS = {
    rules.Termination.CHECKMATE: _("checkmate"),
    rules.Termination.STALEMATE: _("stalemate"),
    rules.Termination.INSUFFICIENT_MATERIAL: _("insufficient material"),
    rules.Termination.SEVENTYFIVE_MOVES: _("seventyfive moves"),
    rules.Termination.FIVEFOLD_REPETITION: _("fivefold repetition"),
    rules.Termination.THREEFOLD_REPETITION: _("threefold repetition"),
    rules.Termination.FIFTY_MOVES: _("fifty moves"),
    rules.Termination.AGREEMENT: _("agreement"),
    rules.Termination.RESIGNATION: _("resignation"),
    rules.Termination.ABANDONMENT: _("abandonment"),
    rules.Termination.TIMEOUT: _("time ran out"),
    rules.Termination.ABORTED: _("aborted"),
}


class Colour(models.TextChoices):
    WHITE = rules.WHITE, _("white")
    BLACK = rules.BLACK, _("black")


class GameQuerySet(models.QuerySet):
    def of_player(self, player: object, **filters: object) -> GameQuerySet:
        """``player``'s games (as white or black) matching ``filters``.

        The filters are repeated inside each side of the OR, so that each side matches the
        (white, status, updated_at) or (black, status, updated_at) index and SQLite reads
        only this player's games (a multi-index OR). Written as ``(white OR black) AND
        status`` its planner walks every game with that status instead.
        """
        return self.filter(Q(white=player, **filters) | Q(black=player, **filters))


class Game(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", _("in progress")
        FINISHED = "finished", _("finished")

    class Result(models.TextChoices):
        ONGOING = "*", _("in progress")
        WHITE_WINS = "1-0", _("white wins")
        BLACK_WINS = "0-1", _("black wins")
        DRAW = "1/2-1/2", _("draw")

    # Built from rules.Termination so the stored values have one definition; the stubs
    # type only the class form of TextChoices.
    Termination = models.TextChoices(  # type: ignore[call-overload]
        "Termination", [(t.name, (t.value, TERMINATION_LABELS[t])) for t in rules.Termination]
    )

    white = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="games_as_white"
    )
    black = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="games_as_black"
    )
    created_at = models.DateTimeField(default=timezone.now)
    # Every state change touches updated_at: incremental sync (ESPOL PPEN) reads it.
    updated_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    # When the last move was played (None before the first): a move's thinking time
    # counts from it, without reading the moves.
    last_move_at = models.DateTimeField(null=True, blank=True)
    # The last move in SAN ("" before the first): game lists show it without reading the
    # moves, which for a page of games would mean a query that grows with the games stored.
    last_move_san = models.CharField(max_length=10, blank=True, default="")
    status = models.CharField(max_length=10, choices=Status, default=Status.ACTIVE)
    result = models.CharField(max_length=7, choices=Result, default=Result.ONGOING)
    termination = models.CharField(max_length=24, choices=Termination, blank=True)
    # The colour whose draw offer awaits an answer ("" when none). Cleared when the offer
    # is answered and whenever the game ends, so it never speaks of a finished game.
    draw_offer_by = models.CharField(max_length=5, choices=Colour, blank=True, default="")
    # The colour whose action ended the game: who resigned, abandoned, accepted a draw or
    # claimed one ("" while in progress, and when the board itself ended it).
    ended_by = models.CharField(max_length=5, choices=Colour, blank=True, default="")
    # How many moves each side had made when it last offered a draw (None: never). A side
    # offers again only after a move of its own: an offer made on one's turn stops one's
    # clock while the opponent answers, so repeated offers would buy time.
    white_offered_after = models.PositiveIntegerField(null=True, blank=True)
    black_offered_after = models.PositiveIntegerField(null=True, blank=True)
    fen = models.CharField(max_length=100, default=rules.STARTING_FEN)
    next_move_number = models.PositiveIntegerField(default=1)
    # The last named opening position the game passed through (games.openings), kept as
    # moves are played so that the archive filters by opening with an indexed query.
    opening_eco = models.CharField(_("ECO code"), max_length=3, blank=True, default="")
    opening_name = models.CharField(_("opening"), max_length=150, blank=True, default="")
    # Bumped on every state change; live clients resync from the last version they saw.
    version = models.PositiveIntegerField(default=0)
    # Time control: days per move (games.clock.DAYS_PER_MOVE), or None for none.
    days_per_move = models.PositiveSmallIntegerField(_("days per move"), null=True, blank=True)
    # When the player the game waits for (colour_on_clock) runs out of time, in UTC;
    # None without a time control and once the game is over (the services clear it), so
    # "whose time has run out" is one range scan of a partial index holding only the
    # games with a running clock.
    deadline = models.DateTimeField(_("deadline"), null=True, blank=True)
    # The time the player to move still had when their clock stopped to wait for
    # someone else (a draw offer they made); None while their clock runs.
    time_left = models.DurationField(_("time left when paused"), null=True, blank=True)
    # Since when the clock of the player it waits for stands still, that player being on
    # vacation (None while it runs): the deadline moves on by the pause when it ends.
    paused_at = models.DateTimeField(_("clock paused since"), null=True, blank=True)
    # The deadline its player was last warned about ("24 hours left", games.notifications):
    # a new deadline (the next move, a resumed clock) differs from it, so each deadline is
    # warned about once without anything else having to clear this.
    low_time_warned_for = models.DateTimeField(
        _("low time warned for the deadline"), null=True, blank=True
    )
    # Counted in the ranking when it ends. A game with a gateway's guest is not: a name
    # typed without a password proves nobody's strength (docs/protocols/guests.md).
    rated = models.BooleanField(_("rated"), default=True)
    # The position the game started from, when not the standard one ("": standard):
    # chessirc (seed 004) may START a game from any FEN.
    initial_fen = models.CharField(max_length=100, blank=True, default="")
    # Where it was played, for the PGN's Site tag ("": this service): an IRC channel.
    site = models.CharField(max_length=60, blank=True, default="")

    objects = GameQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            models.CheckConstraint(condition=~Q(white=models.F("black")), name="game_not_self"),
            models.CheckConstraint(condition=_VALID_DAYS, name="game_days_per_move"),
            models.UniqueConstraint(
                Least("white", "black"),
                Greatest("white", "black"),
                condition=Q(status="active"),
                name="one_active_game_per_pair",
            ),
        ]
        indexes = [
            models.Index(fields=["white", "status", "updated_at"]),
            models.Index(fields=["black", "status", "updated_at"]),
            models.Index(fields=["status", "finished_at"]),
            models.Index(
                fields=["deadline"],
                condition=Q(deadline__isnull=False, paused_at__isnull=True),
                name="game_deadline_running",
            ),
            # The running clocks not yet warned about for their deadline: the sweep's "24
            # hours left" is one range scan of it (services.warn_low_time).
            models.Index(
                fields=["deadline"],
                condition=Q(
                    deadline__isnull=False,
                    paused_at__isnull=True,
                    days_per_move__gt=clock.LOW_TIME.days,
                )
                & (
                    Q(low_time_warned_for__isnull=True)
                    | Q(low_time_warned_for__lt=models.F("deadline"))
                ),
                name="game_deadline_unwarned",
            ),
            # A player's archive: finished games, latest first, per side.
            models.Index(fields=["white", "status", "-finished_at"]),
            models.Index(fields=["black", "status", "-finished_at"]),
            models.Index(fields=["opening_eco", "opening_name"]),
            # The live lobby: games in progress, the latest changed first.
            models.Index(fields=["status", "-updated_at"], name="games_status_updated"),
        ]

    def __str__(self) -> str:
        return f"{self.public_id} {self.white} – {self.black}"

    @property
    def public_id(self) -> str:
        """The ESPOL game name: ``P`` and the number zero-padded to at least 7 digits."""
        return self.public_id_of(self.pk)

    @staticmethod
    def public_id_of(pk: int) -> str:
        """The game name of the game numbered ``pk`` (``42`` → ``P0000042``)."""
        return f"P{pk:07d}"

    @staticmethod
    def pk_from_public_id(public_id: str) -> int | None:
        """``P0000042`` → 42; ``None`` for anything that is not a game name."""
        text = public_id.strip()
        if len(text) < 2 or text[0] not in "Pp" or not text[1:].isdigit():
            return None
        return int(text[1:])

    @property
    def start_fen(self) -> str:
        """The position before the first move."""
        return self.initial_fen or rules.STARTING_FEN

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.ACTIVE

    @property
    def colour_to_move(self) -> str:
        return rules.colour_to_move(self.fen)

    @property
    def colour_on_clock(self) -> str:
        """The colour the game waits for, whose clock runs: the player to move, or, while
        a draw offer is pending, the player it was made to (nobody moves until then)."""
        if self.draw_offer_by:
            return rules.BLACK if self.draw_offer_by == rules.WHITE else rules.WHITE
        return self.colour_to_move

    @property
    def time_control_label(self) -> str:
        return clock.label(self.days_per_move)

    @property
    def player_to_move_id(self) -> int:
        return self.white_id if self.colour_to_move == rules.WHITE else self.black_id

    @property
    def player_on_clock_id(self) -> int:
        """The player the game waits for (see ``colour_on_clock``)."""
        return self.white_id if self.colour_on_clock == rules.WHITE else self.black_id

    @property
    def player_on_clock(self) -> Player:
        return self.white if self.colour_on_clock == rules.WHITE else self.black

    def waits_for(self, user_id: int) -> bool:
        """Whether the game is in progress and its next step (a move, or the answer to a
        draw offer) is ``user_id``'s: the rule of "your move" lists, badges and mail."""
        colour = self.colour_of(user_id)
        return colour is not None and self.waits_for_colour(colour)

    def waits_for_colour(self, colour: str) -> bool:
        """:meth:`waits_for`, for the side playing ``colour``."""
        return self.is_active and self.colour_on_clock == colour

    def colour_of(self, user_id: int) -> str | None:
        """``"white"``, ``"black"``, or ``None`` when the user does not play here."""
        if user_id == self.white_id:
            return rules.WHITE
        if user_id == self.black_id:
            return rules.BLACK
        return None

    def opponent_of(self, user_id: int) -> Player:
        """The other player, for ``user_id``, one of the game's two players."""
        if self.colour_of(user_id) is None:
            raise ValueError(f"user {user_id} does not play {self.public_id}")
        return self.black if user_id == self.white_id else self.white

    @property
    def winner_colour(self) -> str | None:
        return {"1-0": rules.WHITE, "0-1": rules.BLACK}.get(self.result)


class Move(models.Model):
    """One half-move. ``number`` is 1-based; odd numbers are white's."""

    # No separate index: the (game, number) unique constraint already leads with game.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves", db_index=False)
    number = models.PositiveIntegerField()
    uci = models.CharField(max_length=5)
    san = models.CharField(max_length=10)
    # ESPOL's "reverso": stored and returned to old clients, no effect on legality.
    reverse = models.BooleanField(default=False)
    fen_after = models.CharField(max_length=100)
    played_at = models.DateTimeField(default=timezone.now)
    think_seconds = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="one_move_per_number"),
        ]

    def __str__(self) -> str:
        return f"{self.game.public_id if self.game_id else '?'} #{self.number} {self.san}"


class Vacation(models.Model):
    """A spell of vacation (chess.com's model): while it lasts, every clock where the
    player is to move stands still; it ends when the player ends it, or by ``ends_by``,
    when the year's allowance (``VACATION_DAYS_PER_YEAR``) is spent."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="vacations"
    )
    started_at = models.DateTimeField(_("started at"))
    ends_by = models.DateTimeField(_("ends at the latest"))
    ended_at = models.DateTimeField(_("ended at"), null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["player"], condition=Q(ended_at__isnull=True),
                name="one_vacation_at_a_time",
            ),
        ]
        indexes = [
            models.Index(fields=["player", "started_at"]),
            models.Index(
                fields=["ends_by"], condition=Q(ended_at__isnull=True), name="vacation_running"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.started_at:%Y-%m-%d} – {self.ended_at or '…'}"


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


class ConditionalLines(models.Model):
    """One player's conditional moves on one game ("if they play X, I reply Y, then if
    Z, W…"), waiting for the opponent's move: :mod:`games.conditional`.

    ``lines`` holds lists of UCI moves, each starting with the opponent's move due as
    half-move ``from_move`` and alternating with the owner's replies; the lines agree
    wherever they share a beginning, so they form one tree. Only the services write it;
    only its owner ever sees it.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="conditional_lines")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conditional_lines"
    )
    from_move = models.PositiveIntegerField()
    lines = models.JSONField(default=list)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="one_set_of_lines_per_player")
        ]

    def __str__(self) -> str:
        return f"{self.player} on {self.game_id}: {len(self.lines)} line(s)"


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
