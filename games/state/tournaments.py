"""Tournaments as their players and watchers see them: the lists of events, an event's
crosstables (one per group, each cell the result of a game, linked to it) and a
player's events. The label a tournament's game carries is :mod:`.event_labels`'s.

Reads only, in a fixed number of queries whatever the number of games played: an event
page reads the event, its groups, their tables and its games (one query each); the
standings themselves were written when each game ended (games.services.tournament_rounds).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Count, Q, QuerySet
from django.utils.translation import gettext, pgettext

from accounts.types import Player
from games import errors, rules
from games.models import Game, GroupStanding, Tournament, TournamentEntry, TournamentGroup
from games.state.lists import game_url

# A player's score in a game, from their side, as a crosstable writes it.
SCORE_TEXT = {1.0: "1", 0.5: "½", 0.0: "0"}
FORFEIT_TEXT = {1.0: "+", 0.0: "−"}


def points_text(points: Decimal | float) -> str:
    """``3.5`` → ``3½``, ``0.5`` → ``½``, ``4.0`` → ``4``."""
    whole, half = divmod(float(points), 1)
    if not half:
        return str(int(whole))
    return f"{int(whole) or ''}½"


def score_text(value: Decimal | float) -> str:
    """A Sonneborn–Berger score: ``22.25``, ``16``."""
    return f"{float(value):g}"


def group_label(tournament: Tournament, group: TournamentGroup, groups_in_round: int) -> str:
    if not tournament.is_multi_round:
        return gettext("Section")
    if groups_in_round == 1 and group.round > 1:
        return gettext("Final")
    if groups_in_round == 1:
        return gettext("Round %(round)d") % {"round": group.round}
    return gettext("Round %(round)d, group %(group)d") % {
        "round": group.round, "group": group.number,
    }


# --------------------------------------------------------------------------- lists



def tournament(tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.get(pk=tournament_id)
    except Tournament.DoesNotExist as exc:
        raise errors.TournamentNotFound() from exc


def _with_counts(events: QuerySet[Tournament]) -> QuerySet[Tournament]:
    return events.annotate(
        player_count=Count("entries", filter=Q(entries__withdrawn_at__isnull=True))
    )


def open_tournaments() -> QuerySet[Tournament]:
    """Events taking players, the next to start first."""
    return _with_counts(
        Tournament.objects.filter(status=Tournament.Status.REGISTRATION)
    ).order_by("starts_at", "created_at", "pk")


def running_tournaments() -> QuerySet[Tournament]:
    return _with_counts(Tournament.objects.filter(status=Tournament.Status.RUNNING)).order_by(
        "-started_at", "-pk"
    )


def finished_tournaments(limit: int = 20) -> QuerySet[Tournament]:
    return _with_counts(Tournament.objects.filter(status=Tournament.Status.FINISHED)).order_by(
        "-finished_at", "-pk"
    )[:limit]


def entries(tournament_id: int) -> list[TournamentEntry]:
    """An event's players, in the order they joined."""
    return list(
        TournamentEntry.objects.filter(tournament_id=tournament_id)
        .select_related("player")
        .order_by("joined_at", "pk")
    )


def tournament_games(tournament_id: int) -> QuerySet[Game]:
    """An event's games, group by group and round by round."""
    return (
        Game.objects.filter(tournament_id=tournament_id)
        .select_related("white", "black", "tournament", "tournament_group")
        .order_by("tournament_group__round", "tournament_group__number", "tournament_round",
                  "pk")
    )


@dataclass(frozen=True)
class PlayerEvent:
    """One of a player's events, for their profile and dashboard."""

    tournament: Tournament
    entry: TournamentEntry
    # Their line in the last group they played in (None before the start).
    standing: GroupStanding | None

    @property
    def place_text(self) -> str:
        if self.standing is None or self.standing.place is None:
            return ""
        return str(self.standing.place)


def current_entries_of(player: Player, *, limit: int = 10) -> list[TournamentEntry]:
    """``player``'s events not over (taking players, or being played), with each event:
    one query, for the dashboard."""
    return list(
        TournamentEntry.objects.filter(
            player=player,
            tournament__status__in=(Tournament.Status.REGISTRATION, Tournament.Status.RUNNING),
        )
        .select_related("tournament")
        .order_by("-joined_at", "-pk")[:limit]
    )


def events_of(player: Player, *, current_only: bool = False, limit: int = 20) -> list[PlayerEvent]:
    """``player``'s events, the latest joined first (``current_only``: those not over),
    each with its number of players and their line in their latest group: three queries."""
    found = TournamentEntry.objects.filter(player=player)
    if current_only:
        found = found.filter(
            tournament__status__in=(Tournament.Status.REGISTRATION, Tournament.Status.RUNNING)
        )
    entries = list(found.order_by("-joined_at", "-pk")[:limit])
    ids = [e.tournament_id for e in entries]
    events = _with_counts(Tournament.objects.filter(pk__in=ids)).in_bulk()
    latest: dict[int, GroupStanding] = {}
    for standing in GroupStanding.objects.filter(
        player=player, group__tournament_id__in=ids
    ).select_related("group").order_by("group__round"):
        latest[standing.group.tournament_id] = standing
    return [PlayerEvent(events[e.tournament_id], e, latest.get(e.tournament_id)) for e in entries]


