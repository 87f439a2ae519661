"""The ``#`` protocol (seed 001) over real sockets: the seed's example session, every
command and extension, every refusal, malformed and overlong lines, a silent client, many
games at once. Refusals also check that nothing changed in the database."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model

from accounts.services import make_gateway_key
from games import services
from games.models import Game, Move
from legacy_tcp.distribuido.server import DistribuidoServer
from legacy_tcp.models import GatewayPolicy, LinkedName
from tests.protocols.lines import LineClient

pytestmark = pytest.mark.django_db(transaction=True)

User = get_user_model()

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


@pytest.fixture
def gateway(start_server, settings):
    settings.DISTRIBUIDO_MAX_PER_ADDRESS = 0
    settings.DISTRIBUIDO_SECRET = ""
    return start_server(server_class=DistribuidoServer)


@pytest.fixture
def connect(gateway):
    opened: list[LineClient] = []

    def open_client(runner=None) -> LineClient:
        client = LineClient((runner or gateway).port)
        opened.append(client)
        return client

    yield open_client
    for client in opened:
        client.close()


@pytest.fixture
def pair(connect):
    """Two registered players whose game has started, both past their INICIO."""

    def make(white: str = "Alice", black: str = "Bob") -> tuple[LineClient, LineClient]:
        first, second = connect(), connect()
        assert first.ask(f"#INSCRIBIR#{white}#") == "#OK#B#"
        assert second.ask(f"#INSCRIBIR#{black}#") == "#OK#N#"
        assert second.line() == f"#INICIO#B#{START}#"
        assert first.line() == f"#INICIO#B#{START}#"
        return first, second

    return make


def test_the_seeds_example_session(connect):
    alice, bob = connect(), connect()
    assert alice.ask("#INSCRIBIR#Alice#") == "#OK#B#"
    assert bob.ask("#INSCRIBIR#Bob#") == "#OK#N#"
    # INICIO to both, with the real FEN (the seed's example shows a board with no pawns).
    assert bob.line() == f"#INICIO#B#{START}#"
    assert alice.line() == f"#INICIO#B#{START}#"
    # The code is the registered name.
    assert alice.ask("#MOVIMIENTO#Alice#e2e4#") == f"#OK#N#{AFTER_E4}#EN_JUEGO#"
    assert bob.line() == f"#OK#N#{AFTER_E4}#EN_JUEGO#"
    assert bob.ask("#MOVIMIENTO#Bob#e7e5e5#") == "#NOK#Movimiento inválido#"
    assert bob.ask("#RENDIRSE#Bob#") == "#OK#B#"
    assert bob.line() == "#FIN#GANADOR_B#"
    assert alice.line() == "#OK#B#"
    assert alice.line() == "#FIN#GANADOR_B#"
    game = Game.objects.get()
    assert (game.white.username, game.black.username) == ("Alice@distribuido", "Bob@distribuido")
    assert (game.result, game.termination, game.rated) == ("1-0", "resignation", False)


def test_the_reply_to_ones_own_move_comes_once(pair):
    alice, bob = pair()
    alice.ask("#MOVIMIENTO#Alice#e4#")
    bob.line()
    assert alice.nothing_within(0.3)


def test_moves_are_read_as_san_or_uci(pair):
    alice, bob = pair()
    assert alice.ask("#MOVIMIENTO#Alice#e4#").startswith("#OK#N#")
    bob.line()
    assert bob.ask("#MOVIMIENTO#Bob#g8f6#").startswith("#OK#B#")
    alice.line()
    assert alice.ask("#MOVIMIENTO#Alice#Nc3#").startswith("#OK#N#")
    assert list(Move.objects.values_list("san", flat=True)) == ["e4", "Nf6", "Nc3"]


def test_check_mate_and_the_end_reach_both_players(pair):
    alice, bob = pair()
    for mover, other, text, state in [
        (alice, bob, "f3", "EN_JUEGO"),
        (bob, alice, "e5", "EN_JUEGO"),
        (alice, bob, "g4", "EN_JUEGO"),
    ]:
        name = "Alice" if mover is alice else "Bob"
        reply = mover.ask(f"#MOVIMIENTO#{name}#{text}#")
        assert reply.endswith(f"#{state}#")
        assert other.line() == reply
    mate = bob.ask("#MOVIMIENTO#Bob#Qh4#")
    assert mate.startswith("#OK#B#") and mate.endswith("#JAQUE_MATE#")
    assert bob.line() == "#FIN#GANADOR_N#"
    assert alice.line() == mate
    assert alice.line() == "#FIN#GANADOR_N#"
    assert Game.objects.get().result == "0-1"


def test_a_check_is_jaque(pair):
    alice, bob = pair()
    for mover, name, text in [(alice, "Alice", "e4"), (bob, "Bob", "f5"), (alice, "Alice", "Qh5")]:
        reply = mover.ask(f"#MOVIMIENTO#{name}#{text}#")
        (bob if mover is alice else alice).line()
    assert reply.endswith("#JAQUE#")


def test_consultartablero_answers_board_then_turn(pair):
    alice, bob = pair()
    assert bob.ask("#CONSULTARTABLERO#Bob#") == f"#OK#{START}#B#"
    alice.ask("#MOVIMIENTO#Alice#e4#")
    assert bob.line().startswith("#OK#N#")
    assert bob.ask("#CONSULTARTABLERO#Bob#") == f"#OK#{AFTER_E4}#N#"


def test_historial_lists_the_moves_in_san_with_mate_as_double_plus(pair):
    alice, bob = pair()
    assert alice.ask("#HISTORIAL#Alice#") == "#OK#"
    for mover, name, text in [(alice, "Alice", "f3"), (bob, "Bob", "e5"), (alice, "Alice", "g4")]:
        mover.ask(f"#MOVIMIENTO#{name}#{text}#")
        (bob if mover is alice else alice).line()
    assert bob.ask("#HISTORIAL#Bob#") == "#OK#f3#e5#g4#"
    game = Game.objects.get()
    bob.ask("#MOVIMIENTO#Bob#Qh4#")
    # Finished: its history by the game's id.
    assert bob.line() == "#FIN#GANADOR_N#"
    assert bob.ask(f"#HISTORIAL#{game.public_id}#") == "#OK#f3#e5#g4#Qh4++#"


# --------------------------------------------------------------------------- refusals


def test_refusals_before_registering(connect):
    client = connect()
    assert client.ask("#MOVIMIENTO#Alice#e4#") == "#NOK#No inscrito#"
    assert client.ask("#CONSULTARTABLERO#Alice#") == "#NOK#No inscrito#"
    assert client.ask("#RENDIRSE#Alice#") == "#NOK#No inscrito#"
    assert client.ask("#HISTORIAL#Alice#") == "#NOK#Partida no encontrada#"


def test_refusals_while_waiting_for_an_opponent(connect):
    client = connect()
    assert client.ask("#INSCRIBIR#Alice#") == "#OK#B#"
    assert client.ask("#MOVIMIENTO#Alice#e4#") == "#NOK#Partida no iniciada#"
    assert client.ask("#CONSULTARTABLERO#Alice#") == "#NOK#Partida no iniciada#"
    assert client.ask("#RENDIRSE#Alice#") == "#NOK#Partida no iniciada#"
    assert client.ask("#HISTORIAL#Alice#") == "#NOK#Partida no iniciada#"
    assert client.ask("#INSCRIBIR#Other#") == "#NOK#Ya inscrito#"
    assert not Game.objects.exists()


def test_a_name_in_use_is_refused_as_duplicate(connect):
    first, second = connect(), connect()
    assert first.ask("#INSCRIBIR#Alice#") == "#OK#B#"
    assert second.ask("#INSCRIBIR#Alice#") == "#NOK#Nombre duplicado#"
    assert not Game.objects.exists()


def test_a_name_is_free_again_once_its_connection_closes(connect):
    first = connect()
    assert first.ask("#INSCRIBIR#Alice#") == "#OK#B#"
    first.close()
    second = connect()
    for _ in range(50):
        reply = second.ask("#INSCRIBIR#Alice#")
        if reply != "#NOK#Nombre duplicado#":
            break
    assert reply == "#OK#B#"


def test_the_wrong_code_and_the_wrong_turn_are_refused(pair):
    alice, bob = pair()
    assert alice.ask("#MOVIMIENTO#Bob#e4#") == "#NOK#Código incorrecto#"
    assert alice.ask("#MOVIMIENTO#12345#e4#") == "#NOK#Código incorrecto#"
    assert bob.ask("#MOVIMIENTO#Bob#e5#") == "#NOK#No es tu turno#"
    assert bob.ask("#RENDIRSE#Alice#") == "#NOK#Código incorrecto#"
    assert not Move.objects.exists()
    assert Game.objects.get().is_active


@pytest.mark.parametrize("text", ["e7e5e5", "e2e5", "Qh5", "--", "0000", "Q@e4", "zz", "é4"])
def test_moves_that_are_not_legal_here_are_refused(pair, text):
    alice, _bob = pair()
    assert alice.ask(f"#MOVIMIENTO#Alice#{text}#") == "#NOK#Movimiento inválido#"
    assert not Move.objects.exists()


@pytest.mark.parametrize(
    ("line", "reply"),
    [
        ("", "#NOK#Mensaje mal formado#"),
        ("INSCRIBIR#Alice#", "#NOK#Mensaje mal formado#"),
        ("#INSCRIBIR#Alice", "#NOK#Mensaje mal formado#"),
        ("#", "#NOK#Mensaje mal formado#"),
        ("##", "#NOK#Comando desconocido#"),
        ("#JUGAR#x#", "#NOK#Comando desconocido#"),
        ("#PARTIDAS#x#", "#NOK#Mensaje mal formado: PARTIDAS no lleva campos#"),
        ("#INSCRIBIR#", "#NOK#Mensaje mal formado: INSCRIBIR lleva el nombre y, si se quiere "
         "reloj, los dias por jugada#"),
        ("#INSCRIBIR#a#b#", "#NOK#Reloj inválido: días por jugada 1, 2, 3, 5, 7, 10, 14#"),
        (
            "#MOVIMIENTO#Alice#",
            "#NOK#Mensaje mal formado: MOVIMIENTO lleva el codigo y el movimiento#",
        ),
        ("#INSCRIBIR# #", "#NOK#Campo vacío#"),
        ("#INSCRIBIR#a\tb#", "#NOK#Mensaje mal formado#"),
        ("#INSCRIBIR#dos palabras#", "#NOK#Nombre inválido#"),
        ("#INSCRIBIR#" + "a" * 31 + "#", "#NOK#Nombre inválido#"),
        ("#INSCRIBIR#ñandú#", "#NOK#Nombre inválido#"),
        ("#INSCRIBIR#a@b#", "#NOK#Nombre inválido#"),
    ],
)
def test_malformed_lines_get_one_refusal_and_change_nothing(connect, line, reply):
    client = connect()
    assert client.ask(line) == reply
    assert client.ask("#INSCRIBIR#Alice#") == "#OK#B#"
    assert User.objects.count() == 1


def test_a_line_that_is_not_utf8_is_refused(connect):
    client = connect()
    client.send_raw(b"#INSCRIBIR#\xff\xfe#\n")
    assert client.line() == "#NOK#El mensaje no es UTF-8#"


def test_an_overlong_line_is_refused_and_the_session_goes_on(connect):
    client = connect()
    client.send("#INSCRIBIR#" + "a" * 5000 + "#")
    assert client.line() == "#NOK#Línea demasiado larga#"
    assert client.ask("#INSCRIBIR#Alice#") == "#OK#B#"


def test_a_line_just_under_the_limit_is_read(connect):
    client = connect()
    client.send("#INSCRIBIR#" + "a" * (512 - 12) + "#")
    assert client.line() == "#NOK#Nombre inválido#"


def test_commands_are_read_in_any_case_and_with_crlf(connect):
    client = connect()
    client.send_raw(b"#inscribir#Alice#\r\n")
    assert client.line() == "#OK#B#"


# --------------------------------------------------------------------------- extensions


def test_partidas_lists_the_games_in_progress(pair, connect):
    pair("Alice", "Bob")
    pair("Carol", "Dave")
    listing = connect().ask("#PARTIDAS#")
    games = Game.objects.order_by("-updated_at")
    expected = "".join(f"{g.public_id}#{g.white.username}#{g.black.username}#" for g in games)
    assert listing == "#OK#" + expected


def test_a_watcher_sees_the_moves_and_the_end(pair, connect):
    alice, bob = pair()
    game = Game.objects.get()
    watcher = connect()
    assert watcher.ask(f"#OBSERVAR#{game.public_id}#") == f"#OK#B#{START}#EN_JUEGO#"
    assert watcher.ask("#INSCRIBIR#Carol#") == "#NOK#Ya inscrito#"
    alice.ask("#MOVIMIENTO#Alice#e4#")
    assert watcher.line() == f"#OK#N#{AFTER_E4}#EN_JUEGO#"
    bob.line()
    bob.ask("#RENDIRSE#Bob#")
    assert watcher.line() == "#OK#B#"
    assert watcher.line() == "#FIN#GANADOR_B#"
    # Done watching: it may register now.
    assert watcher.ask("#INSCRIBIR#Carol#") == "#OK#B#"


def test_a_watcher_who_leaves_sees_nothing_more(pair, connect):
    alice, bob = pair()
    game = Game.objects.get()
    watcher = connect()
    watcher.ask(f"#OBSERVAR#{game.public_id}#")
    assert watcher.ask("#DEJAR#") == "#OK#"
    alice.ask("#MOVIMIENTO#Alice#e4#")
    bob.line()
    assert watcher.nothing_within(0.3)


@pytest.mark.parametrize("target", ["P9999999", "X1", "P", "42"])
def test_watching_a_game_that_does_not_exist_is_refused(connect, target):
    assert connect().ask(f"#OBSERVAR#{target}#") == "#NOK#Partida no encontrada#"


def test_watching_a_finished_game_is_refused(pair, connect):
    _alice, bob = pair()
    bob.ask("#RENDIRSE#Bob#")
    game = Game.objects.get()
    assert connect().ask(f"#OBSERVAR#{game.public_id}#") == "#NOK#La partida ha terminado#"


# --------------------------------------------------------------------------- pairing


def test_many_games_at_once_pair_registrants_as_they_arrive(connect):
    clients = [connect() for _ in range(12)]
    replies = []
    for index, client in enumerate(clients):
        replies.append(client.ask(f"#INSCRIBIR#p{index}#"))
    assert replies == ["#OK#B#", "#OK#N#"] * 6
    for client in clients:
        assert client.line() == f"#INICIO#B#{START}#"
    games = Game.objects.order_by("pk")
    assert [(g.white.username, g.black.username) for g in games] == [
        (f"p{i}@distribuido", f"p{i + 1}@distribuido") for i in range(0, 12, 2)
    ]
    # Every game independently: each white plays e4 in parallel, only its black hears it.
    errors: list[BaseException] = []

    def play(index: int) -> None:
        try:
            white, black = clients[index], clients[index + 1]
            assert white.ask(f"#MOVIMIENTO#p{index}#e4#") == f"#OK#N#{AFTER_E4}#EN_JUEGO#"
            assert black.line() == f"#OK#N#{AFTER_E4}#EN_JUEGO#"
            assert black.ask(f"#RENDIRSE#p{index + 1}#") == "#OK#B#"
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(i,)) for i in range(0, 12, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors
    assert Game.objects.filter(status="finished", result="1-0").count() == 6


def test_a_player_may_register_again_after_the_end(pair):
    alice, bob = pair()
    bob.ask("#RENDIRSE#Bob#")
    assert bob.line() == "#FIN#GANADOR_B#"
    assert alice.line() == "#OK#B#" and alice.line() == "#FIN#GANADOR_B#"
    assert alice.ask("#MOVIMIENTO#Alice#e4#") == "#NOK#No inscrito#"
    assert alice.ask("#INSCRIBIR#Alice#") == "#OK#B#"
    assert bob.ask("#INSCRIBIR#Bob#") == "#OK#N#"
    assert bob.line() == f"#INICIO#B#{START}#"
    assert Game.objects.count() == 2


def test_a_guest_who_disconnects_loses_the_game_and_the_opponent_is_told(pair):
    alice, bob = pair()
    assert alice.ask("#MOVIMIENTO#Alice#e4#").startswith("#OK#N#")
    assert bob.line().startswith("#OK#N#")
    assert bob.ask("#MOVIMIENTO#Bob#e5#").startswith("#OK#B#")
    assert alice.line().startswith("#OK#B#")
    alice.close()
    assert bob.line() == "#FIN#GANADOR_N#"
    game = Game.objects.get()
    assert (game.result, game.termination) == ("0-1", "abandonment")


def test_a_guest_who_disconnects_before_a_first_move_aborts_the_game(pair):
    alice, bob = pair()
    alice.close()
    # No result: leaving before one's first move wins the opponent nothing.
    assert bob.line() == "#FIN#ANULADA#"
    game = Game.objects.get()
    assert (game.result, game.termination) == ("*", "aborted")


def test_the_waiting_registrant_leaving_frees_the_seat(connect):
    first = connect()
    first.ask("#INSCRIBIR#Alice#")
    first.close()
    second = connect()
    # Until the server has seen the close, the seat may still be taken: never paired with
    # a closed connection, though.
    assert second.ask("#INSCRIBIR#Bob#") in ("#OK#B#", "#OK#N#")
    third = connect()
    reply = third.ask("#INSCRIBIR#Carol#")
    if reply == "#OK#N#":
        assert third.line() == f"#INICIO#B#{START}#"
        assert {g.white.username for g in Game.objects.all()} <= {"Bob@distribuido"}


def test_a_silent_client_does_not_block_the_others(pair, connect):
    silent = connect()
    silent.send_raw(b"#INSCRIBIR#hal")  # half a line, then nothing
    mute = connect()  # connected, says nothing
    alice, bob = pair()
    assert alice.ask("#MOVIMIENTO#Alice#e4#").startswith("#OK#N#")
    assert bob.line().startswith("#OK#N#")
    assert bob.ask("#RENDIRSE#Bob#") == "#OK#B#"
    assert silent.nothing_within(0.1) and mute.nothing_within(0.1)


# --------------------------------------------------------------------------- guests policy


def test_with_guests_off_only_linked_names_register(gateway, connect, alice, settings):
    GatewayPolicy.objects.create(gateway="distribuido", guests_allowed=False)
    client = connect()
    assert client.ask("#INSCRIBIR#Stranger#") == (
        "#NOK#Solo juegan los nombres vinculados a una cuenta#"
    )
    LinkedName.objects.create(gateway="distribuido", name="ali", player=alice)
    # Linked, but the gateway requires no secret: the name is reserved, not alice's.
    assert client.ask("#INSCRIBIR#ali#") == "#NOK#Nombre reservado#"
    assert not User.objects.filter(username__contains="@").exists()


def test_a_gateway_with_a_secret_admits_only_who_sends_it(start_server, settings, alice, bob):
    settings.DISTRIBUIDO_MAX_PER_ADDRESS = 0
    runner = start_server(server_class=DistribuidoServer, secret="s3cr3t")
    LinkedName.objects.create(gateway="distribuido", name="ali", player=alice)
    LinkedName.objects.create(gateway="distribuido", name="bo", player=bob)
    alices, bobs = (make_gateway_key(player=player) for player in (alice, bob))
    white, black = LineClient(runner.port), LineClient(runner.port)
    try:
        assert white.ask("#INSCRIBIR#ali#") == "#NOK#Se requiere la clave (CLAVE)#"
        assert white.ask("#CLAVE#wrong#") == "#NOK#Clave incorrecta#"
        assert white.ask("#CLAVE#s3cr3t#") == "#OK#"
        assert white.ask(f"#INSCRIBIR#ali:{alices}#") == "#OK#B#"
        assert black.ask("#CLAVE#s3cr3t#") == "#OK#"
        assert black.ask(f"#INSCRIBIR#bo:{bobs}#") == "#OK#N#"
        assert black.line() == white.line() == f"#INICIO#B#{START}#"
        game = Game.objects.get()
        # Linked names play as their accounts: a rated game, theirs.
        assert (game.white, game.black, game.rated) == (alice, bob, True)
        # A linked account's connection closing does not end its game.
        white.close()
        assert black.nothing_within(0.5)
        game.refresh_from_db()
        assert game.is_active
    finally:
        white.close()
        black.close()


def test_linked_accounts_play_here_only_within_the_games_per_pair(
    start_server, settings, alice, bob, game
):
    # alice and bob already play a game on the web: at the default limit of one game per
    # pair their linked names are not paired again; once the site allows two, they are.
    settings.DISTRIBUIDO_MAX_PER_ADDRESS = 0
    runner = start_server(server_class=DistribuidoServer, secret="s3cr3t")
    LinkedName.objects.create(gateway="distribuido", name="ali", player=alice)
    LinkedName.objects.create(gateway="distribuido", name="bo", player=bob)
    alices, bobs = (make_gateway_key(player=player) for player in (alice, bob))
    white, black = LineClient(runner.port), LineClient(runner.port)
    try:
        for client in (white, black):
            assert client.ask("#CLAVE#s3cr3t#") == "#OK#"
        assert white.ask(f"#INSCRIBIR#ali:{alices}#") == "#OK#B#"
        assert black.ask(f"#INSCRIBIR#bo:{bobs}#") == (
            "#NOK#Estos jugadores ya tienen en curso las partidas que el sitio permite#"
        )
        services.set_site_rules(games_per_pair=2)
        assert black.ask(f"#INSCRIBIR#bo:{bobs}#") == "#OK#N#"
        assert black.line() == white.line() == f"#INICIO#B#{START}#"
        assert Game.objects.filter(status="active").count() == 2
    finally:
        white.close()
        black.close()


# --------------------------------------------------------------------------- the docs


def test_the_documented_session_is_what_the_server_says(connect):
    """docs/protocols/distribuido.md's full session, replayed line by line."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs/protocols/distribuido.md").read_text()
    block = doc.split("## A full session", 1)[1].split("```", 2)[1]
    clients = {name: connect() for name in "ABC"}
    steps = [line for line in block.splitlines() if line[:1] in clients]
    assert len(steps) > 30
    for step in steps:
        who, kind, text = step[0], step[1], step[3:]
        if "P0000007" in text:
            text = text.replace("P0000007", Game.objects.get().public_id)
        if kind == ">":
            clients[who].send(text)
        else:
            assert clients[who].line() == text, step


