"""make_move: the checks it makes, what it stores, and how it ends games."""

from __future__ import annotations

import datetime as dt

import chess
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import errors, rules, services
from games.models import Game, Move
from tests.games.knight_walks import knight_walk, path_back

KNIGHT_DANCE = ["Nf3", "Nf6", "Ng1", "Ng8"]


def snapshot(game: Game) -> tuple:
    game.refresh_from_db()
    return (game.fen, game.next_move_number, game.version, game.status, Move.objects.count())


def test_move_is_stored_with_uci_and_san(game, alice):
    returned = services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    move = Move.objects.get(game=game, number=1)
    assert (move.uci, move.san) == ("e2e4", "e4")
    game.refresh_from_db()
    assert game.fen == move.fen_after == returned.fen
    assert game.next_move_number == returned.next_move_number == 2
    assert game.colour_to_move == "black"
    assert returned.version == game.version


def test_reverse_flag_is_stored(game, alice):
    services.make_move(game_id=game.pk, player=alice, move_number=1, move="e2e4", reverse=True)
    assert Move.objects.get(game=game, number=1).reverse is True


def test_each_move_bumps_the_version_and_touches_updated_at(game, alice, bob):
    before = (game.version, game.updated_at)
    services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    game.refresh_from_db()
    assert game.version == before[0] + 1
    assert game.updated_at > before[1]
    services.make_move(game_id=game.pk, player=bob, move_number=2, move="e5")
    game.refresh_from_db()
    assert game.version == before[0] + 2


def test_think_seconds_count_from_the_previous_move(game, alice, bob):
    services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    game.refresh_from_db()
    assert game.last_move_at == Move.objects.get(game=game, number=1).played_at
    an_hour_ago = timezone.now() - dt.timedelta(seconds=3600)
    Move.objects.filter(game=game, number=1).update(played_at=an_hour_ago)
    Game.objects.filter(pk=game.pk).update(last_move_at=an_hour_ago)
    services.make_move(game_id=game.pk, player=bob, move_number=2, move="e5")
    move = Move.objects.get(game=game, number=2)
    assert 3600 <= move.think_seconds <= 3605
    game.refresh_from_db()
    assert game.last_move_at == move.played_at


def test_the_game_keeps_its_last_move_in_san(game, play):
    assert game.last_move_san == ""
    game = play(game, "e4", "Nf6")
    assert (game.last_move_san, game.next_move_number) == ("Nf6", 3)


def test_think_seconds_of_the_first_move_count_from_the_start(game, alice):
    Game.objects.filter(pk=game.pk).update(created_at=timezone.now() - dt.timedelta(minutes=2))
    services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    assert 120 <= Move.objects.get(game=game, number=1).think_seconds <= 125


def test_move_in_an_unknown_game_is_refused(alice):
    with pytest.raises(errors.GameNotFound):
        services.make_move(game_id=999, player=alice, move_number=1, move="e4")


def test_move_by_someone_who_does_not_play_is_refused(game, carol):
    before = snapshot(game)
    with pytest.raises(errors.NotAPlayer):
        services.make_move(game_id=game.pk, player=carol, move_number=1, move="e4")
    assert snapshot(game) == before


def test_move_out_of_turn_is_refused(game, bob):
    before = snapshot(game)
    with pytest.raises(errors.NotYourTurn):
        services.make_move(game_id=game.pk, player=bob, move_number=1, move="e5")
    assert snapshot(game) == before


@pytest.mark.parametrize("text", ["", "hello", "zz99", "e2-e4-e5-e6"])
def test_text_that_is_no_move_is_refused(game, alice, text):
    before = snapshot(game)
    with pytest.raises(errors.InvalidMove):
        services.make_move(game_id=game.pk, player=alice, move_number=1, move=text)
    assert snapshot(game) == before


@pytest.mark.parametrize("text", ["--", "Z0", "0000", "@@@@"])
def test_null_move_is_refused_as_no_move_even_in_check(game, play, bob, text):
    # Passing while in check would let white take the king on the next move.
    play(game, "e4", "f5", "Qh5+")
    before = snapshot(game)
    with pytest.raises(errors.InvalidMove):
        services.make_move(game_id=game.pk, player=bob, move_number=4, move=text)
    assert snapshot(game) == before


