"""What the engine said: a finished game's computer analysis, the positions asked for on
the analysis board, and the players' private notes on their games.

An analysis fills in position by position (the worker stores its progress as it goes, so
that a page can draw the graph as it grows) and is ``done`` only once every position of
the game has an evaluation: the service that marks it so checks, in the same transaction.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models.games import Game


class GameAnalysis(models.Model):
    """The engine's evaluation of every position of a finished game, from its start:
    ``evaluations[i]`` is the position after ``i`` half-moves, as
    ``{"cp", "mate", "best", "depth"}`` from White's side (:class:`games.engine.Evaluation`).

    One per game: asking again while it waits or runs finds this one; a failed one is
    queued again from where it stopped."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="analysis")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("requested by"),
    )
    status = models.CharField(_("status"), max_length=8, choices=Status, default=Status.QUEUED)
    # The queue's order: the earlier asked, the sooner run.
    requested_at = models.DateTimeField(_("requested at"), default=timezone.now)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    # How many positions the game has (its half-moves and its start): the analysis is
    # complete when it holds that many evaluations.
    positions = models.PositiveIntegerField(_("positions"))
    evaluations = models.JSONField(_("evaluations"), default=list, blank=True)
    engine = models.CharField(_("engine"), max_length=80, blank=True, default="")
    error = models.CharField(_("error"), max_length=300, blank=True, default="")

    class Meta:
        verbose_name = _("game analysis")
        verbose_name_plural = _("game analyses")
        indexes = [
            # The queue: the analyses waiting or running, oldest request first.
            models.Index(
                fields=["requested_at"],
                condition=Q(status__in=["queued", "running"]),
                name="analysis_queue",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~Q(status="done") | Q(finished_at__isnull=False),
                name="analysis_done_has_finished_at",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game.public_id if self.game_id else '?'} ({self.status})"

    @property
    def is_complete(self) -> bool:
        return len(self.evaluations) >= self.positions


class PositionEvaluation(models.Model):
    """One position of the analysis board, evaluated by the engine in the background and
    kept, so that asking for it again costs nothing. ``position`` is the FEN's first four
    fields (pieces, side to move, castling, en passant): the counters change nothing."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    position = models.CharField(_("position"), max_length=100, unique=True)
    status = models.CharField(_("status"), max_length=8, choices=Status, default=Status.QUEUED)
    requested_at = models.DateTimeField(_("requested at"), default=timezone.now)
    evaluated_at = models.DateTimeField(_("evaluated at"), null=True, blank=True)
    cp = models.IntegerField(null=True, blank=True)
    mate = models.IntegerField(null=True, blank=True)
    best = models.CharField(max_length=5, blank=True, default="")
    depth = models.PositiveSmallIntegerField(default=0)
    engine = models.CharField(_("engine"), max_length=80, blank=True, default="")

    class Meta:
        verbose_name = _("position evaluation")
        verbose_name_plural = _("position evaluations")

    def __str__(self) -> str:
        return f"{self.position} ({self.status})"


class PrivateNote(models.Model):
    """A player's own notes on one of their games: seen by them alone (the game page, and
    their PGN export as a comment)."""

    MAX_LENGTH = 5000

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="private_notes")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="private_notes",
        verbose_name=_("player"),
    )
    text = models.TextField(_("text"), max_length=MAX_LENGTH)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        verbose_name = _("private note")
        verbose_name_plural = _("private notes")
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="one_note_per_player_and_game"),
        ]

    def __str__(self) -> str:
        return f"{self.player} on {self.game.public_id if self.game_id else '?'}"