# --------------------------------------------------------------------------- crosstables


@dataclass(frozen=True)
class CellGame:
    """One game in a cell of the crosstable, from the row player's side."""

    url: str
    text: str
    # "won", "drawn", "lost", "ongoing"; "forfeit" and "annulled" mark how it counts.
    outcome: str
    forfeit: bool
    annulled: bool
    title: str


@dataclass(frozen=True)
class CrosstableRow:
    standing: GroupStanding
    # One cell per column, in the rows' order; None on the diagonal.
    cells: list[list[CellGame] | None]

    @property
    def player(self) -> Player:
        return self.standing.player

    @property
    def points(self) -> str:
        return points_text(self.standing.points)

    @property
    def sonneborn_berger(self) -> str:
        return score_text(self.standing.sonneborn_berger)


@dataclass
class Crosstable:
    group: TournamentGroup
    label: str
    rows: list[CrosstableRow] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.group.finished_at is not None


@dataclass(frozen=True)
class RoundTables:
    round: int
    tables: list[Crosstable]


def _cell_game(game: dict, player_id: int, annulled: set[int]) -> CellGame:
    """``game`` (a values() row) as ``player_id``'s cell shows it."""
    as_white = game["white_id"] == player_id
    opponent = game["black_id"] if as_white else game["white_id"]
    is_annulled = player_id in annulled or opponent in annulled
    url = game_url(game["pk"])
    colour = pgettext("crosstable", "white") if as_white else pgettext("crosstable", "black")
    if game["status"] != Game.Status.FINISHED or game["result"] not in ("1-0", "0-1", "1/2-1/2"):
        return CellGame(url, "·", "ongoing", False, is_annulled, gettext(
            "In progress, with %(colour)s") % {"colour": colour})
    white_score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[game["result"]]
    mine = white_score if as_white else 1 - white_score
    forfeit = game["termination"] == rules.Termination.ABANDONMENT
    text = FORFEIT_TEXT[mine] if forfeit and mine in FORFEIT_TEXT else SCORE_TEXT[mine]
    outcome = {1.0: "won", 0.5: "drawn", 0.0: "lost"}[mine]
    title = gettext("%(score)s with %(colour)s") % {"score": SCORE_TEXT[mine], "colour": colour}
    if forfeit:
        title += " · " + gettext("forfeit (withdrawal)")
    if is_annulled:
        title += " · " + gettext("annulled: does not count")
    return CellGame(url, text, outcome, forfeit, is_annulled, title)


def crosstables(tournament: Tournament) -> list[RoundTables]:
    """Every group's crosstable, round by round (the latest round first), in four
    queries however many games the event has played."""
    groups = list(TournamentGroup.objects.filter(tournament=tournament).order_by("round",
                                                                                   "number"))
    if not groups:
        return []
    standings: dict[int, list[GroupStanding]] = defaultdict(list)
    for standing in GroupStanding.objects.filter(group__tournament=tournament).select_related(
        "player"
    ):
        standings[standing.group_id].append(standing)
    games_of: dict[tuple[int, int, int], list[dict]] = defaultdict(list)
    for game in (
        Game.objects.filter(tournament=tournament)
        .order_by("tournament_round", "pk")
        .values("pk", "tournament_group_id", "white_id", "black_id", "status", "result",
                "termination")
    ):
        low, high = sorted((game["white_id"], game["black_id"]))
        games_of[(game["tournament_group_id"], low, high)].append(game)
    per_round: dict[int, int] = defaultdict(int)
    for group in groups:
        per_round[group.round] += 1
    by_round: dict[int, list[Crosstable]] = defaultdict(list)
    for group in groups:
        rows = sorted(
            standings[group.pk], key=lambda s: (s.place is None, s.place or 0, s.seed)
        )
        annulled = {s.player_id for s in rows if s.annulled}
        table = Crosstable(group, group_label(tournament, group, per_round[group.round]))
        for standing in rows:
            cells: list[list[CellGame] | None] = []
            for other in rows:
                if other.player_id == standing.player_id:
                    cells.append(None)
                    continue
                low, high = sorted((standing.player_id, other.player_id))
                cells.append(
                    [_cell_game(g, standing.player_id, annulled)
                     for g in games_of[(group.pk, low, high)]]
                )
            table.rows.append(CrosstableRow(standing, cells))
        by_round[group.round].append(table)
    return [RoundTables(number, by_round[number]) for number in sorted(by_round, reverse=True)]


def my_standing(tournament: Tournament, player: Player) -> GroupStanding | None:
    """``player``'s line in the event's current round, if they play in it."""
    return (
        GroupStanding.objects.filter(
            player=player, group__tournament=tournament, group__round=tournament.current_round
        )
        .select_related("group")
        .first()
    )

