"""A player leaves a tournament being played: withdraws, closes the account, or is
removed by the administrator. Their unfinished games end by forfeit, through
:func:`games.services.endings.finish` like any ending, and their games are scored by
ICCF's rule (:func:`games.tournament_rules.annuls_on_withdrawal`): with fewer than half
of them finished every result of theirs is annulled, for their opponents too; otherwise
the forfeits count as the losses they are."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.types import Player
from games import errors, rules, tournament_rules
from games.models import Game, GroupStanding, Tournament, TournamentEntry, TournamentGroup
from games.services.endings import finish
from games.services.guards import other
from games.services.tournament_rounds import refresh_group
from games.services.tournaments import leave_tournament


@transaction.atomic
def withdraw(*, tournament_id: int, player: Player, by: Player | None = None) -> TournamentEntry:
    """``player`` leaves the event being played (``by``: the administrator who removed
    them; the player themself otherwise). Before the start this is leaving it: use
    :func:`games.services.leave_tournament`."""
    try:
        entry = (
            TournamentEntry.objects.select_for_update(of=("self",))
            .select_related("tournament")
            .get(tournament_id=tournament_id, player=player)
        )
    except TournamentEntry.DoesNotExist as exc:
        if not Tournament.objects.filter(pk=tournament_id).exists():
            raise errors.TournamentNotFound() from exc
        raise errors.NotRegistered() from exc
    if entry.tournament.status != Tournament.Status.RUNNING:
        raise errors.TournamentNotRunning()
    if entry.withdrawn:
        raise errors.NotRegistered()
    now = timezone.now()
    entry.withdrawn_at = now
    entry.withdrawn_by = by if by is not None and by.pk != player.pk else None
    entry.save(update_fields=["withdrawn_at", "withdrawn_by"])
    standing = (
        GroupStanding.objects.filter(
            player=player,
            group__tournament_id=tournament_id,
            group__round=entry.tournament.current_round,
        )
        .select_related("group")
        .first()
    )
    if standing is None:
        return entry  # out of the event already, or waiting for a round they left
    # Every game of theirs in the group locked first, before the group's own row (which
    # each ending locks): the order every ending takes, so two never wait on each other.
    games = _lock_games_of(player, standing.group)
    finished = sum(1 for game in games if not game.is_active)
    standing.withdrawn = True
    standing.annulled = (
        standing.group.finished_at is None
        and tournament_rules.annuls_on_withdrawal(finished, len(games))
    )
    standing.save(update_fields=["withdrawn", "annulled"])
    for game in games:
        if game.is_active:
            colour = game.colour_of(player.pk)
            assert colour is not None
            # A forfeit, whoever has moved: a tournament game is scored, never aborted.
            finish(game, rules.Outcome(rules.Termination.ABANDONMENT, other(colour)), at=now,
                   event="abandoned", ended_by=colour, actor=player, tell_actor=False,
                   by=colour)
    group = (
        TournamentGroup.objects.select_for_update(of=("self",))
        .select_related("tournament")
        .get(pk=standing.group_id)
    )
    # The annulment changes the table even when no game was left to end.
    refresh_group(group, now=now)
    return entry


def _lock_games_of(player: Player, group: TournamentGroup) -> list[Game]:
    """``player``'s games in ``group``, locked in the order of their numbers."""
    ids = list(
        Game.objects.of_player(player, tournament_group=group).order_by("pk")
        .values_list("pk", flat=True)
    )
    return list(
        Game.objects.select_for_update(of=("self",))
        .select_related("white", "black")
        .filter(pk__in=ids)
        .order_by("pk")
    )


@transaction.atomic
def withdraw_everywhere(*, player: Player, by: Player | None = None) -> None:
    """An account is closing: it leaves every event it joined, withdrawing from those
    being played (their games forfeited and scored by ICCF's rule) before its other
    games are abandoned."""
    for tournament_id, status in TournamentEntry.objects.filter(
        player=player, withdrawn_at__isnull=True
    ).values_list("tournament_id", "tournament__status"):
        if status == Tournament.Status.REGISTRATION:
            leave_tournament(tournament_id=tournament_id, player=player)
        elif status == Tournament.Status.RUNNING:
            withdraw(tournament_id=tournament_id, player=player, by=by)
