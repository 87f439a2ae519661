"""A game of correspondence chess and its moves.

The integrity rules live in the database as well as in the service layer, so that two
front doors racing each other cannot break them: one move per (game, number). How many
games two players may have in progress together is a site rule the administrator sets
(:class:`~games.models.site.SiteRules`), counted by the services under a lock on both
players: no unique index can say "at most N".
"""

from __future__ import annotations

import string

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.crypto import get_random_string
from django.utils.translation import gettext_lazy as _

from accounts.types import Player
from games import clock, rules

SHORT_ID_LENGTH = 8
SHORT_ID_ALPHABET = string.ascii_letters + string.digits


def new_short_id() -> str:
    """A game's or challenge's id at every door but ESPOL's (the web's ``/games/<id>/``,
    the lichess API, where ids are eight letters and digits): random, and never one that
    reads as a game's number (``12``) or ESPOL's name of one (``P1234567``)."""
    while True:
        text = get_random_string(SHORT_ID_LENGTH, SHORT_ID_ALPHABET)
        if is_short_id(text):
            return text


def is_short_id(text: str) -> bool:
    """Whether ``text`` has the shape of a short id (not whether one exists)."""
    return (
        len(text) == SHORT_ID_LENGTH
        and text.isascii()
        and text.isalnum()
        and not text.isdigit()
        and not (text[0] in "Pp" and text[1:].isdigit())
    )


# Days per move a challenge or game may carry; NULL is no time control.
VALID_DAYS = Q(days_per_move__isnull=True) | Q(days_per_move__in=clock.DAYS_PER_MOVE)

# A Fischer clock a challenge, game or event may carry instead (games.clock.Fischer):
# none of its three numbers, or all three within bounds and no days per move beside.
VALID_FISCHER = Q(
    fischer_base_days__isnull=True,
    fischer_increment_days__isnull=True,
    fischer_cap_days__isnull=True,
) | Q(
    days_per_move__isnull=True,
    fischer_base_days__gte=1,
    fischer_base_days__lte=clock.FISCHER_MAX_BASE_DAYS,
    fischer_increment_days__lte=clock.FISCHER_MAX_INCREMENT_DAYS,
    fischer_cap_days__gte=models.F("fischer_base_days"),
    fischer_cap_days__lte=clock.FISCHER_MAX_CAP_DAYS,
)


class FischerClockFields(models.Model):
    """A Fischer clock's three numbers, in whole days (all empty: none), for a
    challenge, a game and an event alike."""

    fischer_base_days = models.PositiveSmallIntegerField(
        _("Fischer base (days)"), null=True, blank=True
    )
    fischer_increment_days = models.PositiveSmallIntegerField(
        _("Fischer increment (days per move)"), null=True, blank=True
    )
    fischer_cap_days = models.PositiveSmallIntegerField(
        _("Fischer cap (days)"), null=True, blank=True
    )

    class Meta:
        abstract = True

    @property
    def fischer(self) -> clock.Fischer | None:
        if (
            self.fischer_base_days is None
            or self.fischer_increment_days is None
            or self.fischer_cap_days is None
        ):
            return None
        return clock.Fischer(
            self.fischer_base_days, self.fischer_increment_days, self.fischer_cap_days
        )

    def fischer_fields(self) -> dict[str, int | None]:
        """The three numbers, to pass on to what this one starts (a challenge's game)."""
        return {
            "fischer_base_days": self.fischer_base_days,
            "fischer_increment_days": self.fischer_increment_days,
            "fischer_cap_days": self.fischer_cap_days,
        }

    @property
    def time_control_label(self) -> str:
        fischer = self.fischer
        if fischer is not None:
            return clock.fischer_label(fischer)
        return clock.label(getattr(self, "days_per_move", None))


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


class Game(FischerClockFields):
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

    # Which of its players were on vacation when the game was read, where the read says
    # (the move's read, games.services.statements); None: not read with it. A vacation's
    # start and end move the version of each of the player's games, so a write guarded
    # by the version read is as current as this. Not a field.
    away_when_read: frozenset[int] | None = None

    # The id every door but ESPOL takes (ESPOL names games by number: public_id). A game
    # begun by a challenge has the challenge's, as lichess's do.
    short_id = models.CharField(
        _("id"), max_length=SHORT_ID_LENGTH, unique=True, default=new_short_id, editable=False
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
    # A Fischer clock's banks (FischerClockFields): what each side had left when its
    # clock last stopped; the side the game waits for has what is left before its
    # deadline (games.clock.bank_of). None without a Fischer clock.
    white_bank = models.DurationField(_("white's time bank"), null=True, blank=True)
    black_bank = models.DurationField(_("black's time bank"), null=True, blank=True)
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
    # Whether any player has conditional lines on the game (games.ConditionalLines):
    # kept by the services that write and delete them, in the same transaction, so a
    # move looks for a reply only where one can be. Not a change clients see: it moves
    # no version (a move's UPDATE checks it beside the version).
    has_conditional_lines = models.BooleanField(default=False)
    # Counted in the ranking when it ends. A game with a gateway's guest is not: a name
    # typed without a password proves nobody's strength (docs/protocols/guests.md).
    rated = models.BooleanField(_("rated"), default=True)
    # The position the game started from, when not the standard one ("": standard):
    # chessirc (seed 004) may START a game from any FEN.
    initial_fen = models.CharField(max_length=100, blank=True, default="")
    # Where it was played, for the PGN's Site tag ("": this service): an IRC channel.
    site = models.CharField(max_length=60, blank=True, default="")
    # A game of a tournament (games.models.tournaments): its event, group and Berger
    # round. Outside the one-active-game-per-pair rule: a double round robin plays two
    # games per pair at once.
    tournament = models.ForeignKey(
        "Tournament", null=True, blank=True, on_delete=models.PROTECT, related_name="games"
    )
    tournament_group = models.ForeignKey(
        "TournamentGroup", null=True, blank=True, on_delete=models.PROTECT, related_name="games"
    )
    tournament_round = models.PositiveSmallIntegerField(null=True, blank=True)
    # A game imported from PGN (the lichess API's POST /api/import): who imported it. It
    # was not played here, counts in no rating, and may have no player who is the
    # importer (docs/protocols/lichess.md, "Imported games").
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("imported by"),
    )

    objects = GameQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            models.CheckConstraint(condition=~Q(white=models.F("black")), name="game_not_self"),
            models.CheckConstraint(condition=VALID_DAYS, name="game_days_per_move"),
            models.CheckConstraint(condition=VALID_FISCHER, name="game_fischer_clock"),
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
                )
                # A one-day move is warned about by "opponent moved"; a Fischer clock
                # (no days per move) may run low after any number of moves.
                & (Q(days_per_move__isnull=True) | Q(days_per_move__gt=clock.LOW_TIME.days))
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
