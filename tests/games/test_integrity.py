"""games.integrity and ``manage.py check_games``: stored games replayed from the start.

The corrupted games are written straight into the tables, as a bug or a hand edit would
leave them: the service layer cannot produce them.
"""

from __future__ import annotations

import io

import chess
import pytest
from django.core.management import CommandError, call_command

from ajedrez import demo
from games import integrity, rules
from games.models import Game, Move


def problems_of(game: Game) -> tuple[str, ...]:
    (report,) = integrity.check_games(Game.objects.filter(pk=game.pk))
    assert report.game_id == game.pk
    return report.problems


def check_games_command(*args: str) -> str:
    out = io.StringIO()
    call_command("check_games", *args, stdout=out)
    return out.getvalue()


def fen_after(*ucis: str) -> str:
    board = chess.Board()
    for uci in ucis:
        board.push_uci(uci)
    return board.fen()


def append_move(game: Game, uci: str, san: str) -> None:
    """Store a move as the service would have, without its checks."""
    game.refresh_from_db()
    stored = list(game.moves.order_by("number").values_list("uci", flat=True))
    board = chess.Board(fen_after(*stored))
    # A null move or an illegal one still "happens" on python-chess's board.
    board.push(chess.Move.from_uci(uci))
    Move.objects.create(
        game=game, number=game.next_move_number, uci=uci, san=san, fen_after=board.fen()
    )
    Game.objects.filter(pk=game.pk).update(
        fen=board.fen(), next_move_number=game.next_move_number + 1
    )


# --------------------------------------------------------------------------- good games


@pytest.fixture
def demo_data(settings, tmp_path, db) -> None:
    settings.DEMO_CREDENTIALS_FILE = tmp_path / "demo-admin"
    demo.seed()


def test_the_demo_games_all_replay(demo_data):
    reports = list(integrity.check_games())
    assert len(reports) == Game.objects.count() == 3
    assert [r.problems for r in reports] == [(), (), ()]


def test_the_command_reports_nothing_on_the_demo_data(demo_data):
    assert check_games_command() == "Checked 3 game(s): every one replays from the start.\n"


def test_a_game_without_moves_replays(game):
    assert problems_of(game) == ()


def test_a_game_ended_by_its_moves_replays(game, play):
    play(game, "f3", "e5", "g4", "Qh4#")
    assert problems_of(game) == ()


# --------------------------------------------------------------------------- bad games


def test_a_stored_null_move_is_reported(game, play):
    play(game, "e4", "f5", "Qh5+")
    append_move(game, "0000", "--")
    assert problems_of(game) == ("move 4 (0000) is not a move",)


def test_an_illegal_stored_move_is_reported(game, play):
    play(game, "e4")
    append_move(game, "e7e4", "e4")
    assert problems_of(game) == ("move 2 (e7e4) is not legal in its position",)


def test_a_stored_san_that_is_not_the_move_is_reported(game, play):
    play(game, "e4", "e5")
    Move.objects.filter(game=game, number=2).update(san="d5")
    assert problems_of(game) == ("move 2 is stored as d5 but is e5",)


def test_a_stored_position_that_is_not_the_moves_is_reported(game, play):
    play(game, "e4", "e5", "Nf3")
    Move.objects.filter(game=game, number=2).update(fen_after=rules.STARTING_FEN)
    assert problems_of(game) == ("the position stored after move 2 is not the one it leads to",)


def test_a_game_position_that_is_not_where_the_moves_lead_is_reported(game, play):
    play(game, "e4", "e5")
    Game.objects.filter(pk=game.pk).update(fen=fen_after("d2d4", "d7d5"))
    assert problems_of(game) == ("the game's position is not the one its moves lead to",)


def test_a_wrong_next_move_number_is_reported(game, play):
    play(game, "e4", "e5")
    Game.objects.filter(pk=game.pk).update(next_move_number=5)
    assert problems_of(game) == ("the next move number is 5 but the game has 2 moves",)


def test_a_gap_in_the_move_numbers_is_reported(game, play):
    play(game, "e4", "e5", "Nf3")
    Move.objects.filter(game=game, number=3).update(number=4)
    assert problems_of(game) == ("the moves are not numbered 1 to 3 without gaps",)


