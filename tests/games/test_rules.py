"""games.rules: pure functions over FEN strings and UCI histories; no database."""

from __future__ import annotations

import datetime as dt
import io

import chess
import chess.pgn
import pytest

from games import rules
from games.rules import Termination, positions

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


# A pass in chess notation: python-chess reads each of these as a null move.
NULL_MOVE_TEXTS = ["--", "Z0", "0000", "@@@@"]


@pytest.mark.parametrize("text", NULL_MOVE_TEXTS)
def test_null_move_is_not_a_move(text):
    with pytest.raises(rules.MoveTextError):
        rules.play(START, [], text)


@pytest.mark.parametrize("text", NULL_MOVE_TEXTS)
def test_null_move_cannot_leave_a_king_in_check(text):
    # Black is in check from the queen on h5; passing would let white take the king.
    checked = play_all("e4", "f5", "Qh5+").fen_after
    with pytest.raises(rules.MoveTextError):
        rules.play(checked, [], text)


@pytest.mark.parametrize("text", ["Q@e4", "P@e4", "n@f3"])
def test_a_drop_is_not_a_move(text):
    # Crazyhouse drops are UCI to python-chess, but no move of a game of chess.
    with pytest.raises(rules.MoveTextError):
        rules.play(START, [], text)


def _position(pieces: dict[str, str], kings: tuple[str, str] = ("h3", "h7")) -> chess.Board:
    """White to move with ``pieces`` ({"b1": "N"}) and the kings (white's, black's)."""
    board = chess.Board(None)
    for square, symbol in {kings[0]: "K", kings[1]: "k", **pieces}.items():
        board.set_piece_at(chess.parse_square(square), chess.Piece.from_symbol(symbol))
    board.turn = chess.WHITE
    assert board.is_valid(), board.status()
    return board


# (pieces, the move, the SAN python-chess writes for it): each needs the disambiguation
# its id names, as python-chess's own SAN writer confirms. A rook never needs the whole
# square: two rooks reaching one square share its rank or file, and a third on the first
# one's rank or file would stand on that same line, on the wrong side of the target.
DISAMBIGUATIONS = {
    "knight-file": ({"b1": "N", "f1": "N"}, "b1d2", "Nbd2"),
    "knight-rank": ({"b1": "N", "b3": "N"}, "b3d2", "N3d2"),
    "knight-square": ({"b1": "N", "b3": "N", "f1": "N"}, "b1d2", "Nb1d2"),
    "bishop-file": ({"a1": "B", "e1": "B"}, "e1c3", "Bec3"),
    "bishop-rank": ({"d7": "B", "d1": "B"}, "d7g4", "B7g4"),
    "bishop-rank-2": ({"d7": "B", "d1": "B"}, "d1g4", "B1g4"),
    "bishop-square": ({"a1": "B", "a5": "B", "e1": "B"}, "a1c3", "Ba1c3"),
    "rook-file": ({"a1": "R", "h1": "R"}, "a1d1", "Rad1"),
    "rook-rank": ({"a1": "R", "a8": "R"}, "a8a4", "R8a4"),
    "queen-file": ({"a1": "Q", "e1": "Q"}, "a1c3", "Qac3"),
    "queen-rank": ({"a1": "Q", "a5": "Q"}, "a5c3", "Q5c3"),
    "queen-square": ({"a1": "Q", "a5": "Q", "e1": "Q"}, "a1c3", "Qa1c3"),
    "pawn-capture": ({"c4": "P", "e4": "P", "d5": "p"}, "e4d5", "exd5"),
    "pawn-capture-2": ({"c4": "P", "e4": "P", "d5": "p"}, "c4d5", "cxd5"),
}


@pytest.mark.parametrize(
    ("pieces", "uci", "san"), DISAMBIGUATIONS.values(), ids=DISAMBIGUATIONS.keys()
)
def test_disambiguated_san_of_every_piece_is_read(pieces, uci, san):
    board = _position(pieces)
    assert board.san(chess.Move.from_uci(uci)) == san
    played = rules.play(board.fen(), [], san)
    assert (played.uci, played.san) == (uci, san)


@pytest.mark.parametrize(
    ("pieces", "uci", "san"), DISAMBIGUATIONS.values(), ids=DISAMBIGUATIONS.keys()
)
def test_the_same_moves_in_uci_are_read(pieces, uci, san):
    fen = _position(pieces).fen()
    assert rules.play(fen, [], uci).san == san
    assert rules.play(fen, [], uci.upper()).san == san


