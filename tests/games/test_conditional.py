"""Conditional moves: setting lines, the replies make_move plays, and what drops them."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine

from games import conditional, errors, services
from games.models import ConditionalLines, Game, Move
from ranking.models import RatingChange


def set_lines(game: Game, player, lines: object) -> list[list[str]]:
    """Set ``player``'s lines for the game's next move, as the game page sends them."""
    number = Game.objects.get(pk=game.pk).next_move_number
    return services.set_conditional_lines(
        game_id=game.pk, player=player, move_number=number, lines=lines
    )


def lines_of(game: Game, player) -> list[list[str]] | None:
    found = ConditionalLines.objects.filter(game=game, player=player).first()
    return None if found is None else found.lines


def sans(game: Game) -> list[str]:
    return list(Move.objects.filter(game=game).order_by("number").values_list("san", flat=True))


@pytest.fixture
def after_e4(game, play) -> Game:
    """alice (white) has played 1.e4: bob to move, alice may set lines."""
    return play(game, "e4")


def test_the_reply_is_played_at_once_and_the_rest_of_the_line_kept(after_e4, alice, bob, play):
    kept = set_lines(after_e4, alice, [["e5", "Nf3", "Nc6", "Bb5"], ["c7c5", "g1f3"]])
    assert kept == [["e7e5", "g1f3", "b8c6", "f1b5"], ["c7c5", "g1f3"]]
    returned = services.make_move(game_id=after_e4.pk, player=bob, move_number=2, move="e5")
    assert sans(after_e4) == ["e4", "e5", "Nf3"]
    assert returned.next_move_number == 4 and returned.colour_to_move == "black"
    reply = Move.objects.get(game=after_e4, number=3)
    after_e4.refresh_from_db()
    assert after_e4.fen == reply.fen_after == returned.fen
    assert after_e4.last_move_san == "Nf3"
    # The c5 line no longer fits; the Ruy Lopez goes on from black's 2nd move.
    stored = ConditionalLines.objects.get(game=after_e4, player=alice)
    assert (stored.lines, stored.from_move) == ([["b8c6", "f1b5"]], 4)
    play(after_e4, "Nc6")
    assert sans(after_e4)[-2:] == ["Nc6", "Bb5"]
    assert lines_of(after_e4, alice) is None  # the line is spent


def test_a_different_move_drops_every_line_and_plays_nothing(after_e4, alice, bob):
    set_lines(after_e4, alice, [["e5", "Nf3"]])
    services.make_move(game_id=after_e4.pk, player=bob, move_number=2, move="d6")
    assert sans(after_e4) == ["e4", "d6"]
    assert lines_of(after_e4, alice) is None
    after_e4.refresh_from_db()
    assert after_e4.colour_to_move == "white"


def test_a_conditional_reply_that_mates_ends_and_rates_the_game(game, alice, bob, play):
    play(game, "e4", "e5", "Bc4", "Nc6", "Qh5")
    set_lines(game, alice, [["Nf6", "Qxf7#"]])
    returned = services.make_move(game_id=game.pk, player=bob, move_number=6, move="Nf6")
    game.refresh_from_db()
    assert sans(game)[-1] == "Qxf7#"
    assert (game.status, game.result, game.termination) == ("finished", "1-0", "checkmate")
    assert returned.status == "finished"
    assert RatingChange.objects.filter(game_id=game.pk).count() == 2
    assert not ConditionalLines.objects.filter(game=game).exists()


def test_the_reply_runs_the_clock_as_any_move(alice, bob):
    with time_machine.travel(dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC), tick=False):
        made = services.challenge(challenger=bob, challenged=alice, days_per_move=3)
        game = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
        services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
        set_lines(game, alice, [["e5", "Nf3"]])
    later = dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC)
    with time_machine.travel(later, tick=False):
        services.make_move(game_id=game.pk, player=bob, move_number=2, move="e5")
    game.refresh_from_db()
    reply = Move.objects.get(game=game, number=3)
    assert (reply.played_at, reply.think_seconds) == (later, 0)
    # Bob's clock now runs, with a full move's days.
    assert game.colour_on_clock == "black"
    assert game.deadline == later + dt.timedelta(days=3)


def test_a_pending_draw_offer_suspends_the_lines_until_it_is_answered(after_e4, alice, bob):
    set_lines(after_e4, alice, [["e5", "Nf3"]])
    services.offer_draw(game_id=after_e4.pk, player=alice)
    with pytest.raises(errors.DrawOfferPending):
        services.make_move(game_id=after_e4.pk, player=bob, move_number=2, move="e5")
    assert lines_of(after_e4, alice) == [["e7e5", "g1f3"]]
    # Lines can still be changed while the offer waits; they stay suspended.
    set_lines(after_e4, alice, [["e5", "Nc3"]])
    assert sans(after_e4) == ["e4"]
    services.answer_draw(game_id=after_e4.pk, player=bob, accept=False)
    services.make_move(game_id=after_e4.pk, player=bob, move_number=2, move="e5")
    assert sans(after_e4) == ["e4", "e5", "Nc3"]


def test_an_accepted_draw_drops_the_lines(after_e4, alice, bob):
    set_lines(after_e4, alice, [["e5", "Nf3"]])
    services.offer_draw(game_id=after_e4.pk, player=bob)
    services.answer_draw(game_id=after_e4.pk, player=alice, accept=True)
    assert not ConditionalLines.objects.exists()


@pytest.mark.parametrize("ending", ["resign", "abandon"])
def test_the_lines_go_when_the_game_ends(after_e4, alice, bob, ending):
    set_lines(after_e4, alice, [["e5", "Nf3"]])
    if ending == "resign":
        services.resign(game_id=after_e4.pk, player=bob)
    else:
        services.abandon_games(player=alice)
    assert not ConditionalLines.objects.exists()


def test_the_lines_go_when_time_runs_out(alice, bob):
    with time_machine.travel(dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC), tick=False):
        made = services.challenge(challenger=bob, challenged=alice, days_per_move=1)
        game = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
        services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
        services.make_move(game_id=game.pk, player=bob, move_number=2, move="e5")
        services.make_move(game_id=game.pk, player=alice, move_number=3, move="Nf3")
        set_lines(game, alice, [["Nc6", "Bb5"]])
    with time_machine.travel(dt.datetime(2026, 3, 5, tzinfo=dt.UTC), tick=False):
        assert services.expire_due_games() == 1
    assert not ConditionalLines.objects.exists()


def test_refused_on_the_owners_own_turn(game, alice):
    with pytest.raises(errors.ConditionalOnYourTurn):
        set_lines(game, alice, [["e4", "e5"]])
    assert not ConditionalLines.objects.exists()


@pytest.mark.parametrize("number", [1, 3, 0, -1, 10**9])
def test_lines_for_another_move_than_the_next_are_refused(after_e4, alice, number):
    with pytest.raises(errors.WrongMoveNumber) as refused:
        services.set_conditional_lines(
            game_id=after_e4.pk, player=alice, move_number=number, lines=[["e5", "Nf3"]]
        )
    assert refused.value.expected == 2
    assert lines_of(after_e4, alice) is None


def test_refused_to_someone_who_does_not_play(after_e4, carol):
    with pytest.raises(errors.NotAPlayer):
        set_lines(after_e4, carol, [["e5", "Nf3"]])
    with pytest.raises(errors.NotAPlayer):
        services.clear_conditional_lines(game_id=after_e4.pk, player=carol)


def test_refused_on_a_finished_game(after_e4, alice, bob):
    services.resign(game_id=after_e4.pk, player=bob)
    with pytest.raises(errors.GameFinished):
        set_lines(after_e4, alice, [["e5", "Nf3"]])


TOO_MANY = [["e5", "Nf3"]] * (conditional.MAX_LINES + 1)
TOO_LONG = [["Nf6", "Nf3", "Ng8", "Ng1"] * 5 + ["Nf6", "Nf3"]]


@pytest.mark.parametrize(
    ("lines", "says"),
    [
        (None, "list of lines"),
        ("e5 Nf3", "list of lines"),
        ({"e5": "Nf3"}, "list of lines"),
        ([None], "Line 1"),
        (["e5"], "Line 1"),
        ([[1, 2]], "Line 1"),
        ([[["e5"], "Nf3"]], "Line 1"),
        ([[]], "Line 1: a line is their move"),
        ([["e5"]], "Line 1: a line is their move"),
        ([["e5", "Nf3", "Nc6"]], "Line 1: a line is their move"),
        ([["e5", "Nf3"], ["Nf3", "e5"]], "Line 2: “Nf3” is not a legal move"),
        ([["e5", "Ke3"]], "Line 1: “Ke3” is not a legal move"),
        ([["e5", "e2e4"]], "not a legal move"),
        ([["e5", "x" * 5000]], "not a legal move"),
        ([["e5", "Nf3\u200b"]], "not a legal move"),
        ([["e5", "--"]], "not a legal move"),
        ([["e5", ""]], "not a legal move"),
        (TOO_MANY, "At most 20 lines"),
        (TOO_LONG, "at most 20 moves"),
        ([["e5", "Nf3"], ["e5", "Nc3"]], "different replies"),
        ([["e5", "Nf3", "Nc6", "Bb5"], ["e5", "Nf3", "Nc6", "Bc4"]], "different replies"),
    ],
)
def test_lines_that_cannot_be_kept_are_refused_and_change_nothing(after_e4, alice, lines, says):
    set_lines(after_e4, alice, [["d5", "exd5"]])
    with pytest.raises(errors.ConditionalLinesInvalid) as refused:
        set_lines(after_e4, alice, lines)
    assert says in refused.value.message
    assert lines_of(after_e4, alice) == [["d7d5", "e4d5"]]


def test_a_line_that_goes_on_after_mate_is_refused(game, alice, play):
    play(game, "e4", "e5", "Bc4", "Nc6", "Qh5")
    with pytest.raises(errors.ConditionalLinesInvalid) as refused:
        set_lines(game, alice, [["Nf6", "Qxf7#", "Ke7", "Qe6#"]])
    assert "over before" in refused.value.message


def test_an_ambiguous_move_is_refused_with_its_readings(game, alice, bob, play):
    # After 1.Nc3 a6 2.e3 a5 both white knights reach e2.
    play(game, "Nc3", "a6", "e3", "a5")
    with pytest.raises(errors.ConditionalLinesInvalid) as refused:
        set_lines(game, bob, [["Ne2", "a4"]])
    assert "Nce2" in refused.value.message and "Nge2" in refused.value.message


def test_lines_that_agree_are_merged_into_one_tree(after_e4, alice, bob, play):
    kept = set_lines(
        after_e4,
        alice,
        [
            ["e5", "Nf3"],  # begins the next two: said by them already
            ["e5", "Nf3", "Nc6", "Bb5"],
            ["e5", "Nf3", "d6", "d4"],
            ["e5", "Nf3", "d6", "d4"],  # twice
        ],
    )
    assert sorted(kept) == [["e7e5", "g1f3", "b8c6", "f1b5"], ["e7e5", "g1f3", "d7d6", "d2d4"]]
    play(after_e4, "e5")
    assert sorted(lines_of(after_e4, alice)) == [["b8c6", "f1b5"], ["d7d6", "d2d4"]]
    play(after_e4, "d6")
    assert sans(after_e4)[-2:] == ["d6", "d4"]


def test_an_empty_list_clears_and_so_does_clear(after_e4, alice):
    set_lines(after_e4, alice, [["e5", "Nf3"]])
    assert set_lines(after_e4, alice, []) == []
    assert lines_of(after_e4, alice) is None
    set_lines(after_e4, alice, [["e5", "Nf3"]])
    services.clear_conditional_lines(game_id=after_e4.pk, player=alice)
    assert lines_of(after_e4, alice) is None


def test_a_reply_that_has_become_illegal_is_never_played(after_e4, alice, bob):
    set_lines(after_e4, alice, [["e5", "Nf3"]])
    # Stored lines from an older rule, or a bug: the reply is judged again before it is
    # played, as any move is.
    ConditionalLines.objects.update(lines=[["e7e5", "e1e3"]])
    services.make_move(game_id=after_e4.pk, player=bob, move_number=2, move="e5")
    assert sans(after_e4) == ["e4", "e5"]
    assert lines_of(after_e4, alice) is None
    after_e4.refresh_from_db()
    assert (after_e4.colour_to_move, after_e4.status) == ("white", "active")


def test_lines_set_for_an_earlier_move_never_fire(after_e4, alice, bob):
    set_lines(after_e4, alice, [["e5", "Nf3"]])
    ConditionalLines.objects.update(from_move=4)
    services.make_move(game_id=after_e4.pk, player=bob, move_number=2, move="e5")
    assert sans(after_e4) == ["e4", "e5"]


def test_the_reply_is_published_as_a_move_of_its_own(after_e4, alice, bob, monkeypatch):
    built: list = []
    monkeypatch.setattr(
        "games.events.publish_on_commit", lambda groups, build, then=(): built.append(build)
    )
    set_lines(after_e4, alice, [["e5", "Nf3"]])
    services.make_move(game_id=after_e4.pk, player=bob, move_number=2, move="e5")
    messages = [build() for build in built]
    assert [(m["event"], m["move"]["san"]) for m in messages] == [("move", "e5"), ("move", "Nf3")]
    # Each event speaks of the game as its own move left it.
    assert messages[1]["version"] == messages[0]["version"] + 1
    assert messages[0]["game"]["fen"] != messages[1]["game"]["fen"]
