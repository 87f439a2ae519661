"""chessirc (seed 004) over real sockets: the seed's example session byte for byte, every
request, every refusal, the end of a game, malformed and overlong lines, a silent client,
many channels at once."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.models import Game, Move
from legacy_tcp.chessirc import codec
from legacy_tcp.chessirc.server import ChessircServer
from legacy_tcp.models import GatewayPolicy, LinkedName
from tests.protocols.lines import LineClient

pytestmark = pytest.mark.django_db(transaction=True)

User = get_user_model()
SEED_SESSION = Path(__file__).parent / "data" / "chessirc_seed_session.txt"
VERBS = tuple(codec.VERBS)


class Bot(LineClient):
    """The IRC bot's side: one request, one reply up to ``-###-``."""

    def reply(self) -> str:
        lines = []
        while True:
            line = self.line()
            if line is None:
                raise ConnectionError("closed by the server; got " + "\n".join(lines))
            lines.append(line)
            if line == codec.END:
                return "\n".join(lines) + "\n"

    def request(self, text: str) -> str:
        self.send(text)
        return self.reply()

    def raw_reply(self) -> bytes:
        """The reply's bytes exactly as sent."""
        while b"-###-\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            self.buffer += chunk
        raw, _, self.buffer = self.buffer.partition(b"-###-\n")
        return raw + b"-###-\n"


@pytest.fixture
def gateway(start_server, settings):
    # Every test bot comes from 127.0.0.1 (the cap's own tests are in test_gateway_floods).
    settings.CHESSIRC_MAX_PER_ADDRESS = 0
    return start_server(server_class=ChessircServer)


@pytest.fixture
def bot(gateway):
    opened: list[Bot] = []

    def open_bot(runner=None) -> Bot:
        client = Bot((runner or gateway).port)
        opened.append(client)
        return client

    yield open_bot
    for client in opened:
        client.close()


def msg(text: str) -> str:
    return f"{text}\n-###-\n"


@pytest.fixture
def started(bot):
    """A session in #chess with a and b registered and the game started."""

    def make(channel: str = "#chess", fen: str = "Default") -> Bot:
        client = bot()
        client.request(f"SESSION {channel}")
        client.request("REGISTER a")
        client.request("REGISTER b")
        assert "Blancas mueven" in client.request(f"START a {fen}") or fen != "Default"
        return client

    return make


def test_the_seeds_example_session_byte_for_byte(bot):
    transcript = SEED_SESSION.read_bytes().decode()
    client = bot()
    exchanges: list[tuple[str, str]] = []
    for line in transcript.splitlines(keepends=True):
        if line.startswith(VERBS):
            exchanges.append((line.rstrip("\n"), ""))
        else:
            request, expected = exchanges[-1]
            exchanges[-1] = (request, expected + line)
    assert [request.split()[0] for request, _ in exchanges] == [
        "SESSION", "REGISTER", "REGISTER", "START", "MOVE",
    ]
    for request, expected in exchanges:
        client.send(request)
        assert client.raw_reply() == expected.encode(), request


def test_history_is_the_current_pair_in_spanish_letters(started):
    client = started()
    assert client.request("MOVE a f3").startswith("1. f3\nNegras mueven. Es el turno de 'b'.\n")
    assert client.request("MOVE b e5").startswith("1. f3 e5\nBlancas mueven.")
    assert client.request("MOVE a g4").startswith("2. g4\n")
    reply = client.request("MOVE b Qh4#")
    # The mate sign the player typed is not doubled (the original showed "Dh4##").
    assert reply.startswith(
        "2. g4 Dh4#\nJaque mate. Ganan las Negras.\n"
        f"La partida se ha guardado en {Game.objects.get().public_id}.pgn.\n0-1\n<:=:>\n"
    )
    # The session ends with the game: the connection closes.
    assert client.closed_by_server()
    game = Game.objects.get()
    assert (game.result, game.termination, game.site) == ("0-1", "checkmate", "#chess")


def test_after_a_move_the_board_is_shown_from_the_side_to_move(started):
    client = started()
    after_white = client.request("MOVE a Nf3")
    assert after_white.splitlines()[3].startswith("1 ")  # Black's side: rank 1 on top
    assert after_white.splitlines()[-2] == "   h  g  f  e  d  c  b  a"
    after_black = client.request("MOVE b Nc6")
    assert after_black.splitlines()[3].startswith("8 ")
    assert after_black.splitlines()[-2] == "   a  b  c  d  e  f  g  h"
    assert "1. Cf3 Cc6" in after_black


def test_board_shows_either_side_with_history_and_status(started):
    client = started()
    client.request("MOVE a e4")
    white = client.request("BOARD White")
    black = client.request("BOARD black")
    assert white.splitlines()[:3] == ["1. e4", "Negras mueven. Es el turno de 'b'.", "<:=:>"]
    assert white.splitlines()[3].startswith("8 ")
    assert black.splitlines()[3].startswith("1 ")
    assert client.request("BOARD Red") == msg("Se espera White o Black.")


