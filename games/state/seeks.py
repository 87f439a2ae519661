"""What the lobby shows of open challenges (seeks): who made each, their rating, the
time control, the colours, the range, and whether the one looking may take it. Reads
only, in a fixed number of queries however many seeks are open."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db.models import QuerySet
from django.utils import timezone

from accounts import selectors as account_selectors
from accounts.types import Player
from games import selectors
from games.models import Seek
from games.models.games import is_short_id
from ranking import selectors as ranking_selectors

# The lobby lists the newest this many; a player may have SEEKS_PER_PLAYER of them.
SEEKS_SHOWN = 100
# How long the maker is shown that their seek was taken, with a link to its game.
TAKEN_SHOWN_FOR = timedelta(days=1)


def open_seeks() -> QuerySet[Seek]:
    """Seeks still open whose maker is still a player, newest first."""
    return (
        Seek.objects.filter(status=Seek.Status.OPEN, maker__in=account_selectors.players())
        .select_related("maker")
        .order_by("-created_at")
    )


def open_seek(short_id: str) -> Seek | None:
    """The seek with ``short_id`` whatever its state (its join page says what became of
    it), or None (also for text that cannot be an id: PostgreSQL refuses a NUL)."""
    if not is_short_id(short_id):
        return None
    return Seek.objects.select_related("maker", "game").filter(short_id=short_id).first()


@dataclass(frozen=True)
class SeekRow:
    """One seek as ``viewer`` sees it in the lobby."""

    seek: Seek
    maker_rating: str
    mine: bool
    # The viewer's rating is outside the range: shown, but not offered to them.
    out_of_range: bool
    # The viewer already has as many games with the maker as the site allows.
    pair_full: bool = False

    @property
    def can_accept(self) -> bool:
        return not self.mine and not self.out_of_range and not self.pair_full


def seek_rows(viewer: Player, seeks: list[Seek]) -> list[SeekRow]:
    """``seeks`` as ``viewer`` reads them: one query for all the makers' ratings."""
    records = ranking_selectors.records_of({s.maker_id for s in seeks} | {viewer.pk})
    viewer_rating = records[viewer.pk].rating
    at_limit = selectors.opponents_at_pair_limit(viewer) if seeks else set()
    return [
        SeekRow(
            seek=s,
            maker_rating=records[s.maker_id].rating_label,
            mine=s.maker_id == viewer.pk,
            out_of_range=not s.admits(viewer_rating),
            pair_full=s.maker_id in at_limit,
        )
        for s in seeks
    ]


# Open challenges the dashboard shows (the newest; the rest on their own page).
DASHBOARD_SEEKS_SHOWN = 5


def dashboard_seeks(viewer: Player) -> dict[str, object]:
    """The newest open challenges of others, for the dashboard's card, and how many
    are open in all (the card links to the rest)."""
    others = open_seeks().exclude(maker_id=viewer.pk)
    return {
        "rows": seek_rows(viewer, list(others[:DASHBOARD_SEEKS_SHOWN])),
        "total": others.count(),
    }


def lobby_seeks(viewer: Player) -> dict[str, object]:
    """The open challenges' page: the viewer's own open seeks, everyone else's, and the
    viewer's seeks taken lately (with their games)."""
    rows = seek_rows(viewer, list(open_seeks()[:SEEKS_SHOWN]))
    taken = list(
        Seek.objects.filter(
            maker_id=viewer.pk,
            status=Seek.Status.TAKEN,
            decided_at__gte=timezone.now() - TAKEN_SHOWN_FOR,
            game__isnull=False,
        )
        .select_related("game__white", "game__black")
        .order_by("-decided_at")[:10]
    )
    return {
        "my_seeks": [r for r in rows if r.mine],
        "other_seeks": [r for r in rows if not r.mine],
        "taken_seeks": taken,
        "shown": SEEKS_SHOWN,
    }
