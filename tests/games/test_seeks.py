"""Open challenges (seeks): made with days, colour, rated and a rating range; taken by
one other player the range admits; refused with a clear reason otherwise."""

from __future__ import annotations

from functools import partial

import pytest

from accounts.models import BotAccount
from games import errors, services
from games.models import Game, Notification, NotificationKind, Seek
from ranking.models import PlayerRecord
from tests.games.test_concurrency import race


def rated(player, rating: float) -> None:
    PlayerRecord.objects.update_or_create(player=player, defaults={"rating": rating})


def test_a_seek_is_made_with_its_terms(alice):
    made = services.create_seek(
        maker=alice, days_per_move=3, colour="white", rated=False, rating_min=1400, rating_max=1700
    )
    assert (made.status, made.days_per_move, made.colour, made.rated) == ("open", 3, "white", False)
    assert (made.rating_min, made.rating_max) == (1400, 1700)


def test_taking_a_seek_starts_its_game_with_the_makers_colour(alice, bob):
    made = services.create_seek(maker=alice, days_per_move=5, colour="black")
    game = services.accept_seek(seek_id=made.pk, player=bob)
    assert (game.white, game.black, game.days_per_move) == (bob, alice, 5)
    assert game.short_id == made.short_id
    made.refresh_from_db()
    assert made.status == Seek.Status.TAKEN and made.game == game


def test_the_maker_is_notified_when_their_seek_is_taken(alice, bob):
    made = services.create_seek(maker=alice, days_per_move=1)
    game = services.accept_seek(seek_id=made.pk, player=bob)
    assert Notification.objects.filter(
        recipient=alice, kind=NotificationKind.CHALLENGE_ACCEPTED, game=game
    ).exists()


def test_a_random_seek_lets_the_acceptor_ask_for_a_colour(alice, bob):
    made = services.create_seek(maker=alice, days_per_move=2, colour="random")
    game = services.accept_seek(seek_id=made.pk, player=bob, colour="white")
    assert game.white == bob


def test_asking_for_the_makers_colour_is_refused(alice, bob):
    made = services.create_seek(maker=alice, days_per_move=2, colour="white")
    with pytest.raises(errors.ColourChosenByChallenger):
        services.accept_seek(seek_id=made.pk, player=bob, colour="white")


def test_own_seek_cannot_be_taken(alice):
    made = services.create_seek(maker=alice, days_per_move=3)
    with pytest.raises(errors.OwnSeek):
        services.accept_seek(seek_id=made.pk, player=alice)


@pytest.mark.parametrize("rating", [1399, 1701])
def test_a_player_outside_the_range_is_refused(alice, bob, rating):
    rated(bob, rating)
    made = services.create_seek(maker=alice, days_per_move=3, rating_min=1400, rating_max=1700)
    with pytest.raises(errors.OutOfRatingRange):
        services.accept_seek(seek_id=made.pk, player=bob)
    assert Seek.objects.get(pk=made.pk).status == Seek.Status.OPEN


@pytest.mark.parametrize("rating", [1400, 1700])
def test_the_ends_of_the_range_are_inside(alice, bob, rating):
    rated(bob, rating)
    made = services.create_seek(maker=alice, days_per_move=3, rating_min=1400, rating_max=1700)
    assert services.accept_seek(seek_id=made.pk, player=bob)


def test_the_games_per_pair_rule_refuses_a_second_game(alice, bob, game):
    made = services.create_seek(maker=alice, days_per_move=3)
    with pytest.raises(errors.ActiveGameExists):
        services.accept_seek(seek_id=made.pk, player=bob)
    assert Seek.objects.get(pk=made.pk).status == Seek.Status.OPEN


def test_a_taken_seek_cannot_be_taken_again(alice, bob, carol):
    made = services.create_seek(maker=alice, days_per_move=3)
    services.accept_seek(seek_id=made.pk, player=bob)
    with pytest.raises(errors.SeekTaken):
        services.accept_seek(seek_id=made.pk, player=carol)


def test_a_cancelled_seek_cannot_be_taken(alice, bob):
    made = services.create_seek(maker=alice, days_per_move=3)
    services.cancel_seek(seek_id=made.pk, player=alice)
    with pytest.raises(errors.SeekCancelled):
        services.accept_seek(seek_id=made.pk, player=bob)