def test_a_client_that_does_not_read_what_is_pushed_is_dropped(gateway, connect):
    """A push the client does not read within the write timeout closes its connection,
    and the server serves the others meanwhile."""
    server = gateway.server
    server.write_timeout = 0.5
    reader_that_never_reads = connect()
    assert reader_that_never_reads.ask("#PARTIDAS#") == "#OK#"

    async def push_a_flood() -> None:
        (conn,) = server._connections.values()
        await server.push(conn, b"#OK#" + b"x" * 20_000_000 + b"#\n")

    gateway.call(push_a_flood(), timeout=30)
    assert connect().ask("#PARTIDAS#") == "#OK#"
    assert reader_that_never_reads.closed_by_server(timeout=10)


# --------------------------------------------------------------------------- the clock


def test_registrants_are_paired_by_the_clock_they_ask_for(connect):
    untimed, three, other_three = connect(), connect(), connect()
    assert untimed.ask("#INSCRIBIR#Ann#") == "#OK#B#"
    assert three.ask("#INSCRIBIR#Tom#3#") == "#OK#B#"  # not paired with Ann: no clock there
    assert other_three.ask("#INSCRIBIR#Sue#3#") == "#OK#N#"
    assert other_three.line() == f"#INICIO#B#{START}#"
    assert three.line() == f"#INICIO#B#{START}#"
    game = Game.objects.get()
    assert (game.white.username, game.black.username) == ("Tom@distribuido", "Sue@distribuido")
    assert game.days_per_move == 3 and game.deadline is not None
    assert untimed.nothing_within(0.1)  # still waiting for an opponent without a clock