def test_position_is_the_full_correct_fen(started):
    client = started()
    client.request("MOVE a e4")
    assert client.request("POSITION") == msg(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    )
    client.request("MOVE b e5")
    client.request("MOVE a Ke2")
    # Castling rights White lost are dropped (the original kept them).
    assert client.request("POSITION") == msg(
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPPKPPP/RNBQ1BNR b kq - 1 2"
    )


def test_pgn_names_the_stored_game_with_the_channel_as_site(started, client):
    bot_client = started("#foo")
    bot_client.request("MOVE a d4")
    game = Game.objects.get()
    assert bot_client.request("PGN") == msg(f"La partida se ha guardado en {game.public_id}.pgn.")
    from games.state import game_pgn

    assert '[Site "#foo"]' in game_pgn(game)
    assert '[White "a@chessirc.foo"]' in game_pgn(game)


def test_start_from_a_fen_numbers_from_one(bot):
    client = bot()
    client.request("SESSION #fen")
    client.request("REGISTER a")
    client.request("REGISTER b")
    fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 5 40"
    reply = client.request(f"START b {fen}")
    assert reply.splitlines()[0] == "Negras mueven. Es el turno de 'b'."
    assert reply.splitlines()[2].startswith("8 ")  # White's side after START
    assert client.request("MOVE b Kd7").startswith("1. ... Rd7\n")
    assert client.request("MOVE a e4").startswith("2. e4\n")
    game = Game.objects.get()
    assert game.initial_fen == fen
    from games.integrity import check_games

    assert [report for report in check_games() if report.problems] == []


@pytest.mark.parametrize(
    "fen",
    [
        "nonsense",
        "8/8/8/8/8/8/8/8 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K2R w - - 0 1 extra x",
        # A move number of 80 digits: once a traceback on PostgreSQL, and a 357-character
        # FEN stored in a 100-character column on SQLite.
        "4k3/8/8/8/8/8/8/4K2R w K - 0 " + "9" * 80,
        "4k3/8/8/8/8/8/8/4K2R w K - 0 1" + " " * 300 + "x",
    ],
)
def test_start_from_an_impossible_position_is_refused(bot, fen):
    client = bot()
    client.request("SESSION #fen")
    client.request("REGISTER a")
    client.request("REGISTER b")
    assert client.request(f"START a {fen}") == msg("La posición FEN no es válida.")
    assert not Game.objects.exists()


def test_draw_offered_by_the_player_to_move_and_accepted_by_the_other(started):
    client = started()
    # The original's words for an offer.
    assert client.request("DRAW a") == msg("Blancas ('a') ofrecen tablas.")
    reply = client.request("DRAW b")
    public_id = Game.objects.get().public_id
    assert reply == msg(
        f"'b' acepta las tablas. Tablas.\nLa partida se ha guardado en {public_id}.pgn.\n1/2-1/2"
    )
    assert client.closed_by_server()
    assert Game.objects.get().result == "1/2-1/2"


def test_a_move_in_between_withdraws_the_offer(started):
    client = started()
    client.request("DRAW a")
    assert client.request("MOVE a e4").startswith("1. e4\n")
    game = Game.objects.get()
    assert game.draw_offer_by == "" and game.is_active
    # b, now to move, offers and moves: the offer is gone, a cannot accept it.
    assert client.request("DRAW b") == msg("Negras ('b') ofrecen tablas.")
    assert Game.objects.get().draw_offer_by == "black"
    assert client.request("MOVE b e5").startswith("1. e4 e5\n")
    assert Game.objects.get().draw_offer_by == ""


def test_accepting_without_an_offer_is_refused(started):
    client = started()
    assert client.request("DRAW b") == msg("No hay ninguna oferta de tablas que aceptar.")
    assert Game.objects.get().is_active


def test_resign_ends_the_game_and_the_session(started):
    client = started()
    reply = client.request("RESIGN b")
    public_id = Game.objects.get().public_id
    assert reply == msg(
        f"'b' abandona. Ganan las Blancas.\nLa partida se ha guardado en {public_id}.pgn.\n1-0"
    )
    assert client.closed_by_server()


def test_stalemate_ends_the_game_in_a_draw(bot):
    client = bot()
    client.request("SESSION #st")
    client.request("REGISTER a")
    client.request("REGISTER b")
    client.request("START a 7k/8/6Q1/8/8/8/8/6K1 w - - 0 1")
    reply = client.request("MOVE a Qf7")
    assert "Rey ahogado. Tablas.\n" in reply and "\n1/2-1/2\n<:=:>\n" in reply