@pytest.mark.parametrize(
    ("pieces", "san"),
    [
        ({"b1": "N", "f1": "N"}, "Nd2"),
        ({"b1": "N", "b3": "N", "f1": "N"}, "Nbd2"),
        ({"a1": "B", "a5": "B", "e1": "B"}, "B1c3"),
        ({"a1": "Q", "a5": "Q", "e1": "Q"}, "Qac3"),
    ],
)
def test_san_without_enough_disambiguation_is_refused_naming_the_moves(pieces, san):
    board = _position(pieces)
    with pytest.raises(rules.AmbiguousMoveError) as refused:
        rules.play(board.fen(), [], san)
    assert len(refused.value.readings) == 2
    assert all(board.parse_san(reading) for reading in refused.value.readings)


def test_king_move_needs_no_disambiguation():
    assert rules.play(_position({}).fen(), [], "Kg2").uci == "h3g2"


# The only SAN that is also UCI of another move: a bishop's rank disambiguation. With a
# rook on b3 and a bishop on d3, "B3b5" is UCI b3b5 (the rook) and SAN Bb5 (the bishop).
TWO_READINGS = {"b3": "R", "d3": "B"}
KINGS_CLEAR_OF_THEM = ("h1", "h8")


def test_text_reading_as_two_different_legal_moves_is_refused_as_ambiguous():
    board = _position(TWO_READINGS, KINGS_CLEAR_OF_THEM)
    assert {board.parse_san("B3b5"), chess.Move.from_uci("b3b5")} == {
        chess.Move.from_uci("d3b5"),
        chess.Move.from_uci("b3b5"),
    }
    with pytest.raises(rules.AmbiguousMoveError) as refused:
        rules.play(board.fen(), [], "B3b5")
    assert sorted(refused.value.readings) == ["Bb5", "Rb5"]


@pytest.mark.parametrize(
    ("text", "uci"),
    [("b3b5", "b3b5"), ("B3B5", "b3b5"), ("Rb5", "b3b5"), ("Bdb5", "d3b5"), ("Bb5", "d3b5")],
)
def test_either_move_of_an_ambiguous_text_can_be_written_plainly(text, uci):
    fen = _position(TWO_READINGS, KINGS_CLEAR_OF_THEM).fen()
    assert rules.play(fen, [], text).uci == uci


def test_uci_reading_that_is_one_of_an_ambiguous_sans_moves_is_still_ambiguous():
    # Bishops on b3 and f3 both reach d5: "B3d5" is UCI of one of them, SAN of either.
    board = _position({"b3": "B", "f3": "B"})
    with pytest.raises(rules.AmbiguousMoveError) as refused:
        rules.play(board.fen(), [], "B3d5")
    assert sorted(refused.value.readings) == ["Bbd5", "Bfd5"]


def test_move_gives_its_uci_and_san_with_the_check_sign():
    played = play_all("e4", "f5", "Qh5")
    assert (played.uci, played.san) == ("d1h5", "Qh5+")


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


def test_the_king_onto_its_own_rook_castles_and_reads_as_standard_uci():
    # What a board sends when the king is dropped on its rook (chessground's rookCastle).
    kingside = rules.play(CASTLING_FEN, [], "e1h1")
    assert (kingside.uci, kingside.san) == ("e1g1", "O-O")
    queenside = rules.play(CASTLING_FEN.replace(" w ", " b "), [], "E8A8")
    assert (queenside.uci, queenside.san) == ("e8c8", "O-O-O")


def test_the_king_onto_its_rook_is_refused_without_the_right_to_castle():
    with pytest.raises(rules.IllegalMoveError):
        rules.play(CASTLING_FEN.replace("KQkq", "kq"), [], "e1h1")


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


def test_legal_moves_let_a_king_that_may_castle_drop_on_its_rooks():
    assert sorted(rules.legal_moves(CASTLING_FEN)["e1"]) == ["a1", "c1", "d1", "f1", "g1", "h1"]
    # No right to castle queenside: the a1 rook is no destination.
    without = rules.legal_moves(CASTLING_FEN.replace("KQkq", "Kkq"))
    assert sorted(without["e1"]) == ["d1", "f1", "g1", "h1"]


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


# --------------------------------------------------------------------------- replay


def test_replay_yields_each_stored_move_as_played():
    played = list(rules.replay(["f2f3", "e7e5", "g2g4", "d8h4"]))
    assert [m.san for m in played] == ["f3", "e5", "g4", "Qh4#"]
    assert played[-1].fen_after == play_all("f3", "e5", "g4", "Qh4#").fen_after
    assert played[-1].outcome == rules.Outcome(Termination.CHECKMATE, rules.BLACK)


@pytest.mark.parametrize("stored", ["0000", "E2E4", "e4", "Nf3", "P@e4", ""])
def test_replay_reads_only_canonical_uci(stored):
    with pytest.raises(rules.MoveTextError):
        list(rules.replay(["g1f3", stored]))


def test_replay_refuses_an_illegal_stored_move():
    with pytest.raises(rules.IllegalMoveError):
        list(rules.replay(["e2e4", "e2e4"]))


# --------------------------------------------------------------------------- plies by colour