def test_text_naming_two_legal_moves_is_refused_naming_both(alice, bob, start_game):
    game = start_game(alice, bob)
    # A rook on b3 and a bishop on d3: "B3b5" is UCI of the rook's move, SAN of the bishop's.
    Game.objects.filter(pk=game.pk).update(fen="7k/8/8/8/8/1R1B4/8/7K w - - 0 1")
    before = snapshot(game)
    with pytest.raises(errors.IllegalMove) as refused:
        services.make_move(game_id=game.pk, player=alice, move_number=1, move="B3b5")
    assert refused.value.details["readings"] == ["Rb5", "Bb5"]
    assert "B3b5" in refused.value.message and "Rb5, Bb5" in refused.value.message
    assert snapshot(game) == before


@pytest.mark.parametrize("text", ["e5", "e2e5", "Ke2", "O-O"])
def test_illegal_move_is_refused(game, alice, text):
    before = snapshot(game)
    with pytest.raises(errors.IllegalMove):
        services.make_move(game_id=game.pk, player=alice, move_number=1, move=text)
    assert snapshot(game) == before


def test_stale_move_number_is_refused(game, play, bob):
    play(game, "e4", "e5", "Nf3")
    before = snapshot(game)
    with pytest.raises(errors.WrongMoveNumber) as caught:
        services.make_move(game_id=game.pk, player=bob, move_number=2, move="Nc6")
    assert caught.value.expected == 4
    assert caught.value.as_dict()["expected"] == 4
    assert snapshot(game) == before


def test_move_number_ahead_of_the_game_is_refused(game, alice):
    with pytest.raises(errors.WrongMoveNumber):
        services.make_move(game_id=game.pk, player=alice, move_number=2, move="e4")
    assert not Move.objects.exists()


def test_duplicate_submission_is_never_applied_twice(game, alice, bob):
    services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    services.make_move(game_id=game.pk, player=bob, move_number=2, move="e5")
    # The same request sent again (a retry after a lost reply) is refused.
    with pytest.raises(errors.WrongMoveNumber):
        services.make_move(game_id=game.pk, player=bob, move_number=2, move="e5")
    game.refresh_from_db()
    assert list(Move.objects.values_list("uci", flat=True)) == ["e2e4", "e7e5"]
    assert game.next_move_number == 3


def test_move_in_a_finished_game_is_refused(game, alice):
    services.resign(game_id=game.pk, player=alice)
    before = snapshot(game)
    with pytest.raises(errors.GameFinished):
        services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    assert snapshot(game) == before


def test_promotion_is_stored_with_its_piece(alice, bob, start_game, play):
    game = start_game(alice, bob)
    game = play(game, "a4", "b5", "axb5", "h6", "b6", "h5", "b7", "h4", "bxa8=N")
    last = Move.objects.get(game=game, number=9)
    assert (last.uci, last.san) == ("b7a8n", "bxa8=N")


def test_checkmate_finishes_the_game(game, play):
    game = play(game, "f3", "e5", "g4", "Qh4#")
    assert (game.status, game.result, game.termination) == ("finished", "0-1", "checkmate")
    assert game.finished_at is not None


def test_fivefold_repetition_finishes_the_game(game, play):
    game = play(game, *(KNIGHT_DANCE * 4))
    assert (game.status, game.result, game.termination) == (
        "finished",
        "1/2-1/2",
        "fivefold_repetition",
    )


# White takes Black's last piece: bare kings.
ROOK_TO_TAKE = "7k/8/8/8/8/8/1r6/K7 w - - 0 40"


def test_insufficient_material_finishes_the_game(game, play):
    Game.objects.filter(pk=game.pk).update(fen=ROOK_TO_TAKE)
    game = play(game, "Kxb2")
    assert (game.status, game.result, game.termination) == (
        "finished",
        "1/2-1/2",
        "insufficient_material",
    )


def test_threefold_repetition_does_not_finish_the_game(game, play):
    game = play(game, *(KNIGHT_DANCE * 2))
    assert game.status == "active"


