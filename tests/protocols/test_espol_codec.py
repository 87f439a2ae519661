"""The ESPOL codec on plain byte strings: no socket, no database."""

from __future__ import annotations

import ast
import datetime as dt
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from legacy_tcp.espol import codec as espol

# Where frames are cut, and so where the frame size cap is read (and patched).
from legacy_tcp.espol.codec import Code, FrameDecoder, ParseError, frames, framing, parse_line

# --------------------------------------------------------------------------- lines


def test_user_line_with_crlf_is_read():
    assert parse_line(b"USER:alice\r\n") == espol.User("alice")


def test_bare_lf_is_accepted_as_line_end():
    assert parse_line(b"USER:alice\n") == espol.User("alice")


def test_white_space_around_fields_is_ignored():
    assert parse_line(b"USER : alice \r\n") == espol.User("alice")


@pytest.mark.parametrize("line", [b"quit", b"Quit", b"qUIT", b"QuIt"])
def test_command_codes_are_case_sensitive(line):
    result = parse_line(line)
    assert isinstance(result, ParseError)
    assert result.code == Code.F_CMDINV


@pytest.mark.parametrize("line", [b"QUIT", b"QUIT:", b"QUIT\r\n", b"QUIT:\r\n"])
def test_quit_comes_with_or_without_a_colon(line):
    assert parse_line(line) == espol.Quit()


@pytest.mark.parametrize("line", [b"HELP", b"HELP:"])
def test_help_comes_with_or_without_a_colon(line):
    assert parse_line(line) == espol.Help()


def test_help_with_arguments_is_a_parameter_error():
    result = parse_line(b"HELP:me")
    assert isinstance(result, ParseError) and result.code == Code.F_PARAM


@pytest.mark.parametrize("code", [b"TBLS", b"TBLs"])
def test_both_spellings_of_tbls_are_accepted(code):
    assert parse_line(code + b":P0000003:bob") == espol.Tbls(3, "bob")


@pytest.mark.parametrize("code", [b"RTBL", b"RTBS"])
def test_both_spellings_of_rtbl_are_accepted(code):
    assert parse_line(code + b":P0000003:N:bob") == espol.Rtbl(3, False, "bob")


def test_dates_are_seconds_since_1970():
    assert parse_line(b"TRAN:01763769600") == espol.Tran(
        dt.datetime(2025, 11, 22, tzinfo=dt.UTC)
    )


def test_a_zero_date_means_everything():
    assert parse_line(b"JAUT:00000000000") == espol.Jaut(espol.EPOCH)


@pytest.mark.parametrize("date", [b"", b"abc", b"012345678901", b"-1"])
def test_malformed_date_is_a_parameter_error(date):
    result = parse_line(b"PPEN:" + date)
    assert isinstance(result, ParseError) and result.code == Code.F_PARAM
    assert result.command == "PPEN"


def test_game_names_have_numbers_past_seven_digits():
    assert parse_line(b"STAT:P12345678") == espol.Stat(12345678)


@pytest.mark.parametrize("game", [b"0000001", b"X0000001", b"P", b"P12a", b"P" + b"9" * 19])
def test_malformed_game_name_is_a_parameter_error(game):
    result = parse_line(b"STAT:" + game)
    assert isinstance(result, ParseError) and result.code == Code.F_PARAM


def test_spar_tolerates_the_seeds_trailing_colon():
    assert parse_line(b"SPAR:P0000001:4:") == espol.Spar(1, 4)


def test_acep_colour_letters_map_to_colours():
    assert parse_line(b"ACEP:N:alice") == espol.Acep("black", "alice")
    assert parse_line(b"ACEP:B:alice") == espol.Acep("white", "alice")


def test_acep_with_unknown_colour_is_a_parameter_error():
    result = parse_line(b"ACEP:W:alice")
    assert isinstance(result, ParseError) and result.code == Code.F_PARAM


def test_jgda_reads_a_move_whose_fields_agree():
    assert parse_line(b"JGDA:P0000001:1:e2e4:0:1228:0") == espol.Jgda(1, 1, "e2e4", False)


def test_jgda_promotion_given_only_in_promocion_becomes_the_uci_letter():
    assert parse_line(b"JGDA:P1:9:b7a8:1:4956:5") == espol.Jgda(1, 9, "b7a8q", True)


def test_jgda_promotion_letter_and_promocion_that_agree_are_accepted():
    assert parse_line(b"JGDA:P1:9:b7a8n:0:4956:2") == espol.Jgda(1, 9, "b7a8n", False)


def test_jgda_position_that_disagrees_with_the_move_is_an_illegal_move():
    result = parse_line(b"JGDA:P1:1:e2e4:0:1229:0")
    assert isinstance(result, ParseError) and result.code == Code.F_ILLEGAL


