"""Openings: the vendored book, the opening kept on each game, naming stored games."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from games import openings, services
from games.models import Game


def test_the_book_names_thousands_of_positions_each_within_the_lookup_depth():
    book = openings.book()
    assert len(book) > 3000
    deepest = max(
        sum(1 for token in o.moves.split() if not token.endswith(".")) for o in book.values()
    )
    assert deepest <= openings.MAX_PLIES
    assert all(len(o.eco) == 3 and o.eco[0] in "ABCDE" for o in book.values())


def test_a_position_is_found_whatever_its_move_counters():
    french = "rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    assert openings.opening_at(french, 2) == openings.Opening("C00", "French Defense", "1. e4 e6")
    assert openings.opening_at(french.replace(" 0 2", " 7 30"), 2).eco == "C00"
    assert openings.opening_at(french, openings.MAX_PLIES + 1) is None
    assert openings.opening_at("8/8/8/8/8/8/8/K6k w - - 0 1", 2) is None


def test_a_game_keeps_the_last_named_opening_it_passed_through(game, play):
    play(game, "e4", "e6")
    game.refresh_from_db()
    assert (game.opening_eco, game.opening_name) == ("C00", "French Defense")
    play(game, "d4", "d5", "Nc3")
    game.refresh_from_db()
    assert game.opening_eco == "C10" and game.opening_name.startswith("French Defense")
    # A move past the book keeps the last name.
    play(game, "a6", "a3")
    game.refresh_from_db()
    assert game.opening_eco == "C10"


def test_a_transposition_gets_the_name_of_the_line_it_reaches(game, play):
    play(game, "Nf3", "d5", "d4")  # 1.Nf3 d5 2.d4 is 1.d4 d5 2.Nf3
    game.refresh_from_db()
    assert game.opening_eco == "D02"


def test_stored_games_without_an_opening_are_named_by_the_command(game, play, bob, carol,
                                                                   start_game):
    play(game, "e4", "c5")
    other = start_game(bob, carol)
    play(other, "h3")
    unnamed = start_game(carol, game.white)  # no move yet: nothing to name
    Game.objects.filter(pk__in=[game.pk, other.pk]).update(opening_eco="", opening_name="")
    out = io.StringIO()

    call_command("name_openings", "--batch-size", "1", stdout=out)

    assert out.getvalue().strip() == "2 games named"
    assert Game.objects.get(pk=game.pk).opening_name == "Sicilian Defense"
    assert Game.objects.get(pk=other.pk).opening_eco == "A00"
    assert Game.objects.get(pk=unnamed.pk).opening_eco == ""
    assert services.name_openings() == 0  # once named, nothing is left


def test_the_command_refuses_a_batch_size_below_one(db):
    with pytest.raises(CommandError, match="at least 1"):
        call_command("name_openings", "--batch-size", "0")
