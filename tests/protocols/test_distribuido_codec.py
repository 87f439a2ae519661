"""The ``#`` protocol's codec alone: bytes in, commands out; states and events in, lines
out. No socket, no database."""

from __future__ import annotations

import pytest

from games.state.gateways import from_event
from legacy_tcp.distribuido import codec

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
MATED = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"


@pytest.mark.parametrize(
    ("line", "command"),
    [
        (b"#INSCRIBIR#Alice#\n", codec.Inscribir("Alice")),
        (b"#INSCRIBIR#Alice#\r\n", codec.Inscribir("Alice")),
        (b"  #inscribir# Alice #  ", codec.Inscribir("Alice")),
        (b"#INSCRIBIR#Alice#3#", codec.Inscribir("Alice", 3)),
        (b"#INSCRIBIR#Alice# 14 #", codec.Inscribir("Alice", 14)),
        (b"#INSCRIBIR#ali:K3y-_x#", codec.Inscribir("ali", llave="K3y-_x")),
        (b"#INSCRIBIR#ali:K3y#7#", codec.Inscribir("ali", 7, llave="K3y")),
        # Only the first colon splits: the rest is the key's (and a wrong one).
        (b"#INSCRIBIR#ali:a:b#", codec.Inscribir("ali", llave="a:b")),
        (b"#MOVIMIENTO#12345#e2e4#", codec.Movimiento("12345", "e2e4")),
        (b"#CONSULTARTABLERO#x#", codec.ConsultarTablero("x")),
        (b"#RENDIRSE#x#", codec.Rendirse("x")),
        (b"#HISTORIAL#P0000001#", codec.Historial("P0000001")),
        (b"#PARTIDAS#", codec.Partidas()),
        (b"#OBSERVAR#P0000001#", codec.Observar("P0000001")),
        (b"#DEJAR#", codec.Dejar()),
        (b"#CLAVE#s#", codec.Clave("s")),
    ],
)
def test_every_command_is_read(line, command):
    assert codec.parse_line(line) == command


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"", codec.MALFORMED),
        (b"#", codec.MALFORMED),
        (b"INSCRIBIR", codec.MALFORMED),
        (b"#X#", codec.UNKNOWN),
        (b"#INSCRIBIR##", codec.EMPTY_FIELD),
        (b"#INSCRIBIR#a\x00b#", codec.MALFORMED),
        (b"#INSCRIBIR#\xc3#", codec.NOT_UTF8),
        (b"#INSCRIBIR#" + b"a" * 600 + b"#", codec.TOO_LONG),
        (b"#DEJAR#x#", "Mensaje mal formado: DEJAR no lleva campos"),
        (b"#INSCRIBIR#Alice#4#", codec.INVALID_CLOCK),
        (b"#INSCRIBIR#ali:#", codec.EMPTY_FIELD),
        (b"#INSCRIBIR#:K3y#", codec.EMPTY_FIELD),
        (b"#INSCRIBIR#:#", codec.EMPTY_FIELD),
        (b"#INSCRIBIR#ali:K\x01y#", codec.MALFORMED),
        (b"#INSCRIBIR#Alice#0#", codec.INVALID_CLOCK),
        (b"#INSCRIBIR#Alice#-3#", codec.INVALID_CLOCK),
        (b"#INSCRIBIR#Alice#3.5#", codec.INVALID_CLOCK),
        ("#INSCRIBIR#Alice#\u0663#".encode(), codec.INVALID_CLOCK),  # an Arabic-Indic 3
        (b"#INSCRIBIR#Alice#99999999999999999999#", codec.INVALID_CLOCK),
        (b"#INSCRIBIR#Alice#3#x#", "Mensaje mal formado: INSCRIBIR lleva el nombre y, si se "
         "quiere reloj, los dias por jugada"),
    ],
)
def test_what_is_not_a_command_is_a_parse_error(line, message):
    assert codec.parse_line(line) == codec.ParseError(message)


def test_replies_are_fields_between_hashes():
    assert codec.ok("B") == b"#OK#B#\n"
    assert codec.ok() == b"#OK#\n"
    assert codec.nok("No es tu turno") == b"#NOK#No es tu turno#\n"
    assert codec.inicio(_game(START)) == f"#INICIO#B#{START}#\n".encode()
    assert codec.board(_game(START)) == f"#OK#{START}#B#\n".encode()
    assert codec.fin("1/2-1/2") == b"#FIN#TABLAS#\n"


def test_a_field_never_carries_the_separator():
    assert codec.ok("a#b") == b"#OK#a?b#\n"
    assert codec.history(["f3", "e5", "g4", "Qh4#"]) == b"#OK#f3#e5#g4#Qh4++#\n"


@pytest.mark.parametrize(
    ("fen", "status", "result", "termination", "state"),
    [
        (START, "active", "*", "", "EN_JUEGO"),
        ("rnbqkbnr/ppppp2p/5p2/6pQ/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 3", "active", "*", "",
         "JAQUE"),
        (MATED, "finished", "0-1", "checkmate", "JAQUE_MATE"),
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "finished", "1/2-1/2", "stalemate", "TABLAS"),
        (START, "finished", "1/2-1/2", "agreement", "TABLAS"),
    ],
)
def test_the_state_of_a_game(fen, status, result, termination, state):
    assert codec.state_of(_game(fen, status, result, termination)) == state


def _event(event: str, fen: str, status: str = "active", result: str = "*", termination=""):
    """A live event's message, as games.state.event_message builds it (what is read here)."""
    game = {
        "id": 1,
        "public_id": "P0000001",
        "fen": fen,
        "initial_fen": START,
        "status": status,
        "result": result,
        "termination": termination,
        "next_move_number": 5,
    }
    return {"event": event, "version": 5, "game": game}


def _game(fen: str, status: str = "active", result: str = "*", termination=""):
    """The game as the read model gives it to the gateway (turn and check from ``fen``)."""
    return from_event(_event("", fen, status, result, termination))


def _lines(message) -> bytes:
    return codec.event_lines(message["event"], from_event(message))


def test_events_become_lines_a_seed_client_understands():
    assert _lines(_event("move", START)) == f"#OK#B#{START}#EN_JUEGO#\n".encode()
    mate = _event("move", MATED, "finished", "0-1", "checkmate")
    assert _lines(mate) == (
        f"#OK#B#{MATED}#JAQUE_MATE#\n#FIN#GANADOR_N#\n".encode()
    )
    resigned = _event("resigned", START, "finished", "0-1", "resignation")
    assert _lines(resigned) == b"#OK#N#\n#FIN#GANADOR_N#\n"
    abandoned = _event("abandoned", START, "finished", "1-0", "abandonment")
    assert _lines(abandoned) == b"#FIN#GANADOR_B#\n"
    assert _lines(_event("draw_offered", START)) == b""
    assert _lines(_event("game_started", START)) == b""


def test_a_key_sent_with_a_name_is_its_own_field_and_never_shown():
    command = codec.parse_line(b"#INSCRIBIR#ali:s3cr3t-key#")
    assert isinstance(command, codec.Inscribir)
    assert (command.nombre, command.llave, command.campo) == ("ali", "s3cr3t-key", "ali:s3cr3t-key")
    assert "s3cr3t" not in repr(command)
    assert codec.parse_line(b"#INSCRIBIR#ali#").campo == "ali"  # type: ignore[union-attr]