def test_jgda_promotion_that_disagrees_with_the_move_is_an_illegal_move():
    result = parse_line(b"JGDA:P1:9:b7a8q:0:4956:2")
    assert isinstance(result, ParseError) and result.code == Code.F_ILLEGAL


@pytest.mark.parametrize(
    "line",
    [
        b"JGDA:P1:1:e2e4:0:1228",  # a field missing
        b"JGDA:P1:one:e2e4:0:1228:0",
        b"JGDA:P1:1:e2e9:0:1228:0",
        b"JGDA:P1:1:e2e4:2:1228:0",
        b"JGDA:P1:1:e2e4:0:1264:0",
        b"JGDA:P1:1:e2e4:0:1228:1",
        b"JGDA:P1:1:e2e4:0:1228:0:extra",
    ],
)
def test_malformed_jgda_is_a_parameter_error(line):
    result = parse_line(line)
    assert isinstance(result, ParseError) and result.code == Code.F_PARAM
    assert result.command == "JGDA"


def test_pass_keeps_colons_inside_the_password():
    assert parse_line(b"PASS:se:cret") == espol.Pass("se:cret")


def test_subs_comment_is_optional():
    assert parse_line(b"SUBS:dora:pw") == espol.Subs("dora", "pw", "")


def test_invalid_utf8_is_a_parameter_error():
    result = parse_line(b"USER:\xff\xfe\r\n")
    assert isinstance(result, ParseError) and result.code == Code.F_PARAM


def test_line_longer_than_4096_bytes_is_a_parameter_error():
    result = parse_line(b"USER:" + b"a" * 4092 + b"\r\n")
    assert isinstance(result, ParseError) and result.code == Code.F_PARAM


def test_line_of_exactly_4096_bytes_is_read():
    assert parse_line(b"USER:" + b"a" * 4091 + b"\r\n") == espol.User("a" * 4091)


def test_empty_line_is_an_unknown_command():
    result = parse_line(b"\r\n")
    assert isinstance(result, ParseError) and result.code == Code.F_CMDINV


def test_logs_never_show_passwords():
    assert "s3cret" not in parse_line(b"PASS:s3cret").loggable()
    assert "s3cret" not in parse_line(b"SUBS:dora:s3cret:Dora").loggable()
    assert "s3cret" not in parse_line(b"UNSU:dora:s3cret").loggable()
    assert "s3cret" not in parse_line(b"PASS:s3cret:\xff").loggable()


@pytest.mark.parametrize("plain", ["USER:alice", "PASS:***", "SUBS:dora:***:***", "None", "é"])
def test_log_values_without_separators_stay_as_they_are(plain):
    assert espol.log_value(plain) == plain


@given(st.text(max_size=40))
def test_any_log_value_is_printable_and_reads_back(text):
    shown = espol.log_value(text)
    assert shown.isprintable()
    if shown == text:
        assert text and not set(text) & set(" =\"'\\")
    else:
        assert ast.literal_eval(shown) == text


@given(st.binary(max_size=6000))
def test_any_bytes_yield_a_command_or_a_clean_error(data):
    result = parse_line(data)
    assert isinstance(result, espol.Command | ParseError)
    if isinstance(result, ParseError):
        assert result.code in (Code.F_CMDINV, Code.F_PARAM, Code.F_ILLEGAL)
        assert result.message


KNOWN_PREFIXES = st.sampled_from(
    ["USER", "PASS", "SUBS", "UNSU", "TRAN", "JAUT", "PPEN", "JUEG", "ACEP", "SPAR", "JGDA",
     "TBLS", "TBLs", "RTBL", "RTBS", "REND", "FINP", "STAT", "SRNK", "HELP", "QUIT"]
)


@given(KNOWN_PREFIXES, st.lists(st.text(max_size=12), max_size=8))
def test_any_fields_after_a_known_code_yield_a_command_or_a_clean_error(code, fields):
    line = ":".join([code, *fields]).encode("utf-8", errors="surrogatepass")
    result = parse_line(line)
    assert isinstance(result, espol.Command | ParseError)
    if code == "PASS":
        assert result.loggable() in ("PASS:***", "PASS:<unparsed>")


# --------------------------------------------------------------------------- frames


def test_frame_layout_is_code_flag_length_data():
    assert frames(101, "alice") == b"1010" + struct.pack(">H", 5) + b"alice"


def test_empty_response_is_one_frame_of_length_zero():
    assert frames(103) == b"1030\x00\x00"


def test_data_over_65535_bytes_is_split_into_frames():
    data = b"x" * 70_000
    wire = frames(103, data)
    assert wire[:6] == b"1031\xff\xff"
    second = wire[6 + 65535 :]
    assert second[:6] == b"1030" + struct.pack(">H", 70_000 - 65535)
    assert len(wire) == 70_000 + 12


def test_data_of_exactly_65535_bytes_is_one_frame():
    assert frames(103, b"y" * 65535)[:6] == b"1030\xff\xff"