def test_moves_after_a_mate_are_reported(game, play):
    play(game, "f3", "e5", "g4", "Qh4#")
    Move.objects.create(game=game, number=5, uci="e1f2", san="Kf2", fen_after=rules.STARTING_FEN)
    Game.objects.filter(pk=game.pk).update(next_move_number=6)
    assert problems_of(game) == ("the game ended at move 4 (checkmate) but has moves after it",)


def test_legal_moves_after_a_fivefold_repetition_are_reported(game, play):
    play(game, *(["Nf3", "Nf6", "Ng1", "Ng8"] * 4))
    game.refresh_from_db()
    assert game.termination == "fivefold_repetition"
    append_move(game, "g1f3", "Nf3")
    assert problems_of(game) == (
        "the game ended at move 16 (fivefold repetition) but has moves after it",
    )


def test_a_game_still_in_progress_after_a_mate_is_reported(game, play):
    play(game, "f3", "e5", "g4", "Qh4#")
    Game.objects.filter(pk=game.pk).update(status=Game.Status.ACTIVE, result="*", termination="")
    assert problems_of(game) == ("its moves end the game (checkmate) but it is still in progress",)


def test_a_mate_recorded_without_the_moves_reaching_it_is_reported(game, play):
    play(game, "e4", "e5")
    Game.objects.filter(pk=game.pk).update(
        status=Game.Status.FINISHED, result="1-0", termination="checkmate"
    )
    assert problems_of(game) == (
        "it is recorded as ended by checkmate but its moves do not reach that",
    )


def test_the_command_lists_a_corrupted_game_and_exits_with_status_1(demo_data):
    corrupted = Game.objects.filter(status=Game.Status.ACTIVE).order_by("pk").first()
    Move.objects.filter(game=corrupted, number=1).update(uci="e2e5")
    out = io.StringIO()
    with pytest.raises(CommandError) as failed:
        call_command("check_games", stdout=out)
    assert failed.value.returncode == 1
    assert str(failed.value) == "1 of 3 game(s) do not replay from the start."
    assert out.getvalue() == f"{corrupted.public_id}: move 1 (e2e5) is not legal in its position\n"


def test_the_command_refuses_a_batch_size_below_one(db):
    with pytest.raises(CommandError, match="--batch-size"):
        check_games_command("--batch-size", "0")


# --------------------------------------------------------------------------- streaming


@pytest.fixture
def five_games(alice, bob, carol, make_player, start_game, play) -> list[Game]:
    dave, eve = make_player("dave"), make_player("eve")
    pairs = [(alice, bob), (alice, carol), (alice, dave), (bob, carol), (dave, eve)]
    games = [start_game(white, black) for white, black in pairs]
    for index, game in enumerate(games):
        play(game, *["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"][: index + 1])
    return games


def test_games_are_read_one_query_per_batch_whatever_their_moves(
    five_games, django_assert_num_queries
):
    # Batches of 2, 2 and 1 games, each game with its moves in its batch's one query.
    with django_assert_num_queries(3):
        reports = list(integrity.check_games(batch_size=2))
    assert [r.game_id for r in reports] == [g.pk for g in five_games]
    assert [r.moves for r in reports] == [1, 2, 3, 4, 5]
    assert all(r.problems == () for r in reports)


def test_a_last_full_batch_costs_one_more_empty_query(five_games, django_assert_num_queries):
    with django_assert_num_queries(2):
        assert len(list(integrity.check_games(batch_size=5))) == 5


def test_the_command_gives_the_same_answer_in_any_batch_size(five_games):
    Move.objects.filter(game=five_games[3], number=2).update(san="d5")
    answers = set()
    for size in ("1", "2", "3", "200"):
        out = io.StringIO()
        with pytest.raises(CommandError):
            call_command("check_games", "--batch-size", size, stdout=out)
        answers.add(out.getvalue())
    assert answers == {f"{five_games[3].public_id}: move 2 is stored as d5 but is e5\n"}


def test_only_the_given_games_are_checked(five_games):
    Move.objects.filter(game=five_games[0], number=1).update(san="d4")
    chosen = Game.objects.filter(pk__in=[five_games[1].pk, five_games[4].pk])
    assert [r.game_id for r in integrity.check_games(chosen)] == [
        five_games[1].pk,
        five_games[4].pk,
    ]
