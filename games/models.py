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

from games import rules


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

    class Meta:
        ordering = ["-created_at"]
        constraints = [
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
    fen = models.CharField(max_length=100, default=rules.STARTING_FEN)
    next_move_number = models.PositiveIntegerField(default=1)
    # Bumped on every state change; live clients resync from the last version they saw.
    version = models.PositiveIntegerField(default=0)

    objects = GameQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            models.CheckConstraint(condition=~Q(white=models.F("black")), name="game_not_self"),
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
        ]

    def __str__(self) -> str:
        return f"{self.public_id} {self.white} – {self.black}"

    @property
    def public_id(self) -> str:
        """The ESPOL game name: ``P`` and the number zero-padded to at least 7 digits."""
        return f"P{self.pk:07d}"

    @staticmethod
    def pk_from_public_id(public_id: str) -> int | None:
        """``P0000042`` → 42; ``None`` for anything that is not a game name."""
        text = public_id.strip()
        if len(text) < 2 or text[0] not in "Pp" or not text[1:].isdigit():
            return None
        return int(text[1:])

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.ACTIVE

    @property
    def colour_to_move(self) -> str:
        return rules.colour_to_move(self.fen)

    @property
    def player_to_move_id(self) -> int:
        return self.white_id if self.colour_to_move == rules.WHITE else self.black_id

    def colour_of(self, user_id: int) -> str | None:
        """``"white"``, ``"black"``, or ``None`` when the user does not play here."""
        if user_id == self.white_id:
            return rules.WHITE
        if user_id == self.black_id:
            return rules.BLACK
        return None

    def opponent_id(self, user_id: int) -> int:
        return self.black_id if user_id == self.white_id else self.white_id

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