@pytest.mark.parametrize(("char", "first"), [("é", 65534), ("€", 65535), ("😀", 65532)])
def test_text_over_65535_bytes_is_cut_between_characters(char, first):
    text = char * (100_000 // len(char.encode()))
    (response,) = FrameDecoder().feed(frames(103, text))
    assert len(response.parts[0]) == first
    assert "".join(part.decode("utf-8") for part in response.parts) == text


@given(st.text(min_size=1, max_size=200))
def test_every_frame_of_any_text_is_valid_utf8(text):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(framing, "MAX_FRAME_DATA", 7)
        (response,) = FrameDecoder().feed(frames(103, text))
    assert all(0 < len(part) <= 7 for part in response.parts)
    assert "".join(part.decode("utf-8") for part in response.parts) == text


def test_decoder_joins_frames_of_one_response():
    (response,) = FrameDecoder().feed(frames(103, "é" * 40_000))
    assert response.code == 103 and response.text == "é" * 40_000
    assert len(response.parts) == 2


def test_a_list_is_cut_between_records():
    records = [f"P{n:07d}:player{n:06d}:N:0," for n in range(3000)]  # 26 bytes each
    wire = espol.record_frames(103, records)
    assert wire[:4] == b"1031"
    (response,) = FrameDecoder().feed(wire)
    assert [len(part) for part in response.parts] == [2520 * 26, 480 * 26]
    assert response.text == "".join(records)
    for part in response.parts:
        assert part.decode("utf-8").endswith(",")


def test_a_list_with_a_head_concatenates_to_the_whole_answer():
    names = [f",player{n:06d}" for n in range(6000)]  # 13 bytes each
    (response,) = FrameDecoder().feed(espol.record_frames(103, names, head="01795387085"))
    # The head (the date of TRAN and JAUT) opens the answer once; every frame ends on a
    # whole record, so the next one starts with a record's separator.
    assert [len(part) for part in response.parts] == [11 + 5040 * 13, 960 * 13]
    assert response.parts[1].startswith(b",player005040")
    date, *users = response.text.split(",")
    assert date == "01795387085"
    assert users == [name[1:] for name in names]


def test_a_list_without_records_is_one_frame_with_its_head():
    assert espol.record_frames(103, [], head="01795387085") == frames(103, "01795387085")
    assert espol.record_frames(103, []) == b"1030\x00\x00"


def test_a_record_that_cannot_fit_in_a_frame_is_refused():
    with pytest.raises(ValueError):
        espol.record_frames(103, ["x" * 65536], head="01795387085")


# Any text a name can hold: what UTF-8 can encode (no lone surrogates), without the
# records' separator.
RECORD_TEXT = st.characters(codec="utf-8", exclude_characters=",")


@given(
    st.text(alphabet=RECORD_TEXT, max_size=3),
    st.lists(st.text(alphabet=RECORD_TEXT, max_size=6), max_size=30),
)
def test_any_list_arrives_whole_with_every_frame_ending_on_a_record(head, names):
    records = [f"{name}," for name in names]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(framing, "MAX_FRAME_DATA", 40)
        (response,) = FrameDecoder().feed(espol.record_frames(103, records, head=head))
    for part in response.parts[:-1]:
        assert len(part) <= 40
        assert part.decode("utf-8").endswith(",")
    assert len(response.parts[-1]) <= 40
    assert response.text == head + "".join(records)


def test_decoder_waits_for_the_rest_of_a_frame():
    wire = frames(101, "alice")
    decoder = FrameDecoder()
    assert list(decoder.feed(wire[:4])) == []
    assert [r.text for r in decoder.feed(wire[4:])] == ["alice"]


@given(st.integers(min_value=100, max_value=999), st.binary(max_size=140_000))
def test_any_response_survives_encoding_and_decoding(code, data):
    (response,) = FrameDecoder().feed(frames(code, data))
    assert (response.code, response.data) == (code, data)


def test_positions_number_squares_rank_times_eight_plus_file():
    assert espol.position_of("e2e4") == "1228"
    assert espol.position_of("a1h8") == "0063"


def test_promotion_codes_follow_the_piece():
    assert [espol.promotion_of(u) for u in ("e2e4", "a7a8n", "a7a8b", "a7a8r", "a7a8q")] == [
        0, 2, 3, 4, 5
    ]


def test_spar_entries_read_back_as_uci_with_the_promotion_letter():
    assert [espol.uci_of(j, p) for j, p in (("e2e4", "0"), ("a7a8", "5"), ("h2h1", "2"))] == [
        "e2e4", "a7a8q", "h2h1n"
    ]


def test_fecha_is_eleven_zero_padded_digits():
    assert espol.fecha(dt.datetime(2025, 11, 22, tzinfo=dt.UTC)) == "01763769600"