# --------------------------------------------------------------------------- refusals


def test_refusals_before_a_session(bot):
    client = bot()
    for request in ("REGISTER a", "START a Default", "MOVE a e4", "BOARD White", "POSITION",
                    "PGN", "DRAW a", "RESIGN a"):
        assert client.request(request) == msg("No hay ninguna sesión iniciada."), request


def test_a_channel_must_start_with_a_hash_and_be_plain(bot):
    client = bot()
    assert client.request("SESSION chess") == msg("El nombre del canal debe empezar por '#'.")
    assert client.request("SESSION #a.b") == msg("Nombre de canal inválido.")
    assert client.request("SESSION #" + "a" * 31) == msg("Nombre de canal inválido.")


def test_one_session_per_channel(bot):
    first, second = bot(), bot()
    assert first.request("SESSION #chess") == msg("Se ha iniciado una sesión en #chess.")
    assert second.request("SESSION #chess") == msg("Ya hay una sesión en #chess.")
    assert first.request("SESSION #other") == msg("Ya hay una sesión iniciada en #chess.")
    assert second.request("SESSION #other") == msg("Se ha iniciado una sesión en #other.")


def test_registration_refusals(bot):
    client = bot()
    client.request("SESSION #chess")
    assert client.request("REGISTER a") == msg("Se ha registrado 'a' para jugar con Blancas.")
    assert client.request("REGISTER a") == msg("'a' ya está registrado.")
    assert client.request("REGISTER b") == msg("Se ha registrado 'b' para jugar con Negras.")
    assert client.request("REGISTER c") == msg("Ya se han registrado ambos jugadores.")
    assert client.request("REGISTER") == msg("Uso: REGISTER <nick>.")
    assert client.request("REGISTER x y") == msg("Uso: REGISTER <nick>.")


@pytest.mark.parametrize("nick", ["ñandú", "a@b", "a" * 31, "semi;colon"])
def test_a_nick_outside_irc_characters_is_refused(bot, nick):
    client = bot()
    client.request("SESSION #chess")
    assert client.request(f"REGISTER {nick}") == msg("Nick inválido.")
    assert not User.objects.exists()


def test_start_refusals(bot):
    client = bot()
    client.request("SESSION #chess")
    client.request("REGISTER a")
    assert client.request("START a Default") == msg("Faltan jugadores por registrarse.")
    client.request("REGISTER b")
    assert client.request("START z Default") == msg("'z' no está registrado en esta partida.")
    assert client.request("START a") == msg("Uso: START <nick> <FEN|Default>.")
    for request in ("MOVE a e4", "BOARD White", "POSITION", "PGN", "DRAW a", "RESIGN a"):
        assert client.request(request) == msg("La partida no ha comenzado."), request
    client.request("START a Default")
    assert client.request("START a Default") == msg("La partida ya ha comenzado.")
    assert Game.objects.count() == 1


def test_move_refusals_change_nothing(started):
    client = started()
    assert client.request("MOVE b e5") == msg("No es el turno de 'b'.")
    assert client.request("MOVE z e4") == msg("'z' no juega esta partida.")
    assert client.request("MOVE a e5") == msg("Movimiento ilegal.")
    assert client.request("MOVE a Qh5") == msg("Movimiento ilegal.")
    assert client.request("MOVE a --") == msg("Movimiento ilegal.")
    assert client.request("MOVE a") == msg("Uso: MOVE <nick> <jugada>.")
    assert not Move.objects.exists()


@pytest.mark.parametrize(
    ("raw", "reply"),
    [
        (b"\n", "Orden desconocida."),
        (b"HELLO\n", "Orden desconocida."),
        (b"SESSION\x00 #x\n", "Orden desconocida."),
        (b"SESSION #\xff\n", "La l\u00ednea no es UTF-8."),
        (b"POSITION now\n", "Uso: POSITION."),
    ],
)
def test_malformed_lines_get_one_reply(bot, raw, reply):
    client = bot()
    client.send_raw(raw)
    assert client.reply() == msg(reply)
    assert client.request("SESSION #ok") == msg("Se ha iniciado una sesión en #ok.")


@pytest.mark.parametrize("line", ["move a e4", "Session #x", "close"])
def test_verbs_in_lower_case_are_unknown_as_in_the_original(started, line):
    client = started()
    assert client.request(line) == msg("Orden desconocida.")
    assert not Move.objects.exists()


def test_an_overlong_line_is_refused_and_the_session_goes_on(bot):
    client = bot()
    client.send("SESSION #" + "a" * 5000)
    assert client.reply() == msg("Línea demasiado larga.")
    assert client.request("SESSION #ok") == msg("Se ha iniciado una sesión en #ok.")