BLACK_TO_MOVE = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


@pytest.mark.parametrize(
    ("plies", "white", "black"), [(0, 0, 0), (1, 1, 0), (2, 1, 1), (3, 2, 1), (10, 5, 5)]
)
def test_white_plays_the_odd_plies_from_the_standard_position(plies, white, black):
    start = rules.STARTING_FEN
    assert rules.plies_played_by(rules.WHITE, start_fen=start, plies=plies) == white
    assert rules.plies_played_by(rules.BLACK, start_fen=start, plies=plies) == black


@pytest.mark.parametrize(
    ("plies", "white", "black"), [(0, 0, 0), (1, 0, 1), (2, 1, 1), (3, 1, 2), (10, 5, 5)]
)
def test_black_plays_the_odd_plies_from_a_position_with_black_to_move(plies, white, black):
    assert rules.plies_played_by(rules.WHITE, start_fen=BLACK_TO_MOVE, plies=plies) == white
    assert rules.plies_played_by(rules.BLACK, start_fen=BLACK_TO_MOVE, plies=plies) == black


@pytest.mark.parametrize("start", [rules.STARTING_FEN, BLACK_TO_MOVE])
@pytest.mark.parametrize(("plies", "both"), [(0, False), (1, False), (2, True), (7, True)])
def test_both_sides_have_moved_after_two_plies_whoever_began(start, plies, both):
    assert rules.both_sides_have_moved(start_fen=start, plies=plies) is both


# --------------------------------------------------------------------------- positions from outside

OPENING_BLACK_TO_MOVE = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


@pytest.mark.parametrize(
    "fen",
    [
        OPENING_BLACK_TO_MOVE.replace(" 0 1", " 0 " + "9" * 80),  # a counter of 80 digits
        OPENING_BLACK_TO_MOVE + " " + "x" * 300,  # 357 characters of trailing text
        OPENING_BLACK_TO_MOVE.replace(" 0 1", " " + "9" * 80 + " 1"),  # and in the clock
        OPENING_BLACK_TO_MOVE.replace(" 0 1", " 0 10000"),
        "",
    ],
)
def test_a_fen_from_outside_is_bounded_before_it_is_taken(fen):
    with pytest.raises(rules.InvalidPositionError) as refused:
        rules.starting_position(fen)
    assert len(str(refused.value)) <= rules.MAX_FEN_LENGTH + 1


def test_a_move_number_of_zero_is_read_as_one_the_board_s_own_form():
    assert rules.starting_position(OPENING_BLACK_TO_MOVE.replace(" 0 1", " 0 0")).endswith(" 0 1")


def test_the_highest_move_number_is_taken_and_the_fen_fits_its_column():
    fen = rules.starting_position(OPENING_BLACK_TO_MOVE.replace(" 0 1", " 149 9999"))
    assert fen.endswith(" 149 9999")
    assert len(fen) <= rules.MAX_FEN_LENGTH <= 100


def test_a_position_key_leaves_out_the_counters_and_keeps_a_real_en_passant_only():
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    key = rules.position_key(after_e4)
    assert key == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -"
    assert rules.position_key(key + " 12 40") == key


@pytest.mark.parametrize(
    "fen", ["", "nonsense", "8/8/8/8/8/8/8/8 w - - 0 1", "k" * 91, "8/8/8/8/8/8/8/K6k x - - 0 1"]
)
def test_a_position_key_refuses_what_is_no_legal_position(fen):
    with pytest.raises(rules.InvalidPositionError):
        rules.position_key(fen)


def test_a_finished_position_has_a_key_too():
    mated = "R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1"
    assert rules.position_key(mated).startswith("R5k1/")


def test_the_keys_one_move_away_are_those_of_every_legal_move():
    keys = rules.keys_one_move_from(rules.STARTING_FEN)
    assert len(keys) == 20
    assert "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -" in keys


# ------------------------------------------------------------------ parsed boards, kept


def test_a_kept_board_is_handed_out_as_a_copy_of_its_own():
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    first = positions.board_at(fen)
    first.push_san("Bb5")  # the caller's board is the caller's to change
    again = positions.board_at(fen)
    assert again.fen() == fen and not again.move_stack
    assert again is not first


def test_a_position_played_to_is_kept_as_it_is_reached():
    played = rules.play(rules.STARTING_FEN, [], "e4")
    assert played.fen_after in positions._boards
    assert positions.board_at(played.fen_after).fen() == played.fen_after


def test_no_more_boards_are_kept_than_the_bound(monkeypatch):
    monkeypatch.setattr(positions, "BOARDS_KEPT", 3)
    board = positions.board_at(rules.STARTING_FEN)
    for move in ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]:
        board.push_uci(move)
        positions.board_at(board.fen())
    assert len(positions._boards) == 3
    assert board.fen() in positions._boards  # the last one read is kept
