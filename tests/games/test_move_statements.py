"""The SQL statements of an ordinary move, written out one by one: a statement added to
the move's path shows here, in review, with the reason it is needed.

The tests run inside the test's transaction, where the move's ``transaction.atomic()``
is a savepoint: ``SAVEPOINT`` and ``RELEASE SAVEPOINT`` stand for the ``BEGIN`` and
``COMMIT`` of a move in production. What runs after the commit (the live event; the
unread count, read only when the recipient has a page open) is not counted.
"""

from __future__ import annotations

import re

from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import clock, services
from games.models import Game
from games.notifications import mark_read
from games.services import statements

TABLE = re.compile(r'(?:FROM|INTO|UPDATE) "(\w+)"')
SUBQUERY = re.compile(r"\(SELECT [^()]*\)")


def statement(sql: str) -> str:
    """``sql`` as its verb and the table it works on ("UPDATE games_game")."""
    verb = sql.split(None, 1)[0].upper()
    if verb == "SAVEPOINT":
        return "BEGIN"
    if verb == "RELEASE":
        return "COMMIT"
    # The table read or written, not those of a subquery in its columns.
    table = TABLE.search(SUBQUERY.sub("", sql))
    return f"{verb} {table.group(1) if table else '?'}"


def statements_of_next_move(game: Game, text: str) -> list[str]:
    game.refresh_from_db()
    player = game.white if game.colour_to_move == "white" else game.black
    # Both players have seen the earlier moves (the game's page marks them read): the
    # usual case in correspondence, where each player opens the game to answer it.
    mark_read(game.white_id)
    mark_read(game.black_id)
    with CaptureQueriesContext(connection) as captured:
        services.make_move(
            game_id=game.pk, player=player, move_number=game.next_move_number, move=text
        )
    return [statement(query["sql"]) for query in captured.captured_queries]


ORDINARY_MOVE = [
    # The game with both players and whether each is on vacation (for the clock it
    # sets, and the event), read and judged before the transaction.
    "SELECT games_game",
    "BEGIN",
    # The move's changes, matching only the version judged: the check and the lock.
    "UPDATE games_game",
    "INSERT games_move",
    # The opponent's "opponent moved", or the one unread of this game updated: one
    # INSERT … ON CONFLICT DO UPDATE.
    "INSERT games_notification",
    "COMMIT",
]


def test_an_ordinary_move_without_a_clock(alice, bob, start_game, play):
    game = play(start_game(alice, bob), "e4", "e5")
    assert game.deadline is None
    assert statements_of_next_move(game, "Nf3") == ORDINARY_MOVE


def test_a_game_with_conditional_lines_reads_them_on_each_move(alice, bob, start_game, play):
    game = play(start_game(alice, bob), "e4")
    # alice, waiting for black's move, sets a line answering ...e5 with Nf3.
    services.set_conditional_lines(
        game_id=game.pk, player=alice, move_number=2, lines=[["e5", "Nf3"]]
    )
    game.refresh_from_db()
    assert game.has_conditional_lines
    expected = list(ORDINARY_MOVE)
    # After the move: alice's lines, their reply played as her own move (its UPDATE and
    # INSERT), the spent line deleted and whether any other is left.
    expected[expected.index("INSERT games_move") + 1:expected.index("COMMIT")] = [
        "SELECT games_conditionallines",
        "DELETE games_conditionallines",
        "SELECT games_conditionallines",
        "UPDATE games_game",
        "UPDATE games_game",
        "INSERT games_move",
        "INSERT games_notification",
        "INSERT games_notification",
    ]
    assert statements_of_next_move(game, "e5") == expected
    game.refresh_from_db()
    assert (game.last_move_san, game.has_conditional_lines) == ("Nf3", False)


def test_an_ordinary_move_on_the_clock(alice, bob, play):
    challenge = services.challenge(challenger=bob, challenged=alice, days_per_move=3)
    game = services.accept_challenge(challenge_id=challenge.pk, player=alice, colour="white")
    game = play(game, "e4", "e5")
    assert game.deadline is not None
    # Whether the player the clock now waits for is on vacation (the clock then stops)
    # was read with the game: no statement more.
    assert statements_of_next_move(game, "Nf3") == ORDINARY_MOVE



# ------------------------------------------------------------------ the statements by hand


def fields_of(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def test_the_moves_own_read_gives_what_the_orm_reads(alice, bob, play):
    # Every kind of column a game and its players hold: dates, durations (SQLite stores
    # them as integers), booleans, nulls and text; read back as the ORM reads them.
    made = services.challenge(challenger=bob, challenged=alice, fischer=clock.Fischer(30, 1, 40))
    game = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
    game = play(game, "e4", "e5")
    assert game.white_bank is not None and game.deadline is not None
    by_hand = statements.read_game(game.pk)
    by_orm = Game.objects.select_related("white", "black").get(pk=game.pk)
    assert fields_of(by_hand) == fields_of(by_orm)
    assert fields_of(by_hand.white) == fields_of(by_orm.white)
    assert fields_of(by_hand.black) == fields_of(by_orm.black)
    assert by_hand.away_when_read == frozenset()
    assert statements.read_game(by_orm.pk + 1000) is None


def test_the_moves_own_read_says_who_is_on_vacation(alice, bob, start_game):
    game = start_game(alice, bob)
    services.start_vacation(player=bob)
    assert statements.read_game(game.pk).away_when_read == {bob.pk}
    services.start_vacation(player=alice)
    assert statements.read_game(game.pk).away_when_read == {alice.pk, bob.pk}


def test_a_move_sets_the_clock_of_an_opponent_on_vacation_paused(alice, bob, carol, play):
    def clocked(opponent):
        made = services.challenge(challenger=opponent, challenged=alice, days_per_move=3)
        return services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")

    away_game, other_game = clocked(bob), clocked(carol)
    services.start_vacation(player=bob)
    # Black's clock, set by the move, stands still from the start: bob is away.
    away_game = play(away_game, "e4")
    assert away_game.deadline is not None and away_game.paused_at is not None
    # carol is not: hers runs.
    other_game = play(other_game, "e4")
    assert other_game.deadline is not None and other_game.paused_at is None
