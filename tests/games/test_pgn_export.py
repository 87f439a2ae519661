"""The archive's PGN file (games.pgn_export): the same text as each game's own PGN,
written from stored SAN a batch at a time, and a bounded number of downloads per player."""

from __future__ import annotations

import datetime as dt
import io
import os
import random
import uuid

import chess
import chess.pgn
import pytest
import time_machine

from accounts import services as account_services
from games import pgn_export, rules, services, state
from games.models import Game, Move
from ranking.models import PlayerRecord, RatingChange

HEADERS = {
    "Event": "e",
    "Site": "s",
    "Date": "2026.05.25",
    "Round": "-",
    "White": "w",
    "Black": "b",
    "TimeControl": "-",
}
# Standard start; Black to move at move 37; promotions for both sides near; an odd
# castling-rights position; bare kings and pawns.
POSITIONS = [
    rules.STARTING_FEN,
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 37",
    "8/1P4k1/8/8/8/8/5p2/K7 w - - 0 60",
    "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 5 120",
    "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1",
]


def random_line(rng: random.Random, fen: str, plies: int) -> list[str]:
    """Up to ``plies`` random legal moves from ``fen`` (fewer if the game ends), promotions
    preferred when there are any."""
    board = chess.Board(fen)
    ucis = []
    while len(ucis) < plies and not board.is_game_over():
        moves = list(board.legal_moves)
        promotions = [m for m in moves if m.promotion]
        move = rng.choice(promotions or moves)
        ucis.append(move.uci())
        board.push(move)
    return ucis


@pytest.mark.parametrize("fen", POSITIONS)
@pytest.mark.parametrize("comment", [None, "resignation", "odd } comment "])
def test_pgn_from_stored_san_is_the_replayed_pgn_byte_for_byte(fen, comment):
    rng = random.Random(fen + str(comment))
    for plies in (0, 1, 2, 7, 40, 150, 301):
        ucis = random_line(rng, fen, plies)
        sans = [played.san for played in rules.replay(ucis, fen)]
        for result in ("1-0", "1/2-1/2", "*"):
            options = {"result": result, "termination_comment": comment, "start_fen": fen}
            assert rules.pgn_from_sans(HEADERS, sans, **options) == rules.pgn(
                HEADERS, ucis, **options
            ), (fen, ucis)


@pytest.fixture
def varied_games(alice, bob, carol, start_game, play):
    """Finished games of every kind the archive lists: resigned, drawn, lost on time,
    aborted, begun from a position with Black to move, won by a promotion, long."""
    games = []
    games.append(services.resign(game_id=play(start_game(alice, bob), "e4", "e5").pk, player=bob))
    drawn = play(start_game(alice, carol), "d4", "d5", "c4")
    services.offer_draw(game_id=drawn.pk, player=alice)
    games.append(services.answer_draw(game_id=drawn.pk, player=carol, accept=True))
    later = dt.datetime(2100, 1, 1, tzinfo=dt.UTC)
    on_time = services.start_gateway_game(white=bob, black=alice, days_per_move=1)
    play(on_time, "e4", "c5", "Nf3")
    games.append(services.expire_game(game_id=on_time.pk, now=later))
    aborted = services.start_gateway_game(white=carol, black=alice, days_per_move=1)
    games.append(services.expire_game(game_id=aborted.pk, now=later))
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 12"
    from_fen = services.start_gateway_game(white=alice, black=carol, initial_fen=fen, site="#chess")
    play(from_fen, "Nf6", "Nc3")
    games.append(services.resign(game_id=from_fen.pk, player=carol))
    promotion = services.start_gateway_game(
        white=alice, black=bob, initial_fen="8/1P4k1/8/8/8/8/5p2/K7 w - - 0 60"
    )
    play(promotion, "b8=Q", "f1=N", "Qb2")
    games.append(services.resign(game_id=promotion.pk, player=bob))
    long = start_game(bob, carol)
    # Knights out and back, then a centre: lines longer than PGN's 80 columns.
    walk = ["Nf3", "Nf6", "Ng1", "Ng8", "Nc3", "Nc6", "Nb1", "Nb8"]
    play(long, *walk, "e4", "e5", "d4", "exd4", "Qxd4", "Nc6", "Qe3", "Nf6")
    games.append(services.resign(game_id=long.pk, player=carol))
    return [Game.objects.select_related("white", "black").get(pk=g.pk) for g in games]


