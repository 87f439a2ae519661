"""Fair play at the gateways: no engine for a game in progress. None of the three legacy
protocols (ESPOL, the ``#`` protocol, chessirc) has a command that reaches the engine, so a
player in a game there who asks for one gets the protocol's refusal of an unknown command,
and nothing is queued for the engine: no analysis, no position. The game goes on."""

from __future__ import annotations

import pytest

from games.models import Game, GameAnalysis, PositionEvaluation
from legacy_tcp.chessirc.server import ChessircServer
from legacy_tcp.distribuido.server import DistribuidoServer
from legacy_tcp.espol.codec.codes import Code
from tests.protocols.conftest import code_of
from tests.protocols.lines import LineClient
from tests.protocols.test_chessirc import Bot, msg

pytestmark = pytest.mark.django_db(transaction=True)

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def nothing_for_the_engine() -> bool:
    return not GameAnalysis.objects.exists() and not PositionEvaluation.objects.exists()


@pytest.mark.parametrize(
    "line", ["ANAL:P0000001", "EVAL:P0000001", "MOTR:P0000001", "ANALISIS P0000001"]
)
def test_espol_has_no_engine_for_a_game_in_progress(login, alice, game, line):
    client = login(alice)
    assert code_of(client.send(line)) == Code.F_CMDINV
    assert nothing_for_the_engine()
    # The game goes on as before.
    assert code_of(client.send(f"STAT:{game.public_id}")) is not None
    assert Game.objects.get(pk=game.pk).is_active


@pytest.mark.parametrize(
    "line", ["#ANALIZAR#", "#EVALUAR#e4#", "#MOTOR#", f"#ANALIZAR#{START}#"]
)
def test_the_hash_protocol_has_no_engine_for_a_game_in_progress(start_server, settings, line):
    settings.DISTRIBUIDO_MAX_PER_ADDRESS = 0
    settings.DISTRIBUIDO_SECRET = ""
    runner = start_server(server_class=DistribuidoServer)
    white, black = LineClient(runner.port), LineClient(runner.port)
    try:
        assert white.ask("#INSCRIBIR#Alice#") == "#OK#B#"
        assert black.ask("#INSCRIBIR#Bob#") == "#OK#N#"
        black.line()
        white.line()
        assert white.ask(line).startswith("#NOK#")
        assert nothing_for_the_engine()
        assert white.ask("#CONSULTARTABLERO#Alice#") == f"#OK#{START}#B#"
    finally:
        white.close()
        black.close()


@pytest.mark.parametrize("line", ["ANALYSE", "EVAL", "ENGINE e4", "HINT"])
def test_chessirc_has_no_engine_for_a_game_in_progress(start_server, line):
    runner = start_server(server_class=ChessircServer)
    bot = Bot(runner.port)
    try:
        bot.request("SESSION #chess")
        bot.request("REGISTER a")
        bot.request("REGISTER b")
        assert "Blancas mueven" in bot.request("START a Default")
        assert bot.request(line) == msg("Orden desconocida.")
        assert nothing_for_the_engine()
        assert "Negras mueven" in bot.request("MOVE a e4")
    finally:
        bot.close()
