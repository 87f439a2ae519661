"""Ranking updates, called by the games service layer inside its transaction."""

from __future__ import annotations

from django.db import transaction
from django.db.models import F

from ranking.models import PlayerRecord

ELO_K = 32


def expected_score(rating: int, opponent_rating: int) -> float:
    return 1 / (1 + 10 ** ((opponent_rating - rating) / 400))


def open_record(player_id: int) -> None:
    """Give a new account its (empty) ranking record; a no-op when it has one."""
    PlayerRecord.objects.get_or_create(player_id=player_id)


def record_result(*, white_id: int, black_id: int, result: str) -> None:
    """Count a finished game (``1-0``, ``0-1`` or ``1/2-1/2``) in both players' records."""
    white_score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result]
    with transaction.atomic():
        for player_id in (white_id, black_id):
            open_record(player_id)
        # Lock both rows in a fixed order so two games ending at once cannot deadlock.
        records = {
            r.player_id: r
            for r in PlayerRecord.objects.select_for_update()
            .filter(player_id__in=(white_id, black_id))
            .order_by("player_id")
        }
        white, black = records[white_id], records[black_id]
        delta = round(ELO_K * (white_score - expected_score(white.rating, black.rating)))
        sides = ((white, white_score, delta), (black, 1 - white_score, -delta))
        for record, score, change in sides:
            field = {1.0: "wins", 0.0: "losses", 0.5: "draws"}[score]
            PlayerRecord.objects.filter(pk=record.pk).update(
                **{field: F(field) + 1}, rating=max(100, record.rating + change)
            )