def today(games: list[Game]) -> str:
    """The file as the archive wrote it before streaming: each game's own PGN."""
    return "".join(state.game_pgn(game) + "\n\n" for game in games)


def test_the_file_is_each_games_own_pgn_in_order(varied_games):
    ids = [game.pk for game in varied_games]
    assert {g.termination for g in varied_games} >= {
        "resignation",
        "agreement",
        "timeout",
        "aborted",
    }
    assert pgn_export.batch_text(ids) == today(varied_games)
    assert pgn_export.batch_text(ids[::-1]) == today(varied_games[::-1])


def test_the_file_comes_a_batch_at_a_time(varied_games, monkeypatch):
    monkeypatch.setattr(pgn_export, "BATCH_GAMES", 3)
    chunks = list(
        pgn_export.stream(
            Game.objects.filter(pk__in=[g.pk for g in varied_games])
            .select_related("white", "black")
            .order_by("pk")
        )
    )
    assert len(chunks) == -(-len(varied_games) // 3)
    assert b"".join(chunks).decode() == today(sorted(varied_games, key=lambda g: g.pk))


def test_a_move_stored_without_its_san_is_replayed(varied_games):
    game = varied_games[-1]
    Move.objects.filter(game=game, number=3).update(san="")
    assert pgn_export.batch_text([game.pk]) == today([game])


def test_a_batch_costs_four_queries_however_many_games(
    varied_games, django_assert_num_queries
):
    # The games, their moves, the ratings they were rated from and the players' ratings.
    ids = [game.pk for game in varied_games]
    with django_assert_num_queries(4):
        pgn_export.batch_text(ids[:1])
    with django_assert_num_queries(4):
        pgn_export.batch_text(ids)


def test_a_batch_with_a_guests_game_costs_one_query_more(
    alice, varied_games, django_assert_num_queries
):
    zoe = account_services.guest_player(gateway="distribuido", name="zoe")
    guests = services.start_gateway_game(white=zoe, black=alice)
    ids = [game.pk for game in varied_games] + [guests.pk]
    with django_assert_num_queries(5):
        text = pgn_export.batch_text(ids)
    assert '[WhiteElo "-"]' in text


# --------------------------------------------------------------------------- ratings


def tags_of(game: Game) -> dict[str, str]:
    return dict(chess.pgn.read_headers(io.StringIO(state.game_pgn(game))) or {})


def test_a_rated_game_names_the_ratings_it_was_rated_from(alice, bob, carol, start_game, play):
    first = play(start_game(alice, bob), "e4", "e5")
    services.resign(game_id=first.pk, player=bob)
    # Played before the first ended, ended after it: rated from alice's new rating.
    second = play(start_game(carol, alice), "d4", "d5")
    services.resign(game_id=second.pk, player=carol)
    first_tags = tags_of(Game.objects.get(pk=first.pk))
    assert (first_tags["WhiteElo"], first_tags["BlackElo"]) == ("1500", "1500")
    alice_then = round(RatingChange.objects.get(game_id=first.pk, player=alice).rating_after)
    assert alice_then > 1500
    second_tags = tags_of(Game.objects.get(pk=second.pk))
    assert (second_tags["WhiteElo"], second_tags["BlackElo"]) == ("1500", str(alice_then))


def test_a_game_in_progress_names_the_players_ratings_now(alice, bob, carol, start_game, play):
    going = start_game(alice, bob)
    won = play(start_game(alice, carol), "e4", "e5")
    services.resign(game_id=won.pk, player=carol)
    tags = tags_of(Game.objects.get(pk=going.pk))
    alice_now = round(PlayerRecord.objects.get(player=alice).rating)
    assert (tags["WhiteElo"], tags["BlackElo"]) == (str(alice_now), "1500")


def test_a_guest_is_an_unrated_player_and_the_clock_one_move_per_period(alice):
    zoe = account_services.guest_player(gateway="distribuido", name="zoe")
    game = services.start_gateway_game(white=alice, black=zoe, days_per_move=3)
    tags = tags_of(game)
    assert (tags["WhiteElo"], tags["BlackElo"]) == ("1500", "-")
    assert tags["TimeControl"] == "1/259200"


# --------------------------------------------------------------------------- the bound


def test_a_player_has_one_download_slot_by_default(alice, bob):
    first = pgn_export.take_slot(alice.pk)
    assert first is not None
    assert pgn_export.take_slot(alice.pk) is None
    assert pgn_export.take_slot(bob.pk) is not None


def test_a_released_slot_can_be_taken_again(alice):
    slot = pgn_export.take_slot(alice.pk)
    slot.release()
    slot.release()  # twice: nothing more happens
    again = pgn_export.take_slot(alice.pk)
    assert again is not None
    # The first download's late release does not free the second's slot.
    slot.release()
    assert pgn_export.take_slot(alice.pk) is None


def test_the_bound_follows_the_setting(alice, settings):
    settings.PGN_DOWNLOADS_PER_PLAYER = 2
    assert pgn_export.take_slot(alice.pk) is not None
    assert pgn_export.take_slot(alice.pk) is not None
    assert pgn_export.take_slot(alice.pk) is None
    settings.PGN_DOWNLOADS_PER_PLAYER = 0
    assert all(pgn_export.take_slot(alice.pk) is not None for _ in range(5))


def test_a_slot_nobody_releases_expires(alice):
    with time_machine.travel(dt.datetime(2026, 5, 25, 12, tzinfo=dt.UTC), tick=False) as clock:
        assert pgn_export.take_slot(alice.pk) is not None  # its process died
        clock.shift(pgn_export.SLOT_SECONDS - 1)
        assert pgn_export.take_slot(alice.pk) is None
        clock.shift(2)
        assert pgn_export.take_slot(alice.pk) is not None


def test_each_batch_written_keeps_the_slot(alice, varied_games, monkeypatch):
    monkeypatch.setattr(pgn_export, "BATCH_GAMES", 1)
    with time_machine.travel(dt.datetime(2026, 5, 25, 12, tzinfo=dt.UTC), tick=False) as clock:
        slot = pgn_export.take_slot(alice.pk)
        chunks = pgn_export.stream(Game.objects.filter(pk__in=[g.pk for g in varied_games]), slot)
        for _ in range(3):
            clock.shift(pgn_export.SLOT_SECONDS - 1)
            next(chunks)
        assert pgn_export.take_slot(alice.pk) is None
        list(chunks)
    assert pgn_export.take_slot(alice.pk) is not None


@pytest.mark.redis
def test_over_redis_the_bound_holds_across_processes(alice, monkeypatch):
    from django.core.cache.backends.redis import RedisCache

    # Two cache clients of their own, as two web processes have, on one Redis.
    prefix = f"test-{uuid.uuid4().hex}"
    first, second = (RedisCache(os.environ["REDIS_URL"], {"KEY_PREFIX": prefix}) for _ in "12")
    monkeypatch.setattr(pgn_export, "cache", first)
    slot = pgn_export.take_slot(alice.pk)
    assert slot is not None
    monkeypatch.setattr(pgn_export, "cache", second)
    assert pgn_export.take_slot(alice.pk) is None
    slot.release()
    again = pgn_export.take_slot(alice.pk)
    assert again is not None
    again.release()  # under this test's own key prefix: nothing else in Redis is touched