def test_a_clock_no_time_control_has_is_refused_and_nothing_registers(connect):
    client = connect()
    assert client.ask("#INSCRIBIR#Ann#4#") == (
        "#NOK#Reloj inválido: días por jugada 1, 2, 3, 5, 7, 10, 14#"
    )
    assert client.ask("#INSCRIBIR#Ann#") == "#OK#B#"  # the name was not taken



def test_keys_no_honest_client_sends_are_refused_and_the_connection_goes_on(
    start_server, settings, alice
):
    settings.DISTRIBUIDO_MAX_PER_ADDRESS = 0
    runner = start_server(server_class=DistribuidoServer, secret="s3cr3t")
    LinkedName.objects.create(gateway="distribuido", name="ali", player=alice)
    key = make_gateway_key(player=alice)
    client = LineClient(runner.port)
    try:
        assert client.ask("#CLAVE#s3cr3t#") == "#OK#"
        for sent in (
            "ali:",  # an empty key
            "ali:" + "k" * 5000,  # a huge one
            "ali:ключ-λ-🔑",  # unicode
            f"ali:{key}:{key}",  # a key with a colon in it
            f"ali:{key[:-1]}",  # one character short
        ):
            reply = client.ask(f"#INSCRIBIR#{sent}#")
            assert reply.startswith("#NOK#"), (sent[:40], reply)
            assert key not in reply
        # Nothing was registered or played meanwhile, and the right key still works (the
        # wire trims the spaces around a field, the key's as the name's).
        assert not Game.objects.exists()
        assert client.ask(f"#INSCRIBIR#ali:{key} #") == "#OK#B#"
    finally:
        client.close()