def test_only_the_maker_may_cancel(alice, bob):
    made = services.create_seek(maker=alice, days_per_move=3)
    with pytest.raises(errors.SeekNotFound):
        services.cancel_seek(seek_id=made.pk, player=bob)


def test_an_unknown_seek_is_not_found(bob):
    with pytest.raises(errors.SeekNotFound):
        services.accept_seek(seek_id=999999, player=bob)


def test_open_seeks_are_capped_per_player(alice, settings):
    settings.SEEKS_PER_PLAYER = 2
    for _ in range(2):
        services.create_seek(maker=alice, days_per_move=3)
    with pytest.raises(errors.TooManySeeks):
        services.create_seek(maker=alice, days_per_move=3)
    assert Seek.objects.filter(maker=alice).count() == 2


def test_a_cancelled_seek_frees_its_place_under_the_cap(alice, settings):
    settings.SEEKS_PER_PLAYER = 1
    first = services.create_seek(maker=alice, days_per_move=3)
    services.cancel_seek(seek_id=first.pk, player=alice)
    assert services.create_seek(maker=alice, days_per_move=3)


def test_bots_may_not_make_seeks(alice):
    BotAccount.objects.create(player=alice)
    with pytest.raises(errors.BotsCannotSeek):
        services.create_seek(maker=alice, days_per_move=3)


def test_bots_may_not_take_seeks(alice, bob):
    made = services.create_seek(maker=alice, days_per_move=3)
    BotAccount.objects.create(player=bob)
    with pytest.raises(errors.BotsCannotSeek):
        services.accept_seek(seek_id=made.pk, player=bob)


@pytest.mark.parametrize(
    "terms, error",
    [
        ({"days_per_move": 4}, errors.InvalidTimeControl),
        ({"days_per_move": 0}, errors.InvalidTimeControl),
        ({"colour": "green"}, errors.InvalidColour),
        ({"colour": ""}, errors.InvalidColour),
        ({"rating_min": 1800, "rating_max": 1500}, errors.InvalidRatingRange),
        ({"rating_min": -1}, errors.InvalidRatingRange),
        ({"rating_max": 4001}, errors.InvalidRatingRange),
        ({"rating_max": True}, errors.InvalidRatingRange),
        ({"rating_min": "1500"}, errors.InvalidRatingRange),
        ({"name": "x" * 101}, errors.InvalidSeekName),
    ],
)
def test_bad_terms_are_refused_and_nothing_is_stored(alice, terms, error):
    with pytest.raises(error):
        services.create_seek(maker=alice, **{"days_per_move": 3, **terms})
    assert not Seek.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_of_two_acceptors_at_once_exactly_one_wins(make_player):
    maker, first, second = make_player("maker"), make_player("first"), make_player("second")
    for _round in range(4):
        made = services.create_seek(maker=maker, days_per_move=3)
        outcomes = race(
            partial(services.accept_seek, seek_id=made.pk, player=first),
            partial(services.accept_seek, seek_id=made.pk, player=second),
        )
        games = [o for o in outcomes if isinstance(o, Game)]
        refusals = [o for o in outcomes if isinstance(o, errors.SeekTaken)]
        assert (len(games), len(refusals)) == (1, 1), outcomes
        assert Game.objects.filter(short_id=made.short_id).count() == 1
        # Free the pair for the next round.
        Game.objects.all().delete()


@pytest.mark.django_db(transaction=True)
def test_a_cancel_racing_an_accept_leaves_one_outcome(make_player):
    maker, taker = make_player("maker"), make_player("taker")
    made = services.create_seek(maker=maker, days_per_move=3)
    outcomes = race(
        lambda: services.accept_seek(seek_id=made.pk, player=taker),
        lambda: services.cancel_seek(seek_id=made.pk, player=maker),
    )
    made.refresh_from_db()
    if made.status == Seek.Status.TAKEN:
        assert isinstance(outcomes[1], errors.SeekTaken)
        assert Game.objects.count() == 1
    else:
        assert isinstance(outcomes[0], errors.SeekCancelled)
        assert not Game.objects.exists()
