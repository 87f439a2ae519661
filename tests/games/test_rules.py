"""games.rules: pure functions over FEN strings and UCI histories; no database."""

from __future__ import annotations

import datetime as dt
import io

import chess
import chess.pgn
import pytest

from games import rules
from games.rules import Termination

START = rules.STARTING_FEN


def play_all(*moves: str, fen: str = START) -> rules.PlayedMove:
    """Play ``moves`` one by one from ``fen`` as the service layer does; return the last."""
    history: list[str] = []
    played = None
    for text in moves:
        played = rules.play(fen, history, text)
        history.append(played.uci)
    assert played is not None
    return played


# --------------------------------------------------------------------------- move input


def test_uci_move_is_read():
    played = rules.play(START, [], "e2e4")
    assert (played.uci, played.san) == ("e2e4", "e4")


def test_uci_move_in_capitals_is_read():
    assert rules.play(START, [], "G1F3").san == "Nf3"


def test_san_move_is_read():
    played = rules.play(START, [], "Nf3")
    assert played.uci == "g1f3"


def test_move_text_with_surrounding_spaces_is_read():
    assert rules.play(START, [], "  e4 ").uci == "e2e4"


@pytest.mark.parametrize("text", ["", "   ", "hello", "zz99", "e2-e4-e5", "x" * 11, "Qx"])
def test_garbage_text_is_not_a_move(text):
    with pytest.raises(rules.MoveTextError):
        rules.play(START, [], text)


@pytest.mark.parametrize("text", ["e2e5", "e5", "Nf6", "Ke2", "a1a1"])
def test_illegal_move_is_refused(text):
    with pytest.raises(rules.IllegalMoveError):
        rules.play(START, [], text)


def test_ambiguous_san_is_refused():
    # Both knights, on c3 and g1, can reach e2.
    fen = "4k3/8/8/8/8/2N5/8/4K1N1 w - - 0 1"
    with pytest.raises(rules.IllegalMoveError):
        rules.play(fen, [], "Ne2")


def test_disambiguated_san_is_read():
    fen = "4k3/8/8/8/8/2N5/8/4K1N1 w - - 0 1"
    assert rules.play(fen, [], "Nce2").uci == "c3e2"


def test_move_gives_its_uci_and_san_with_the_check_sign():
    played = play_all("e4", "f5", "Qh5")
    assert (played.uci, played.san) == ("d1h5", "Qh5+")
    assert played.san == "Qh5+"


# --------------------------------------------------------------------------- special moves


CASTLING_FEN = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"


def test_white_castles_kingside_by_san():
    played = rules.play(CASTLING_FEN, [], "O-O")
    assert played.uci == "e1g1"
    assert chess.Board(played.fen_after).piece_at(chess.F1) == chess.Piece.from_symbol("R")


def test_white_castles_queenside_by_uci():
    played = rules.play(CASTLING_FEN, [], "e1c1")
    assert played.san == "O-O-O"
    assert chess.Board(played.fen_after).piece_at(chess.D1) == chess.Piece.from_symbol("R")


def test_black_castles_both_sides():
    fen = CASTLING_FEN.replace(" w ", " b ")
    assert rules.play(fen, [], "O-O").uci == "e8g8"
    assert rules.play(fen, [], "O-O-O").uci == "e8c8"


def test_castling_through_check_is_refused():
    fen = "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1"
    with pytest.raises(rules.IllegalMoveError):
        rules.play(fen, [], "O-O")


def test_en_passant_capture_removes_the_passed_pawn():
    played = play_all("e4", "a6", "e5", "d5", "exd6")
    assert played.uci == "e5d6"
    assert played.san == "exd6"
    assert chess.Board(played.fen_after).piece_at(chess.D5) is None


def test_en_passant_is_refused_one_move_late():
    with pytest.raises(rules.IllegalMoveError):
        play_all("e4", "a6", "e5", "d5", "h3", "h6", "exd6")


PROMOTION_FEN = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"


@pytest.mark.parametrize(
    ("uci", "piece"),
    [
        ("e7e8q", chess.QUEEN),
        ("e7e8r", chess.ROOK),
        ("e7e8b", chess.BISHOP),
        ("e7e8n", chess.KNIGHT),
    ],
)
def test_promotion_by_uci_to_each_piece(uci, piece):
    played = rules.play(PROMOTION_FEN, [], uci)
    assert played.uci == uci
    assert chess.Board(played.fen_after).piece_type_at(chess.E8) == piece


@pytest.mark.parametrize(
    ("san", "piece"), [("e8=Q", "Q"), ("e8=R", "R"), ("e8=B", "B"), ("e8=N", "N")]
)
def test_promotion_by_san_to_each_piece(san, piece):
    played = rules.play(PROMOTION_FEN, [], san)
    assert played.san.startswith(san)
    assert played.uci == "e7e8" + piece.lower()


def test_pawn_reaching_the_last_rank_without_a_piece_is_refused():
    with pytest.raises(rules.IllegalMoveError):
        rules.play(PROMOTION_FEN, [], "e7e8")


def test_promotion_to_a_king_is_refused():
    with pytest.raises((rules.IllegalMoveError, rules.MoveTextError)):
        rules.play(PROMOTION_FEN, [], "e7e8k")


# --------------------------------------------------------------------------- endings


def test_checkmate_ends_the_game_with_a_winner():
    played = play_all("f3", "e5", "g4", "Qh4#")
    assert played.outcome == rules.Outcome(Termination.CHECKMATE, rules.BLACK)
    assert played.outcome.result == "0-1"


def test_stalemate_ends_the_game_drawn():
    fen = "7k/8/6Q1/8/8/8/8/K7 w - - 0 1"
    played = rules.play(fen, [], "Qf7")
    assert played.outcome == rules.Outcome(Termination.STALEMATE, None)
    assert played.outcome.result == "1/2-1/2"


