"""Correspondence tournaments ("events"): a round-robin section, or a multi-round event
whose groups send their best players on to the next round, until one final group.

An administrator creates the event; players join (:class:`TournamentEntry`) until it starts; at
the start its players are dealt into groups (:class:`TournamentGroup`, one for a section) and every
game of every group starts at once. A group's table (:class:`GroupStanding`, one row per
player) is written each time one of its games ends. The games themselves are ordinary
games (:class:`~games.models.Game`) marked with their event, group and Berger round.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import clock
from games.models.games import VALID_DAYS, VALID_FISCHER, FischerClockFields

# The largest round-robin group: ICCF's sections hold 7 to 13 players; a group of 30
# already means 435 games (870 in two cycles).
MAX_GROUP_SIZE = 30
# The most players one event takes (a multi-round one; a section is one group).
MAX_PLAYERS = 2000


class Tournament(FischerClockFields):
    class Kind(models.TextChoices):
        ROUND_ROBIN = "round_robin", _("round-robin section")
        MULTI_ROUND = "multi_round", _("multi-round event")

    class Status(models.TextChoices):
        REGISTRATION = "registration", _("open for registration")
        RUNNING = "running", _("in progress")
        FINISHED = "finished", _("finished")
        CANCELLED = "cancelled", _("cancelled")

    name = models.CharField(_("name"), max_length=100)
    description = models.TextField(_("description"), blank=True, max_length=4000)
    kind = models.CharField(_("kind"), max_length=12, choices=Kind, default=Kind.ROUND_ROBIN)
    # 1: each pair meets once; 2: twice, once with each colour.
    cycles = models.PositiveSmallIntegerField(
        _("games per pair"), default=1, choices=[(1, _("one game")), (2, _("two games"))]
    )
    days_per_move = models.PositiveSmallIntegerField(
        _("days per move"), null=True, blank=True,
        choices=[(days, clock.label(days)) for days in clock.DAYS_PER_MOVE],
    )
    rated = models.BooleanField(_("rated"), default=True)
    min_rating = models.PositiveSmallIntegerField(_("lowest rating"), null=True, blank=True)
    max_rating = models.PositiveSmallIntegerField(_("highest rating"), null=True, blank=True)
    min_players = models.PositiveSmallIntegerField(_("fewest players"), default=7)
    max_players = models.PositiveSmallIntegerField(_("most players"), default=13)
    # A multi-round event's groups: how many players each holds at most, and how many of
    # each go on to the next round.
    group_size = models.PositiveSmallIntegerField(_("players per group"), null=True, blank=True)
    advance = models.PositiveSmallIntegerField(
        _("players who go on from each group"), null=True, blank=True
    )
    # Registration closes at this time, or, when it is empty, when the event is full.
    registration_closes_at = models.DateTimeField(
        _("registration open until"), null=True, blank=True
    )
    # The event starts at this time, or, when it is empty, as soon as it is full (or
    # when registration closes, with enough players).
    starts_at = models.DateTimeField(_("starts at"), null=True, blank=True)
    status = models.CharField(
        _("status"), max_length=12, choices=Status, default=Status.REGISTRATION
    )
    # The round being played (0 before the start).
    current_round = models.PositiveSmallIntegerField(_("current round"), default=0)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+", verbose_name=_("created by"),
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")
        constraints = [
            models.CheckConstraint(condition=VALID_DAYS, name="tournament_days_per_move"),
            models.CheckConstraint(condition=VALID_FISCHER, name="tournament_fischer_clock"),
            models.CheckConstraint(condition=Q(cycles__in=(1, 2)), name="tournament_cycles"),
            models.CheckConstraint(
                condition=Q(min_players__gte=2, max_players__gte=models.F("min_players")),
                name="tournament_players",
            ),
            models.CheckConstraint(
                condition=Q(min_rating__isnull=True)
                | Q(max_rating__isnull=True)
                | Q(min_rating__lte=models.F("max_rating")),
                name="tournament_rating_bounds",
            ),
            models.CheckConstraint(
                condition=Q(kind="round_robin", max_players__lte=MAX_GROUP_SIZE)
                | Q(
                    kind="multi_round",
                    max_players__lte=MAX_PLAYERS,
                    group_size__gte=3,
                    group_size__lte=MAX_GROUP_SIZE,
                    advance__gte=1,
                    advance__lt=models.F("group_size"),
                ),
                name="tournament_kind_fields",
            ),
        ]
        indexes = [models.Index(fields=["status", "-created_at"], name="tournament_status")]

    def __str__(self) -> str:
        return self.name

    @property
    def is_multi_round(self) -> bool:
        return self.kind == self.Kind.MULTI_ROUND



class TournamentEntry(models.Model):
    """A player registered for an event. Leaving before the start deletes it; a
    withdrawal after the start (the player's own, the account's closure, or the
    administrator's removal) keeps it, marked."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="entries",
        verbose_name=_("tournament"),
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournament_entries",
        verbose_name=_("player"),
    )
    joined_at = models.DateTimeField(_("joined at"), default=timezone.now)
    # The player's rating when the event started: the seed (the strongest first).
    rating = models.FloatField(_("rating at the start"), null=True, blank=True)
    withdrawn_at = models.DateTimeField(_("withdrawn at"), null=True, blank=True)
    withdrawn_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+", verbose_name=_("withdrawn by"),
    )

    class Meta:
        ordering = ["joined_at", "pk"]
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="one_entry_per_player"),
        ]
        indexes = [models.Index(fields=["player", "-joined_at"], name="entry_player")]

    def __str__(self) -> str:
        return f"{self.player} in {self.tournament}"

    @property
    def withdrawn(self) -> bool:
        return self.withdrawn_at is not None