def _position_after(*moves: str) -> str:
    board = chess.Board()
    for san in moves:
        board.push_san(san)
    return board.fen()


def test_repetition_is_seen_past_many_reversible_moves(game, play):
    opening = ["e4", "e5", *(KNIGHT_DANCE * 3)]  # the position after e5 occurs 4 times
    after_e5 = _position_after("e4", "e5")
    excursion = knight_walk(opening, 100, avoid=after_e5)
    way_back = path_back(opening + excursion, after_e5)
    moves = opening + excursion + way_back
    game = play(game, *moves[:-1])
    assert game.status == "active"
    assert rules.halfmove_clock(game.fen) > 100
    game = play(game, moves[-1])
    assert (game.status, game.result, game.termination) == (
        "finished",
        "1/2-1/2",
        "fivefold_repetition",
    )


def test_seventyfive_move_rule_finishes_the_game(game, play):
    moves = ["e4", "e5", *knight_walk(["e4", "e5"], 150)]
    game = play(game, *moves[:-1])
    assert game.status == "active"
    assert rules.halfmove_clock(game.fen) == 149
    game = play(game, moves[-1])
    assert (game.status, game.result, game.termination) == (
        "finished",
        "1/2-1/2",
        "seventyfive_moves",
    )


def test_validation_reads_the_same_number_of_queries_in_a_short_and_a_long_game(
    alice, bob, carol, start_game, play
):
    # Both games are far enough from their last pawn move for a fivefold repetition to
    # be possible, so both read their repetition window: 16 plies and 138.
    short = play(start_game(alice, bob), "e4", "e5", *knight_walk(["e4", "e5"], 16))
    long_game = play(start_game(carol, alice), "e4", "e5", *knight_walk(["e4", "e5"], 138))
    assert long_game.next_move_number - 1 == 140
    assert long_game.status == "active"

    def queries_for_next_move(game: Game, text: str) -> int:
        game.refresh_from_db()
        player = game.white if game.colour_to_move == "white" else game.black
        with CaptureQueriesContext(connection) as captured:
            services.make_move(
                game_id=game.pk, player=player, move_number=game.next_move_number, move=text
            )
        return len(captured.captured_queries)

    short_count = queries_for_next_move(short, "d3")
    assert short_count <= 12
    assert queries_for_next_move(long_game, "d3") == short_count


def _move_reads(game: Game) -> int:
    """How many SELECTs on the moves table the next move (a pawn move) makes."""
    board = chess.Board(game.fen)
    pawns = board.pieces(chess.PAWN, board.turn)
    pawn_move = next(m for m in board.legal_moves if m.from_square in pawns)
    player = game.white if game.colour_to_move == "white" else game.black
    with CaptureQueriesContext(connection) as captured:
        services.make_move(
            game_id=game.pk, player=player, move_number=game.next_move_number,
            move=pawn_move.uci(),
        )
    return sum(
        1 for q in captured.captured_queries
        if q["sql"].startswith("SELECT") and '"games_move"' in q["sql"]
    )


@pytest.mark.parametrize(("quiet_plies", "reads"), [(0, 0), (14, 0), (15, 1), (40, 1)])
def test_moves_are_read_only_when_the_move_could_complete_a_fivefold_repetition(
    alice, bob, start_game, play, quiet_plies, reads
):
    # A position's fifth occurrence needs 16 plies without a capture or pawn move:
    # until the move about to be played could make the 16th, the stored position is
    # all that validation needs.
    game = play(start_game(alice, bob), "e4", "e5", *knight_walk(["e4", "e5"], quiet_plies))
    assert rules.halfmove_clock(game.fen) == quiet_plies
    assert _move_reads(game) == reads


def test_validation_does_not_read_moves_before_the_last_irreversible_one(
    alice, bob, start_game, play
):
    game = play(start_game(alice, bob), "e4", "e5", "Nf3", "Nc6")
    # Corrupt a move before the window: a full replay would now fail or differ.
    Move.objects.filter(game=game, number=1).update(uci="a2a3")
    services.make_move(game_id=game.pk, player=alice, move_number=5, move="Bb5")
    game.refresh_from_db()
    assert game.next_move_number == 6
