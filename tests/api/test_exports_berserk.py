"""lichess's Games tag driven by berserk against a live ``manage.py serve``: a player's
games exported (ndjson and PGN, filtered and bounded), a game's moves streamed to a
watcher, a game imported and exported again, and the computer analysis in the export."""

# The live server's fixtures are test_berserk's, imported: pytest finds them by name.
# ruff: noqa: F811

from __future__ import annotations

import io

import chess.pgn
import pytest
from berserk.exceptions import ResponseError

from games import services
from games.models import Game
from tests.api.test_berserk import Lines, client_of, served  # noqa: F401 (fixtures)
from tests.games.test_analysis import engine_settings, run_the_queue  # noqa: F401

SCHOLARS_MATE = "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0"


@pytest.fixture
def finished(play):
    """``finished(white, black, *moves)``: a game played to its end (resigned by the
    side to move when the moves do not end it)."""

    def make(white, black, *moves: str) -> Game:
        made = services.challenge(challenger=white, challenged=black, colour="white")
        game = services.accept_challenge(challenge_id=made.pk, player=black, colour=None)
        game = play(game, *moves)
        if game.is_active:
            loser = game.white if game.colour_to_move == "white" else game.black
            game = services.resign(game_id=game.pk, player=loser)
        return game

    return make


def test_a_players_games_are_exported_latest_first_and_bounded_by_max(
    client_of, finished, alice, bob, carol
):
    first = finished(alice, bob, "e2e4", "e7e5")
    second = finished(carol, alice, "d2d4")
    third = finished(alice, carol, "f2f3", "e7e5", "g2g4", "d8h4")
    finished(bob, carol, "c2c4")  # not alice's

    client = client_of(carol)
    lines = list(client.games.export_by_player("Alice", as_pgn=False))
    assert [line["id"] for line in lines] == [third.short_id, second.short_id, first.short_id]
    assert lines[0]["status"] == "mate" and lines[0]["moves"] == "f3 e5 g4 Qh4#"

    bounded = list(client.games.export_by_player("alice", as_pgn=False, max=2, sort="dateAsc"))
    assert [line["id"] for line in bounded] == [first.short_id, second.short_id]


def test_the_export_of_a_players_games_is_filtered(client_of, finished, alice, bob, carol):
    as_white = finished(alice, bob, "e2e4")
    as_black = finished(carol, alice, "d2d4")
    ongoing = services.accept_challenge(
        challenge_id=services.challenge(challenger=alice, challenged=carol, colour="white").pk,
        player=carol, colour=None,
    )
    client = client_of(bob)

    def ids(**filters) -> list[str]:
        return [g["id"] for g in client.games.export_by_player("alice", as_pgn=False, **filters)]

    assert ids(color="white") == [as_white.short_id]
    assert ids(vs="CAROL") == [as_black.short_id]
    assert ids(vs="nobody-here") == []
    assert ids(finished=False, ongoing=True) == [ongoing.short_id]
    assert ids(rated=False) == []
    since = int(as_black.created_at.timestamp() * 1000)
    assert ids(since=since) == [as_black.short_id]
    assert ids(until=since - 1) == [as_white.short_id]


def test_a_players_games_are_exported_as_pgn_one_file_per_game(client_of, finished, alice, bob):
    finished(alice, bob, "e2e4", "e7e5")
    finished(bob, alice, "d2d4", "d7d5")

    texts = list(client_of(bob).games.export_by_player("alice", as_pgn=True))
    assert len(texts) == 2
    read = [chess.pgn.read_game(io.StringIO(text)) for text in texts]
    assert [game.headers["White"] for game in read] == ["bob", "alice"]
    assert "Opening" not in read[0].headers  # lichess: opening=false by default here