class TournamentGroup(models.Model):
    """A round-robin group of one round of an event (a section is one group of round 1)."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="groups", verbose_name=_("tournament")
    )
    round = models.PositiveSmallIntegerField(_("round"))
    number = models.PositiveSmallIntegerField(_("group"))
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        ordering = ["tournament", "round", "number"]
        verbose_name = _("group")
        verbose_name_plural = _("groups")
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "round", "number"], name="one_group_per_number"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tournament} {self.round}.{self.number}"


class GroupStanding(models.Model):
    """A player's line in a group's table: their Berger number, and the score written
    each time a game of the group ends (games.tournament_rules.scoring)."""

    group = models.ForeignKey(
        TournamentGroup, on_delete=models.CASCADE, related_name="standings",
        verbose_name=_("group"),
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournament_standings",
        verbose_name=_("player"),
    )
    # The Berger number, drawn by lot; and the seed within the group (1: the highest
    # rated at the start), which orders players level on every tiebreak.
    number = models.PositiveSmallIntegerField(_("number"))
    seed = models.PositiveSmallIntegerField(_("seed"), default=0)
    points = models.DecimalField(_("points"), max_digits=5, decimal_places=1, default=0)
    sonneborn_berger = models.DecimalField(
        _("Sonneborn–Berger"), max_digits=7, decimal_places=2, default=0
    )
    wins = models.PositiveSmallIntegerField(_("wins"), default=0)
    played = models.PositiveSmallIntegerField(_("games played"), default=0)
    left = models.PositiveSmallIntegerField(_("games left"), default=0)
    # Shared by players level on every tiebreak; None for annulled results.
    place = models.PositiveSmallIntegerField(_("place"), null=True, blank=True)
    # ICCF: withdrawn with under half of the games finished, so every result of the
    # player counts for nobody.
    annulled = models.BooleanField(_("results annulled"), default=False)
    withdrawn = models.BooleanField(_("withdrawn"), default=False)
    # Went on to the next round when the group finished.
    advanced = models.BooleanField(_("went on"), default=False)

    class Meta:
        ordering = ["group", "place", "number"]
        verbose_name = _("standing")
        verbose_name_plural = _("standings")
        constraints = [
            models.UniqueConstraint(fields=["group", "number"], name="one_standing_per_number"),
            models.UniqueConstraint(fields=["group", "player"], name="one_standing_per_player"),
        ]
        indexes = [models.Index(fields=["player", "group"], name="standing_player")]

    def __str__(self) -> str:
        return f"{self.player} in {self.group}: {self.points}"
