"""Ranking reads."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import F, FloatField, OuterRef, QuerySet, Subquery
from django.utils import timezone

from ranking.models import PlayerRecord, RatingChange, change_label

SORTABLE = {
    "wins": ("-wins", "played", "player__username"),
    "rating": ("-rating", "-wins", "player__username"),
    "draws": ("-draws", "played", "player__username"),
    "losses": ("-losses", "played", "player__username"),
    "played": ("-played", "-wins", "player__username"),
    "name": ("player__username",),
}


def _last_change() -> Subquery:
    """The rating change of a record's player in their last rated game (read through
    the (player, at) index, once per row shown)."""
    latest = (
        RatingChange.objects.filter(player=OuterRef("player"))
        .order_by("-at", "-id")
        .annotate(delta=F("rating_after") - F("rating_before"))
        .values("delta")[:1]
    )
    return Subquery(latest, output_field=FloatField())


def _ranked() -> QuerySet[PlayerRecord]:
    """The records a ranking lists: active players'. A gateway's guests are not ranked
    (their games are unrated), nor staff accounts (they administer; they do not play)."""
    return PlayerRecord.objects.filter(
        player__is_active=True, player__is_staff=False, player__guest__isnull=True
    ).select_related("player")


def ranking(*, order: str = "wins") -> QuerySet[PlayerRecord]:
    """:func:`_ranked` records, most wins first; ties: fewer games, then name. Each
    carries ``last_change``, its player's rating change in their last rated game."""
    return _ranked().annotate(
        played=F("wins") + F("losses") + F("draws"), last_change=_last_change()
    ).order_by(*SORTABLE.get(order, SORTABLE["wins"]))


def top_ten(*, winners_only: bool = False) -> list[PlayerRecord]:
    """The seed's SRNK: the ten players with most wins.

    SRNK lists the first ten whatever their wins (the seed sorts its user file and takes
    ten lines). The ranking page asks for ``winners_only``: a "top ten by wins" of
    players who have won nothing says nothing, and the page says so instead.
    """
    records = ranking()
    if winners_only:
        records = records.filter(wins__gt=0)
    return list(records[:10])


def top_ten_by_rating() -> list[PlayerRecord]:
    """The ten best-rated players whose rating is established (not provisional now).

    "Established now" is ``established_until`` in the future, so this is one query on
    the (established_until, rating) index, not a computation per player.
    """
    return list(
        _ranked()
        .filter(established_until__gt=timezone.now())
        .annotate(last_change=_last_change())
        .order_by("-rating", "player__username")[:10]
    )


def rating_history(player_id: int, *, limit: int = 500) -> list[RatingChange]:
    """The player's last ``limit`` rating changes, oldest first (the profile's chart)."""
    latest = RatingChange.objects.filter(player_id=player_id).order_by("-at", "-id")[:limit]
    return list(reversed(latest))


def rating_chart(player_id: int) -> dict[str, Any]:
    """The profile's rating chart: ``ratings`` before the first rated game shown and
    after each, at ``times`` (seconds since the epoch, UTC: when each game was rated, the
    first one's for the rating before it too), and the ``games`` counted, ``first`` and
    ``last`` ratings for the text beside it. The chart runs by date, as players read a
    rating's history: a long absence shows as the flat stretch it was."""
    history = rating_history(player_id)
    if not history:
        return {"games": 0, "ratings": [], "times": []}
    start = history[0]
    return {
        "games": len(history),
        "first": round(start.rating_before),
        "last": round(history[-1].rating_after),
        "last_change": change_label(history[-1].change),
        "ratings": [round(start.rating_before)] + [round(c.rating_after) for c in history],
        "times": [round(start.at.timestamp())] + [round(c.at.timestamp()) for c in history],
    }


def game_rating_changes(game_id: int) -> dict[int, RatingChange]:
    """The rating change each player got from the game ``game_id``, by player id (empty
    for a game in progress or not rated)."""
    return {c.player_id: c for c in RatingChange.objects.filter(game_id=game_id)}


def ratings_before_games(game_ids: Iterable[int]) -> dict[tuple[int, int], float]:
    """The rating each player was rated from in each of ``game_ids`` (the games' stored
    changes), by ``(game_id, player_id)``, in one query; games not rated (yet) are absent."""
    rows = RatingChange.objects.filter(game_id__in=list(game_ids)).values_list(
        "game_id", "player_id", "rating_before"
    )
    return {(game_id, player_id): before for game_id, player_id, before in rows}


def records_of(player_ids: Iterable[int]) -> dict[int, PlayerRecord]:
    """Players' records by id, in one query; an empty unsaved one for any without."""
    ids = list(player_ids)
    found = {r.player_id: r for r in PlayerRecord.objects.filter(player_id__in=ids)}
    return {pk: found.get(pk) or PlayerRecord(player_id=pk) for pk in ids}


def record_of(player_id: int) -> PlayerRecord:
    """A player's record; an empty, unsaved one for an account created without it.

    Every account gets its record when it is created (``accounts.signals``); a page that
    only reads must not be the one to write it.
    """
    found = PlayerRecord.objects.filter(player_id=player_id).first()
    return found if found is not None else PlayerRecord(player_id=player_id)