def test_close_ends_the_session_and_the_connection_without_a_reply(bot):
    client = bot()
    client.request("SESSION #chess")
    client.send("CLOSE")
    # As the original: the connection closes, and nothing is said.
    assert client.line() is None
    assert bot().request("SESSION #chess") == msg("Se ha iniciado una sesión en #chess.")


def test_a_session_closed_mid_game_loses_it_for_the_guest_to_move(started):
    client = started()
    client.request("MOVE a e4")
    client.request("MOVE b e5")
    client.request("MOVE a Nf3")
    client.close()
    for _ in range(100):
        game = Game.objects.get()
        if not game.is_active:
            break
        threading.Event().wait(0.05)
    assert (game.result, game.termination) == ("1-0", "abandonment")


def test_a_silent_client_does_not_block_the_others(bot, started):
    silent = bot()
    silent.send_raw(b"SESSION #hal")
    client = started("#busy")
    assert client.request("MOVE a e4").startswith("1. e4\n")
    assert silent.nothing_within(0.1)


def test_many_channels_at_once(bot):
    errors: list[BaseException] = []

    def play(index: int) -> None:
        try:
            client = bot()
            client.request(f"SESSION #c{index}")
            client.request(f"REGISTER w{index}")
            client.request(f"REGISTER b{index}")
            client.request(f"START w{index} Default")
            for nick, move in ((f"w{index}", "f3"), (f"b{index}", "e5"), (f"w{index}", "g4")):
                assert "mueven" in client.request(f"MOVE {nick} {move}")
            assert "0-1" in client.request(f"MOVE b{index} Qh4")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors
    assert Game.objects.filter(result="0-1").count() == 8
    sites = set(Game.objects.values_list("site", flat=True))
    assert sites == {f"#c{i}" for i in range(8)}


# --------------------------------------------------------------------------- who plays


def test_nicks_are_guests_of_their_channel(started):
    started("#uno")
    game = Game.objects.get()
    assert (game.white.username, game.black.username) == ("a@chessirc.uno", "b@chessirc.uno")
    assert game.rated is False


def test_with_guests_off_only_linked_nicks_register(start_server, alice):
    runner = start_server(server_class=ChessircServer, secret="bot-key")
    GatewayPolicy.objects.create(gateway="chessirc", guests_allowed=False)
    LinkedName.objects.create(gateway="chessirc", channel="chess", name="ali", player=alice)
    client = Bot(runner.port)
    try:
        assert client.request("SESSION #chess") == msg("Se requiere la clave: AUTH <clave>.")
        assert client.request("AUTH nope") == msg("Clave incorrecta.")
        assert client.request("AUTH bot-key") == msg("Clave aceptada.")
        client.request("SESSION #chess")
        assert client.request("REGISTER x") == msg(
            "En este servidor solo juegan los nicks vinculados a una cuenta."
        )
        assert client.request("REGISTER ali") == msg(
            "Se ha registrado 'ali' para jugar con Blancas."
        )
    finally:
        client.close()


def test_linked_nicks_start_a_game_only_within_the_games_per_pair(
    start_server, alice, bob, start_game
):
    # alice and bob already play on the web: their linked nicks start no second game
    # until the administrator allows two per pair.
    start_game(alice, bob)
    runner = start_server(server_class=ChessircServer, secret="bot-key")
    LinkedName.objects.create(gateway="chessirc", channel="chess", name="ali", player=alice)
    LinkedName.objects.create(gateway="chessirc", channel="chess", name="bo", player=bob)
    client = Bot(runner.port)
    try:
        client.request("AUTH bot-key")
        client.request("SESSION #chess")
        client.request("REGISTER ali")
        client.request("REGISTER bo")
        assert client.request("START ali Default") == msg(
            "Estos jugadores ya tienen en curso las partidas que el sitio permite."
        )
        services.set_site_rules(games_per_pair=2)
        assert "Blancas mueven" in client.request("START ali Default")
        assert Game.objects.filter(status="active").count() == 2
    finally:
        client.close()


def test_the_documented_session_is_what_the_server_says(bot):
    """docs/protocols/chessirc.md's full session, replayed byte for byte."""
    doc = (Path(__file__).resolve().parents[2] / "docs/protocols/chessirc.md").read_text()
    block = doc.split("## A full session", 1)[1].split("```\n", 2)[1]
    client = bot()
    exchanges: list[tuple[str, str]] = []
    for line in block.splitlines(keepends=True):
        if line.startswith(VERBS):
            exchanges.append((line.rstrip("\n"), ""))
        else:
            request, expected = exchanges[-1]
            exchanges[-1] = (request, expected + line)
    assert len(exchanges) == 13
    for request, expected in exchanges:
        client.send(request)
        if Game.objects.exists():
            expected = expected.replace("P0000001", Game.objects.get().public_id)
        assert client.raw_reply().decode() == expected, request
