"""The read model on its own: what a game looks like to the clients that read it."""

from __future__ import annotations

import io

import chess.pgn

from games import services, state
from games.models import Game


def _parsed(game: Game) -> chess.pgn.Game:
    return chess.pgn.read_game(io.StringIO(state.game_pgn(game)))


def test_pgn_of_a_finished_game_has_the_standard_tags(game, play):
    game = play(game, "f3", "e5", "g4", "Qh4#")
    headers = _parsed(game).headers
    assert headers["Event"].endswith(game.public_id)
    assert headers["Site"] == "Ajedrez"
    assert headers["Date"] == game.created_at.strftime("%Y.%m.%d")
    assert (headers["White"], headers["Black"]) == ("alice", "bob")
    assert (headers["Result"], headers["Termination"]) == ("0-1", "normal")


def test_pgn_of_a_game_in_progress_is_unterminated(game, play):
    game = play(game, "e4")
    parsed = _parsed(game)
    assert (parsed.headers["Result"], parsed.headers["Termination"]) == ("*", "unterminated")
    assert [m.uci() for m in parsed.mainline_moves()] == ["e2e4"]


def test_pgn_of_an_abandoned_game_says_so(game, play, alice):
    play(game, "e4", "e5")
    services.abandon_games(player=alice)
    game.refresh_from_db()
    assert _parsed(game).headers["Termination"] == "abandoned"


def test_a_snapshot_holds_the_moves_of_the_version_it_describes(alice, game, play):
    game = play(game, "e4", "e5")
    as_read = Game.objects.get(pk=game.pk)
    # The next move commits between reading the game and reading its moves.
    play(game, "Nf3")
    snap = state.snapshot(as_read, viewer_id=alice.pk)
    assert [m["san"] for m in snap["moves"]] == ["e4", "e5"]
    assert snap["version"] == as_read.version and snap["game"]["fen"] == as_read.fen
    assert [m["san"] for m in state.snapshot(as_read, viewer_id=alice.pk, after=1)["moves"]] == [
        "e5"
    ]


def test_a_snapshot_says_which_player_is_on_vacation(alice, bob, carol, game):
    assert state.snapshot(game, viewer_id=carol.pk)["away"] == {"white": False, "black": False}
    services.start_vacation(player=bob)
    assert state.snapshot(game, viewer_id=carol.pk)["away"] == {"white": False, "black": True}


def test_moves_say_their_colour_and_chess_number_from_the_start(game, play):
    play(game, "e4", "e5", "Nf3")
    moves = state.snapshot(game, viewer_id=None)["moves"]
    assert [(m["number"], m["colour"], m["move_number"]) for m in moves] == [
        (1, "white", 1), (2, "black", 1), (3, "white", 2)
    ]


def test_a_game_begun_from_a_position_with_black_to_move_numbers_its_moves_from_there(
    alice, bob
):
    # chessirc may START a game from any FEN: here Black moves first, at move 12.
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 12"
    game = services.start_gateway_game(white=alice, black=bob, initial_fen=fen)
    game = services.make_move(game_id=game.pk, player=bob, move_number=1, move="Nf6")
    game = services.make_move(game_id=game.pk, player=alice, move_number=2, move="Nc3")
    moves = state.snapshot(game, viewer_id=None)["moves"]
    assert [(m["number"], m["colour"], m["move_number"]) for m in moves] == [
        (1, "black", 12), (2, "white", 13)
    ]
