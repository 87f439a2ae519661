"""Rate the games finished before Glicko-2: each player's rating, deviation and history
are recomputed by replaying every rated finished game in the order the games ended, as
the service would have rated them (ranking.rating_rules; games.rules says which games
count). Wins, losses and draws stay.

It lives in games because it reads games; ranking, below games, knows nothing of them.
"""

from django.db import migrations

from games import rules
from ranking import glicko2
from ranking.rating_rules import SCORES, Side, established_until, rate_game

BATCH = 1000


def rate_finished_games(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    PlayerRecord = apps.get_model("ranking", "PlayerRecord")
    RatingChange = apps.get_model("ranking", "RatingChange")
    RatingChange.objects.all().delete()
    sides: dict[int, Side] = {}
    games_rated: dict[int, int] = {}
    changes = []
    finished = (
        Game.objects.filter(status="finished", result__in=list(SCORES))
        .exclude(finished_at=None)
        .order_by("finished_at", "pk")
        .values_list(
            "pk", "white_id", "black_id", "result", "finished_at", "next_move_number",
            "initial_fen",
        )
    )
    for pk, white_id, black_id, result, at, next_number, initial_fen in finished.iterator(
        chunk_size=BATCH
    ):
        start_fen = initial_fen or rules.STARTING_FEN
        if not rules.both_sides_have_moved(start_fen=start_fen, plies=next_number - 1):
            continue
        white = sides.get(white_id, Side(glicko2.Rating(), None))
        black = sides.get(black_id, Side(glicko2.Rating(), None))
        new_white, new_black = rate_game(white, black, result, at)
        score = SCORES[result]
        for player_id, opponent_id, before, after, player_score in (
            (white_id, black_id, white, new_white, score),
            (black_id, white_id, black, new_black, 1 - score),
        ):
            sides[player_id] = Side(after, at)
            games_rated[player_id] = games_rated.get(player_id, 0) + 1
            changes.append(
                RatingChange(
                    player_id=player_id, game_id=pk, opponent_id=opponent_id,
                    score=player_score, rating_before=before.rating.rating,
                    rating_after=after.rating, deviation_after=after.deviation, at=at,
                )
            )
        if len(changes) >= BATCH:
            RatingChange.objects.bulk_create(changes)
            changes = []
    RatingChange.objects.bulk_create(changes)
    PlayerRecord.objects.update(
        rating=glicko2.INITIAL_RATING, deviation=glicko2.INITIAL_DEVIATION,
        volatility=glicko2.INITIAL_VOLATILITY, rated_games=0, rated_at=None,
        established_until=None,
    )
    for player_id, side in sides.items():
        PlayerRecord.objects.filter(player_id=player_id).update(
            rating=side.rating.rating, deviation=side.rating.deviation,
            volatility=side.rating.volatility, rated_games=games_rated[player_id],
            rated_at=side.rated_at,
            established_until=established_until(side.rating, side.rated_at),
        )


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0008_game_chat"),
        ("ranking", "0002_glicko2_rating_and_history"),
    ]

    operations = [
        migrations.RunPython(rate_finished_games, migrations.RunPython.noop, elidable=False),
    ]
