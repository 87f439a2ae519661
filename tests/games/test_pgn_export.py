"""The archive's PGN file (games.pgn_export): the same text as each game's own PGN,
written from stored SAN a batch at a time, and a bounded number of downloads per player."""

from __future__ import annotations

import datetime as dt
import os
import random
import uuid

import chess
import pytest
import time_machine

from games import pgn_export, rules, services, state
from games.models import Game, Move

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


def test_a_batch_costs_two_queries_however_many_games(varied_games, django_assert_num_queries):
    ids = [game.pk for game in varied_games]
    with django_assert_num_queries(2):
        pgn_export.batch_text(ids[:1])
    with django_assert_num_queries(2):
        pgn_export.batch_text(ids)


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
