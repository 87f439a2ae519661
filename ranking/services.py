"""Ranking updates, called by the games service layer inside its transaction."""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.db.models import F

from ranking import glicko2
from ranking.models import PlayerRecord, RatingChange
from ranking.rating_rules import SCORES, Side, established_until, rate_game


def open_record(player_id: int) -> None:
    """Give a new account its (empty) ranking record; a no-op when it has one."""
    PlayerRecord.objects.get_or_create(player_id=player_id)


def record_result(
    *,
    white_id: int,
    black_id: int,
    result: str,
    game_id: int,
    at: dt.datetime,
    rated: bool,
) -> None:
    """Count a finished game (``1-0``, ``0-1`` or ``1/2-1/2``) in both players' records
    and, when ``rated``, change both Glicko-2 ratings and note the change in their
    histories."""
    white_score = SCORES[result]
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
        for record, score in ((white, white_score), (black, 1 - white_score)):
            field = {1.0: "wins", 0.0: "losses", 0.5: "draws"}[score]
            PlayerRecord.objects.filter(pk=record.pk).update(**{field: F(field) + 1})
        if not rated:
            return
        new_white, new_black = rate_game(_side(white), _side(black), result, at)
        sides = (
            (white, new_white, black, white_score),
            (black, new_black, white, 1 - white_score),
        )
        for record, new, opponent, score in sides:
            PlayerRecord.objects.filter(pk=record.pk).update(
                rating=new.rating,
                deviation=new.deviation,
                volatility=new.volatility,
                rated_games=F("rated_games") + 1,
                rated_at=at,
                established_until=established_until(new, at),
            )
            RatingChange.objects.create(
                player_id=record.player_id,
                game_id=game_id,
                opponent_id=opponent.player_id,
                score=score,
                rating_before=record.rating,
                rating_after=new.rating,
                deviation_after=new.deviation,
                at=at,
            )


def _side(record: PlayerRecord) -> Side:
    return Side(glicko2.Rating(record.rating, record.deviation, record.volatility), record.rated_at)