def test_insufficient_material_ends_the_game_drawn():
    fen = "8/8/8/8/8/k7/2p5/2K5 w - - 0 1"
    played = rules.play(fen, [], "Kxc2")
    assert played.outcome == rules.Outcome(Termination.INSUFFICIENT_MATERIAL, None)


def test_seventyfive_move_rule_ends_the_game_at_once():
    fen = "4k3/8/8/8/8/8/R7/4K3 w - - 149 100"
    played = rules.play(fen, [], "Ra3")
    assert played.outcome == rules.Outcome(Termination.SEVENTYFIVE_MOVES, None)


def test_seventyfour_and_a_half_moves_do_not_end_the_game():
    fen = "4k3/8/8/8/8/8/R7/4K3 w - - 148 100"
    assert rules.play(fen, [], "Ra3").outcome is None


KNIGHT_DANCE = ["Nf3", "Nf6", "Ng1", "Ng8"]


def test_fivefold_repetition_ends_the_game_at_once():
    # The starting position occurs for the fifth time after four round trips.
    played = play_all(*(KNIGHT_DANCE * 4))
    assert played.outcome == rules.Outcome(Termination.FIVEFOLD_REPETITION, None)


def test_fourfold_repetition_does_not_end_the_game():
    played = play_all(*(KNIGHT_DANCE * 3))
    assert played.outcome is None


def test_threefold_repetition_is_claimable_not_automatic():
    history: list[str] = []
    for text in KNIGHT_DANCE * 2:
        played = rules.play(START, history, text)
        history.append(played.uci)
        assert played.outcome is None
    assert rules.claimable_draw(START, history) == Termination.THREEFOLD_REPETITION


def test_twofold_repetition_gives_nothing_to_claim():
    history: list[str] = []
    for text in KNIGHT_DANCE:
        history.append(rules.play(START, history, text).uci)
    assert rules.claimable_draw(START, history) is None


def test_fifty_move_rule_is_claimable_not_automatic():
    fen = "4k3/8/8/8/8/8/R7/4K3 w - - 99 80"
    played = rules.play(fen, [], "Ra3")
    assert played.outcome is None
    assert rules.claimable_draw(played.fen_after, []) == Termination.FIFTY_MOVES


def test_fortynine_and_a_half_moves_give_nothing_to_claim():
    fen = "4k3/8/8/8/8/8/R7/4K3 w - - 98 80"
    played = rules.play(fen, [], "Ra3")
    assert rules.claimable_draw(played.fen_after, []) is None


def test_outcome_results_for_each_winner():
    assert rules.Outcome(Termination.RESIGNATION, rules.WHITE).result == "1-0"
    assert rules.Outcome(Termination.RESIGNATION, rules.BLACK).result == "0-1"
    assert rules.Outcome(Termination.AGREEMENT, None).result == "1/2-1/2"


# --------------------------------------------------------------------------- helpers


def test_legal_moves_from_the_start_list_twenty_moves_by_origin():
    dests = rules.legal_moves(START)
    assert sorted(dests["e2"]) == ["e3", "e4"]
    assert sorted(dests["g1"]) == ["f3", "h3"]
    assert sum(len(v) for v in dests.values()) == 20
    assert "e1" not in dests


def test_legal_moves_lists_a_promotion_square_once():
    dests = rules.legal_moves(PROMOTION_FEN)
    assert dests["e7"] == ["e8"]


def test_legal_moves_of_a_mated_position_is_empty():
    mated = play_all("f3", "e5", "g4", "Qh4#").fen_after
    assert rules.legal_moves(mated) == {}


def test_colour_to_move_reads_the_fen():
    assert rules.colour_to_move(START) == rules.WHITE
    assert rules.colour_to_move(rules.play(START, [], "e4").fen_after) == rules.BLACK


def test_halfmove_clock_reads_the_fen():
    assert rules.halfmove_clock(play_all("Nf3", "Nf6").fen_after) == 2
    assert rules.halfmove_clock(play_all("Nf3", "e5").fen_after) == 0


# --------------------------------------------------------------------------- PGN


HEADERS = {
    "Event": "Ajedrez correspondence game P0000001",
    "Site": "Ajedrez",
    "Date": rules.pgn_date(dt.datetime(2026, 3, 4, tzinfo=dt.UTC)),
    "White": "alice",
    "Black": "bob",
    "Termination": "normal",
}


def test_pgn_carries_the_standard_tags():
    text = rules.pgn(HEADERS, ["f2f3", "e7e5", "g2g4", "d8h4"], result="0-1")
    for tag in (
        '[Event "Ajedrez correspondence game P0000001"]',
        '[Site "Ajedrez"]',
        '[Date "2026.03.04"]',
        '[White "alice"]',
        '[Black "bob"]',
        '[Result "0-1"]',
        '[Termination "normal"]',
    ):
        assert tag in text


def test_pgn_is_read_back_by_python_chess():
    ucis = ["f2f3", "e7e5", "g2g4", "d8h4"]
    text = rules.pgn(HEADERS, ucis, result="0-1", termination_comment="checkmate")
    parsed = chess.pgn.read_game(io.StringIO(text))
    assert parsed is not None
    assert parsed.errors == []
    assert [m.uci() for m in parsed.mainline_moves()] == ucis
    assert parsed.headers["Result"] == "0-1"
    assert parsed.end().comment == "checkmate"
    assert parsed.end().board().is_checkmate()


def test_pgn_of_a_game_without_moves_has_only_the_result():
    text = rules.pgn(HEADERS, [], result="*")
    assert text.rstrip().endswith("*")
