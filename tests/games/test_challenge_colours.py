"""Who picks the colours: the challenged player when accepting (ESPOL's rule), or the
challenger when making the challenge (lichess's: white, black, random). The challenge
records which, every door shows it and honours it."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from games import errors, services, state
from games.models import Challenge, Game


def test_by_default_the_challenged_player_picks(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)

    assert (made.colour_choice, made.challenger_colour) == ("acceptor", "")
    game = services.accept_challenge(challenge_id=made.pk, player=bob, colour="black")
    assert (game.white, game.black) == (alice, bob)


def test_a_challenged_player_who_may_pick_but_names_no_colour_gets_one_at_random(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)

    game = services.accept_challenge(challenge_id=made.pk, player=bob, colour=None)

    assert {game.white, game.black} == {alice, bob}


@pytest.mark.parametrize("chosen, challenged_plays", [("white", "black"), ("black", "white")])
def test_a_challenger_who_chose_gets_that_colour(alice, bob, chosen, challenged_plays):
    made = services.challenge(challenger=alice, challenged=bob, colour=chosen)
    assert (made.colour_choice, made.challenger_colour) == (chosen, chosen)
    assert made.challenged_colour == challenged_plays

    game = services.accept_challenge(challenge_id=made.pk, player=bob, colour=None)

    assert game.colour_of(alice.pk) == chosen and game.colour_of(bob.pk) == challenged_plays


def test_the_challenged_player_may_name_the_colour_left_to_them(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob, colour="white")

    game = services.accept_challenge(challenge_id=made.pk, player=bob, colour="black")

    assert game.black == bob


def test_the_challenged_player_may_not_take_the_colour_the_challenger_chose(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob, colour="white")

    with pytest.raises(errors.ColourChosenByChallenger) as refused:
        services.accept_challenge(challenge_id=made.pk, player=bob, colour="white")

    assert "you play black" in refused.value.message
    assert Challenge.objects.get(pk=made.pk).status == "pending"
    assert not Game.objects.exists()


def test_random_is_drawn_once_when_the_challenge_is_made(alice, bob):
    drawn = {
        services.challenge(challenger=alice, challenged=player, colour="random").challenger_colour
        for player in [bob]
    }
    made = Challenge.objects.get()
    assert made.colour_choice == "random" and drawn == {made.challenger_colour}
    assert made.challenger_colour in ("white", "black")

    game = services.accept_challenge(challenge_id=made.pk, player=bob, colour=None)

    assert game.colour_of(alice.pk) == made.challenger_colour


@pytest.mark.parametrize("colour", ["", "purple", "WHITE", "acceptor ", "blanco", "\u0000"])
def test_an_unknown_choice_is_refused_and_nothing_is_made(alice, bob, colour):
    with pytest.raises(errors.InvalidColour):
        services.challenge(challenger=alice, challenged=bob, colour=colour)
    assert not Challenge.objects.exists()


@pytest.mark.parametrize("colour", ["", "purple", "random", "B"])
def test_an_unknown_colour_on_accepting_is_refused(alice, bob, colour):
    for chosen in ("acceptor", "white"):
        made = services.challenge(challenger=alice, challenged=bob, colour=chosen)
        with pytest.raises(errors.InvalidColour):
            services.accept_challenge(challenge_id=made.pk, player=bob, colour=colour)
        services.withdraw_challenge(challenge_id=made.pk, player=alice)
    assert not Game.objects.exists()


def test_the_database_keeps_the_colour_set_exactly_when_the_challenger_chose(alice, bob):
    with pytest.raises(IntegrityError), transaction.atomic():
        Challenge.objects.create(
            challenger=alice, challenged=bob, colour_choice="acceptor", challenger_colour="white"
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Challenge.objects.create(challenger=alice, challenged=bob, colour_choice="random")


def test_the_read_model_says_who_picks(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob, colour="black")

    shown = state.challenge_state(made)

    assert (shown["colour_choice"], shown["challenger_colour"]) == ("black", "black")