def test_a_watcher_streams_a_games_moves_until_it_ends(client_of, alice, bob, carol, play):
    made = services.challenge(challenger=alice, challenged=bob, colour="white")
    game = services.accept_challenge(challenge_id=made.pk, player=bob, colour=None)
    game = play(game, "e2e4")

    lines = Lines(client_of(carol).games.stream_game_moves(game.short_id))
    description = lines.next()
    assert (description["id"], description["turns"], description["lastMove"]) == (
        game.short_id, 1, "e2e4"
    )
    assert description["status"]["name"] == "started"
    assert lines.next()["fen"] == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w"
    after_e4 = lines.next()
    assert (after_e4["fen"], after_e4["lm"]) == (
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b", "e2e4"
    )
    assert set(after_e4) == {"fen", "lm", "wc", "bc"} and "analysis" not in description

    # Played through the served site: its channel layer tells the watcher.
    client_of(bob, "board:play").board.make_move(game.short_id, "e7e5")
    assert lines.next()["lm"] == "e7e5"
    client_of(alice, "board:play").board.resign_game(game.short_id)
    last = lines.next()
    assert (last["status"]["name"], last["winner"]) == ("resign", "black")
    assert lines.ended()


def test_a_finished_games_stream_gives_its_description_and_closes(
    client_of, finished, alice, bob, carol
):
    game = finished(alice, bob, "f2f3", "e7e5", "g2g4", "d8h4")
    lines = Lines(client_of(carol).games.stream_game_moves(game.short_id))
    assert lines.next()["status"]["name"] == "mate"
    assert lines.ended()


def test_streaming_no_game_is_404(client_of, carol):
    with pytest.raises(ResponseError) as refused:
        list(client_of(carol).games.stream_game_moves("zzzzzzzz"))
    assert refused.value.response.status_code == 404


def test_an_imported_game_is_finished_unrated_and_exportable(client_of, alice):
    pgn = f'[White "ALICE"]\n[Black "Kasparov, Garry"]\n[Result "1-0"]\n\n{SCHOLARS_MATE}\n'
    client = client_of(alice)

    answer = client.games.import_game(pgn)
    game = Game.objects.select_related("white", "black").get(short_id=answer["id"])
    assert answer["url"].endswith(f"/games/{game.short_id}/")
    assert (game.white, game.black.username) == (alice, "Kasparov_Garry@import")
    assert (game.status, game.result, game.termination, game.rated) == (
        "finished", "1-0", "checkmate", False
    )
    assert game.imported_by == alice
    exported = client.games.export(game.short_id, as_pgn=False)
    assert exported["moves"] == "e4 e5 Bc4 Nc6 Qh5 Nf6 Qxf7#" and exported["rated"] is False
    mine = list(client.games.export_by_player("alice", as_pgn=False))
    assert [g["id"] for g in mine] == [game.short_id]


def test_an_illegal_pgn_is_refused_with_its_reason(client_of, alice):
    with pytest.raises(ResponseError) as refused:
        client_of(alice).games.import_game("1. e4 e5 2. Ke3 1-0")
    assert refused.value.response.status_code == 400
    assert "illegal" in refused.value.response.json()["error"]


def test_the_export_carries_the_analysis_as_lichess(
    client_of, engine_settings, finished, alice, bob, carol
):
    # 3... Nf6?? lets White mate at once; 4. d3 misses it.
    game = finished(alice, bob, "e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "d3", "Nxh5")
    services.request_analysis(game_id=game.pk, player=carol)
    run_the_queue()
    client = client_of(carol)

    exported = client.games.export(game.short_id, as_pgn=False, evals=True)
    analysis = exported["analysis"]
    assert len(analysis) == 8
    assert analysis[5]["mate"] == 1  # after 3... Nf6: White mates in one
    missed = analysis[6]
    assert (missed["best"], missed["variation"]) == ("h5f7", "Qxf7#")
    assert missed["judgment"]["name"] == "Blunder"
    assert missed["judgment"]["comment"] == "Blunder. Qxf7# was best."
    white = exported["players"]["white"]["analysis"]
    assert white["blunder"] >= 1 and white["acpl"] > 0 and "accuracy" not in white

    with_accuracy = client.games.export(game.short_id, as_pgn=False, evals=False)
    assert "analysis" not in with_accuracy
    pgn = client.games.export(game.short_id, as_pgn=True)
    assert "[%eval #1]" in pgn and "$4" in pgn
    assert "[%eval" not in client.games.export(game.short_id, as_pgn=True, evals=False)
    lines = list(client.games.export_by_player("alice", as_pgn=False, evals=True))
    assert lines[0]["analysis"] == analysis
