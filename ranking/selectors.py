"""Ranking reads."""

from __future__ import annotations

from django.db.models import F, QuerySet

from ranking.models import PlayerRecord

SORTABLE = {
    "wins": ("-wins", "played", "player__username"),
    "rating": ("-rating", "-wins", "player__username"),
    "draws": ("-draws", "played", "player__username"),
    "losses": ("-losses", "played", "player__username"),
    "played": ("-played", "-wins", "player__username"),
    "name": ("player__username",),
}


def ranking(*, order: str = "wins") -> QuerySet[PlayerRecord]:
    """Active players' records, most wins first; ties: fewer games, then name."""
    return (
        PlayerRecord.objects.filter(player__is_active=True)
        .select_related("player")
        .annotate(played=F("wins") + F("losses") + F("draws"))
        .order_by(*SORTABLE.get(order, SORTABLE["wins"]))
    )


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


def record_of(player_id: int) -> PlayerRecord:
    """A player's record; an empty, unsaved one for an account created without it.

    Every account gets its record when it is created (``accounts.signals``); a page that
    only reads must not be the one to write it.
    """
    found = PlayerRecord.objects.filter(player_id=player_id).first()
    return found if found is not None else PlayerRecord(player_id=player_id)
