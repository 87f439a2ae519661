"""Every ESPOL command over a real socket: its success reply and each failure code.

Failures also check that nothing changed in the database.
"""

from __future__ import annotations

import datetime as dt
import time

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts import services as account_services
from accounts.models import SubscriptionRequest
from games import services
from games.models import Challenge, Game, Move
from legacy_tcp.espol import codec as espol
from legacy_tcp.espol.codec import HELP_TEXT, fecha
from ranking.models import PlayerRecord
from tests.conftest import PASSWORD


def solicitudes(game: Game) -> tuple[int, int]:
    """STAT's solicitud_blancas and solicitud_negras of ``game``, as the gateway derives
    them from the stored game."""
    return espol.solicitudes(
        draw_offer_by=game.draw_offer_by, ended_by=game.ended_by, termination=game.termination
    )

pytestmark = pytest.mark.django_db(transaction=True)

User = get_user_model()


def gid(game: Game) -> str:
    return game.public_id


def fresh(game: Game) -> Game:
    return Game.objects.get(pk=game.pk)


# --------------------------------------------------------------------------- login


def test_user_known_is_accepted_with_its_name(connect, alice):
    reply = connect().send("USER:alice")
    assert (reply.code, reply.text) == (101, "alice")


def _login_answers(client, username: str, password: str) -> tuple[int, int]:
    return client.send(f"USER:{username}").code, client.send(f"PASS:{password}").code


def test_an_unknown_name_is_answered_as_a_wrong_password(connect, alice):
    # USER accepts every name; PASS refuses alike: nobody learns which names exist.
    assert _login_answers(connect(), "nobody", PASSWORD) == (101, 815)
    assert _login_answers(connect(), "alice", "wrong-one") == (101, 815)


def test_a_closed_account_is_answered_as_a_wrong_password(connect, make_player):
    make_player("gone", is_active=False)
    assert _login_answers(connect(), "gone", PASSWORD) == (101, 815)


def test_a_staff_account_does_not_play_over_espol(connect, make_player):
    make_player("warden", is_staff=True)
    assert _login_answers(connect(), "warden", PASSWORD) == (101, 815)


def test_pass_right_logs_in_with_102(connect, alice):
    client = connect()
    client.send("USER:alice")
    reply = client.send(f"PASS:{PASSWORD}")
    assert (reply.code, reply.text) == (102, "alice")


def test_pass_wrong_is_refused_with_815_and_leaves_the_session_logged_out(connect, alice, bob):
    client = connect()
    client.send("USER:alice")
    assert client.send("PASS:wrong-one").code == 815
    assert client.send("JUEG:bob").code == 803
    assert not Challenge.objects.exists()


def test_pass_may_be_retried_after_a_wrong_one(connect, alice):
    client = connect()
    client.send("USER:alice")
    client.send("PASS:wrong-one")
    assert client.send(f"PASS:{PASSWORD}").code == 102


def test_pass_without_user_gets_803(connect, alice):
    assert connect().send(f"PASS:{PASSWORD}").code == 803


def test_a_right_password_after_an_unknown_name_still_gets_815(connect, alice):
    client = connect()
    client.send("USER:nobody")
    assert client.send(f"PASS:{PASSWORD}").code == 815
    assert client.send("SRNK").code == 803


@pytest.mark.parametrize(
    "line",
    [
        "TRAN:00000000000",
        "JAUT:00000000000",
        "PPEN:00000000000",
        "JUEG:bob",
        "ACEP:B:bob",
        "SPAR:P0000001:0",
        "JGDA:P0000001:1:e2e4:0:1228:0",
        "TBLS:P0000001:bob",
        "RTBL:P0000001:S:bob",
        "REND:P0000001:bob",
        "FINP:P0000001:bob",
        "STAT:P0000001",
        "SRNK",
        "UNSU:alice:x",
        "JGDA:not-even-a-game",
    ],
)
def test_commands_before_login_get_803(connect, game, line):
    assert connect().send(line).code == 803
    assert fresh(game).version == game.version


def test_help_before_login_lists_every_command(connect, db):
    reply = connect().send("HELP")
    assert reply.code == 103
    assert reply.text == HELP_TEXT
    codes = {line.split(":")[0] for line in reply.text.split("\r\n")}
    assert codes == {
        "USER", "PASS", "SUBS", "UNSU", "TRAN", "JAUT", "PPEN", "JUEG", "ACEP", "SPAR",
        "JGDA", "TBLS", "RTBL", "REND", "FINP", "STAT", "SRNK", "HELP", "QUIT",
    }


def test_quit_gets_no_response_and_closes(connect, db):
    client = connect()
    client.send_raw(b"QUIT\r\n")
    assert client.sock.recv(100) == b""


def test_unknown_command_gets_801(login, alice):
    assert login(alice).send("MOVE:e2e4").code == 801


def test_lowercase_command_gets_801(login, alice):
    assert login(alice).send("quit").code == 801


def test_user_with_an_empty_name_gets_802(connect, alice):
    client = connect()
    assert client.send("USER:").code == 802
    assert client.send("USER:alice").code == 101


@pytest.mark.parametrize("line", ["JUEG:", "JUEG: ", "UNSU:alice", "UNSU:alice:"])
def test_missing_or_empty_fields_after_login_get_802(login, alice, bob, line):
    client = login(alice)
    assert client.send(line).code == 802
    assert not Challenge.objects.exists()
    alice.refresh_from_db()
    assert alice.is_active
    assert client.send("SRNK").code == 103  # still logged in


# Each malformed argument a command can carry, sent by a logged-in player who has a game
# in progress, so that a line slipping past the codec would reach a handler that could
# change something (or answer 820/830 instead of 802).
MALFORMED_AFTER_LOGIN = [
    "USER:alice:extra",
    "TRAN:", "TRAN:12a4", "TRAN:12345678901:1",
    "JAUT:", "JAUT:yesterday", "JAUT:123456789012",
    "PPEN:", "PPEN:-1",
    "JUEG:bob:extra",
    "ACEP:B", "ACEP:B:", "ACEP::bob", "ACEP:B:bob:extra",
    "SPAR:{gid}", "SPAR:{gid}:", "SPAR:{gid}:-1", "SPAR:0000001:0", "SPAR:P:0", "SPAR:Pabc:0",
    "JGDA:{gid}:1:e2e4:0:1228", "JGDA:{gid}:x:e2e4:0:1228:0", "JGDA:{gid}:1:e2e9:0:1228:0",
    "JGDA:{gid}:1:e2e4:2:1228:0", "JGDA:{gid}:1:e2e4:0:12:0", "JGDA:{gid}:1:e2e4:0:1228:6",
    "JGDA:game:1:e2e4:0:1228:0",
    "TBLS:{gid}", "TBLS:{gid}:", "TBLS::bob", "TBLS:1:bob", "TBLS:{gid}:bob:extra",
    "RTBL:{gid}:S", "RTBL:{gid}:S:", "RTBL:{gid}::bob", "RTBL:x:S:bob",
    "RTBS:{gid}:N", "RTBS:{gid}:s:bob",
    "REND:{gid}", "REND:{gid}:", "REND::bob", "REND:P0000001x:bob",
    "FINP:{gid}", "FINP:{gid}:", "FINP::bob", "FINP:{gid}:bob:extra",
    "STAT:", "STAT:{gid}:extra", "STAT:game",
    "SRNK:x", "QUIT:x", "HELP:x",
]


@pytest.mark.parametrize("template", MALFORMED_AFTER_LOGIN)
def test_malformed_arguments_get_802_and_change_nothing(login, alice, bob, game, template):
    line = template.format(gid=gid(game))
    before = fresh(game)
    challenges = list(Challenge.objects.values_list("pk", "status"))
    client = login(alice)
    reply = client.send(line)
    assert reply.code == 802, (line, reply)
    after = fresh(game)
    assert (after.fen, after.status, solicitudes(after)[0], solicitudes(after)[1]) == (
        before.fen,
        before.status,
        solicitudes(before)[0],
        solicitudes(before)[1],
    )
    assert not Move.objects.filter(game=game).exists()
    assert list(Challenge.objects.values_list("pk", "status")) == challenges
    assert client.send("SRNK").code == 103  # the session goes on, still logged in


def test_unexpected_error_before_login_gets_401_and_the_session_goes_on(
    connect, alice, monkeypatch
):
    from accounts import throttling

    real = throttling.authenticate

    def broken(*args, **kwargs):
        raise RuntimeError("database exploded")

    monkeypatch.setattr(throttling, "authenticate", broken)
    client = connect()
    assert client.send("USER:alice").code == 101
    assert client.send(f"PASS:{PASSWORD}").code == 401
    monkeypatch.setattr(throttling, "authenticate", real)
    assert client.send("USER:alice").code == 101
    assert client.send(f"PASS:{PASSWORD}").code == 102


def test_unexpected_error_in_a_draw_offer_gets_401_and_nothing_changes(
    login, alice, game, monkeypatch
):
    def broken(*args, **kwargs):
        raise RuntimeError("channel layer exploded")

    monkeypatch.setattr("games.services.draws.publish_game_event", broken)
    assert login(alice).send(f"TBLS:{gid(game)}:bob").code == 401
    assert (solicitudes(fresh(game))[0], fresh(game).version) == (0, game.version)


# --------------------------------------------------------------------------- SUBS / UNSU


def test_subs_records_a_request_with_only_a_password_hash(connect, db):
    reply = connect().send("SUBS:dora:dora-pass:Dora Explorer")
    assert (reply.code, reply.text) == (105, "dora")
    request = SubscriptionRequest.objects.get(username="dora")
    assert request.status == SubscriptionRequest.Status.PENDING
    assert request.comment == "Dora Explorer"
    assert "dora-pass" not in request.password_hash
    assert not User.objects.filter(username="dora").exists()


def test_subs_after_login_is_allowed(login, alice):
    assert login(alice).send("SUBS:dora:dora-pass:").code == 105


def test_subs_of_a_taken_name_gets_850(connect, alice):
    assert connect().send("SUBS:alice:whatever:").code == 850
    assert not SubscriptionRequest.objects.exists()


def test_subs_of_an_already_requested_name_gets_850(connect, db):
    connect().send("SUBS:dora:dora-pass:")
    assert connect().send("SUBS:dora:other-pass:").code == 850
    assert SubscriptionRequest.objects.count() == 1


def test_subs_of_an_unacceptable_name_gets_850(connect, db):
    assert connect().send("SUBS:no spaces!:pw:").code == 850
    assert not SubscriptionRequest.objects.exists()


def test_subs_without_a_password_gets_802(connect, db):
    assert connect().send("SUBS:dora").code == 802
    assert not SubscriptionRequest.objects.exists()


@pytest.mark.parametrize("line", ["SUBS:dora::Dora", "SUBS:dora: :", "SUBS::dora-pass:Dora"])
def test_subs_with_an_empty_name_or_password_gets_802_not_850(connect, db, line):
    assert connect().send(line).code == 802
    assert not SubscriptionRequest.objects.exists()


def test_a_fourth_subs_on_one_connection_gets_402_and_the_session_goes_on(connect, db):
    # The default limit: three per connection.
    client = connect()
    for name in ("dora", "emil", "fran"):
        assert client.send(f"SUBS:{name}:secret-pass:").code == 105
    reply = client.send("SUBS:gina:secret-pass:")
    assert reply.code == 402
    assert "this connection" in reply.text
    assert not SubscriptionRequest.objects.filter(username="gina").exists()
    assert client.send("HELP").code == 103
    # A new connection from the same address still has the address's allowance.
    assert connect().send("SUBS:gina:secret-pass:").code == 105


def test_subs_beyond_the_allowance_of_an_address_get_402_on_any_connection(
    connect, settings, db
):
    settings.SUBSCRIPTION_REQUESTS_PER_ADDRESS = 2
    assert connect().send("SUBS:dora:secret-pass:").code == 105
    assert connect().send("SUBS:emil:secret-pass:").code == 105
    reply = connect().send("SUBS:fran:secret-pass:")
    assert (reply.code, reply.text) == (
        402,
        "too many subscription requests from your address; try again in 60 min",
    )
    assert SubscriptionRequest.objects.count() == 2


def test_the_address_allowance_is_shared_by_the_web_and_espol(connect, client, settings, db):
    settings.SUBSCRIPTION_REQUESTS_PER_ADDRESS = 2
    assert connect().send("SUBS:dora:secret-pass:").code == 105
    assert connect().send("SUBS:emil:secret-pass:").code == 105
    password = "queen-gambit-77"
    response = client.post(
        reverse("subscribe"), {"username": "fran", "password1": password, "password2": password}
    )
    assert response.status_code == 429
    assert SubscriptionRequest.objects.count() == 2


def test_the_subs_limits_are_read_from_the_settings_at_each_command(connect, settings, db):
    settings.ESPOL_SUBSCRIPTIONS_PER_CONNECTION = 1
    client = connect()
    assert client.send("SUBS:dora:secret-pass:").code == 105
    assert client.send("SUBS:emil:secret-pass:").code == 402
    settings.ESPOL_SUBSCRIPTIONS_PER_CONNECTION = 0  # no limit per connection
    assert client.send("SUBS:emil:secret-pass:").code == 105


def test_unsu_ends_the_account_and_its_games_as_losses(login, alice, game, play):
    play(game, "e4", "e5")  # before one's first move, leaving aborts instead (below)
    client = login(alice)
    reply = client.send(f"UNSU:alice:{PASSWORD}")
    assert reply.code == 103
    alice.refresh_from_db()
    assert not alice.is_active
    assert fresh(game).result == "0-1"
    assert client.send("JUEG:bob").code == 803
    assert client.send("USER:alice").code == 101
    assert client.send(f"PASS:{PASSWORD}").code == 815


def test_unsu_with_a_wrong_password_gets_815_and_changes_nothing(login, alice, game):
    assert login(alice).send("UNSU:alice:wrong-one").code == 815
    alice.refresh_from_db()
    assert alice.is_active
    assert fresh(game).is_active


def test_unsu_of_another_user_gets_814_and_changes_nothing(login, alice, bob):
    assert login(alice).send(f"UNSU:bob:{PASSWORD}").code == 814
    bob.refresh_from_db()
    assert bob.is_active


def test_revoked_account_loses_its_session_at_the_next_command(login, alice, bob):
    client = login(alice)
    User.objects.filter(pk=alice.pk).update(is_active=False)
    assert client.send("JUEG:bob").code == 803
    assert not Challenge.objects.exists()


# --------------------------------------------------------------------------- TRAN / JAUT / PPEN


def test_tran_lists_who_challenged_you_with_the_current_date(login, alice, bob, carol):
    services.challenge(challenger=bob, challenged=alice)
    services.challenge(challenger=carol, challenged=alice)
    before = int(time.time())
    reply = login(alice).send("TRAN:00000000000")
    assert reply.code == 103
    now, *names = reply.text.split(",")
    assert len(now) == 11 and abs(int(now) - before) <= 2
    assert names == ["bob", "carol"]


def test_tran_with_nothing_new_gets_104_with_the_date(login, alice, bob):
    services.challenge(challenger=bob, challenged=alice)
    later = f"{int(time.time()) + 5:011d}"
    reply = login(alice).send(f"TRAN:{later}")
    assert reply.code == 104
    assert len(reply.text) == 11 and reply.text.isdigit()


def test_tran_with_a_malformed_date_gets_802(login, alice):
    assert login(alice).send("TRAN:yesterday").code == 802


def test_jaut_lists_the_other_active_players(login, alice, bob, carol, make_player):
    make_player("gone", is_active=False)
    reply = login(alice).send("JAUT:00000000000")
    assert reply.code == 103
    assert reply.text.split(",")[1:] == ["bob", "carol"]


def next_second() -> str:
    """An ESPOL date just ahead of now, once the clock has passed it."""
    moment = int(time.time()) + 1
    time.sleep(max(0.0, moment - time.time() + 0.05))
    return f"{moment:011d}"


def test_jaut_since_a_date_lists_only_newer_players(login, alice, bob, make_player):
    since = next_second()
    make_player("newcomer")
    assert login(alice).send(f"JAUT:{since}").text.split(",")[1:] == ["newcomer"]


def test_jaut_with_nobody_new_gets_103_with_the_date_alone(login, alice, bob):
    since = next_second()
    reply = login(alice).send(f"JAUT:{since}")
    assert reply.code == 103
    assert len(reply.text) == 11 and reply.text.isdigit() and reply.text >= since


def test_jaut_lists_an_account_reopened_after_the_date(login, alice, bob, carol):
    account_services.revoke_access(player=carol)
    since = next_second()
    account_services.restore_access(player=carol)
    assert login(alice).send(f"JAUT:{since}").text.split(",")[1:] == ["carol"]


def test_ppen_lists_your_games_with_the_opponents_colour(login, alice, bob, carol, start_game):
    first = start_game(alice, bob)
    second = start_game(carol, alice)
    services.resign(game_id=second.pk, player=carol)
    reply = login(alice).send("PPEN:00000000000")
    assert reply.code == 103
    assert reply.text == f"{gid(first)}:bob:N:0,{gid(second)}:carol:B:2,"


def test_ppen_since_a_date_lists_only_games_changed_after_it(login, alice, bob, carol, start_game):
    start_game(alice, bob)
    since = next_second()
    newer = start_game(alice, carol)
    assert login(alice).send(f"PPEN:{since}").text == f"{gid(newer)}:carol:N:0,"


def test_ppen_without_games_is_empty(login, alice):
    reply = login(alice).send("PPEN:00000000000")
    assert (reply.code, reply.data) == (103, b"")


# --------------------------------------------------------------------------- JUEG / ACEP


def test_jueg_records_a_challenge(login, alice, bob):
    reply = login(alice).send("JUEG:bob")
    assert (reply.code, reply.data) == (103, b"")
    assert Challenge.objects.filter(challenger=alice, challenged=bob, status="pending").exists()


def test_jueg_to_an_unknown_user_gets_814(login, alice):
    assert login(alice).send("JUEG:nobody").code == 814
    assert not Challenge.objects.exists()


def test_jueg_to_yourself_gets_832(login, alice):
    assert login(alice).send("JUEG:alice").code == 832
    assert not Challenge.objects.exists()


def test_jueg_twice_gets_830(login, alice, bob):
    client = login(alice)
    client.send("JUEG:bob")
    assert client.send("JUEG:bob").code == 830
    assert Challenge.objects.count() == 1


def test_jueg_to_someone_who_asked_first_gets_830(login, alice, bob):
    services.challenge(challenger=bob, challenged=alice)
    assert login(alice).send("JUEG:bob").code == 830
    assert Challenge.objects.count() == 1


def test_jueg_with_an_active_game_between_you_gets_830(login, alice, bob, game):
    assert login(alice).send("JUEG:bob").code == 830
    assert Challenge.objects.filter(status="pending").count() == 0


def test_jueg_with_room_for_another_game_is_accepted_and_the_games_go_by_number(
    login, alice, bob, game
):
    # The administrator allows two games per pair: JUEG gets 830 only above that.
    services.set_site_rules(games_per_pair=2)
    client, opponent = login(alice), login(bob)
    assert client.send("JUEG:bob").code == 103
    reply = opponent.send("ACEP:B:alice")
    second = Game.objects.exclude(pk=game.pk).get()
    assert (reply.code, reply.text) == (103, f"{gid(second)}.PEN")
    assert client.send("JUEG:bob").code == 830
    # Each game is named by its number: PPEN lists both, REND ends the one it names.
    assert client.send("PPEN:0").text == f"{gid(game)}:bob:N:0,{gid(second)}:bob:B:0,"
    assert client.send(f"REND:{gid(second)}:bob").code == 103
    assert (fresh(game).is_active, fresh(second).is_active) == (True, False)
    assert client.send(f"STAT:{gid(game)}").text.startswith(f"{gid(game)}:alice:bob:")


def test_acep_at_the_limit_gets_830_and_the_challenge_waits(login, alice, bob):
    services.set_site_rules(games_per_pair=2)
    services.challenge(challenger=bob, challenged=alice)
    services.challenge(challenger=alice, challenged=bob)
    services.set_site_rules(games_per_pair=1)
    client = login(alice)
    assert client.send("ACEP:N:bob").code == 103
    assert login(bob).send("ACEP:B:alice").code == 830
    assert Challenge.objects.get(status="pending").challenger == alice


def test_acep_starts_the_game_with_the_chosen_colour(login, alice, bob):
    services.challenge(challenger=bob, challenged=alice)
    reply = login(alice).send("ACEP:N:bob")
    game = Game.objects.get()
    assert (reply.code, reply.text) == (103, f"{gid(game)}.PEN")
    assert (game.white, game.black) == (bob, alice)


def test_acep_of_a_challenge_whose_challenger_chose_takes_the_colour_left(login, alice, bob):
    # Made on the web or the lichess API, where the challenger may choose the colours.
    services.challenge(challenger=bob, challenged=alice, colour="white")
    reply = login(alice).send("ACEP:N:bob")
    game = Game.objects.get()
    assert (reply.code, reply.text) == (103, f"{gid(game)}.PEN")
    assert (game.white, game.black) == (bob, alice)


def test_acep_with_the_colour_the_challenger_chose_gets_802(login, alice, bob):
    services.challenge(challenger=bob, challenged=alice, colour="white")
    assert login(alice).send("ACEP:B:bob").code == 802
    assert not Game.objects.exists()
    assert Challenge.objects.get().status == "pending"


def test_acep_without_a_pending_challenge_gets_831(login, alice, bob):
    assert login(alice).send("ACEP:B:bob").code == 831
    assert not Game.objects.exists()


def test_acep_of_your_own_challenge_gets_831(login, alice, bob):
    services.challenge(challenger=alice, challenged=bob)
    assert login(alice).send("ACEP:B:bob").code == 831
    assert not Game.objects.exists()


def test_acep_with_an_unknown_colour_gets_802(login, alice, bob):
    services.challenge(challenger=bob, challenged=alice)
    assert login(alice).send("ACEP:X:bob").code == 802
    assert not Game.objects.exists()


# --------------------------------------------------------------------------- SPAR


def test_spar_returns_every_move_after_zero(login, alice, game, play):
    play(game, "e2e4", "e7e5")
    reply = login(alice).send(f"SPAR:{gid(game)}:0")
    assert (reply.code, reply.text) == (103, "1:e2e4:0:1228:0,2:e7e5:0:5236:0,")


def test_spar_returns_only_moves_after_the_number(login, alice, game, play):
    play(game, "e2e4", "e7e5", "g1f3")
    assert login(alice).send(f"SPAR:{gid(game)}:2").text == "3:g1f3:0:0621:0,"


def test_spar_with_no_newer_moves_gets_840(login, alice, game, play):
    play(game, "e2e4")
    assert login(alice).send(f"SPAR:{gid(game)}:1").code == 840


def test_spar_of_a_game_you_do_not_play_is_answered(login, carol, game, play):
    # Any player may read any game (docs/security.md); only its players act on it.
    play(game, "e2e4")
    reply = login(carol).send(f"SPAR:{gid(game)}:0")
    assert (reply.code, reply.text) == (103, "1:e2e4:0:1228:0,")


def test_spar_of_an_unknown_game_gets_820(login, alice):
    assert login(alice).send("SPAR:P0009999:0").code == 820


def test_spar_with_a_malformed_number_gets_802(login, alice, game):
    assert login(alice).send(f"SPAR:{gid(game)}:last").code == 802


# --------------------------------------------------------------------------- JGDA


def test_jgda_plays_the_move_and_answers_number_status_winner(login, alice, game):
    reply = login(alice).send(f"JGDA:{gid(game)}:1:e2e4:0:1228:0")
    assert (reply.code, reply.text) == (103, "1:0:0")
    move = Move.objects.get(game=game)
    assert (move.number, move.uci, move.reverse) == (1, "e2e4", False)


def test_jgda_stores_reverso(login, alice, game):
    login(alice).send(f"JGDA:{gid(game)}:1:e2e4:1:1228:0")
    assert Move.objects.get(game=game).reverse is True


def test_jgda_with_a_stale_number_gets_823_with_the_expected_one(login, alice, game, play):
    play(game, "e2e4", "e7e5")
    reply = login(alice).send(f"JGDA:{gid(game)}:1:g1f3:0:0621:0")
    assert (reply.code, reply.text) == (823, "3")
    assert fresh(game).next_move_number == 3


def test_jgda_out_of_turn_gets_821(login, bob, game):
    assert login(bob).send(f"JGDA:{gid(game)}:1:e7e5:0:5236:0").code == 821
    assert not Move.objects.exists()


def test_jgda_illegal_move_gets_822(login, alice, game):
    assert login(alice).send(f"JGDA:{gid(game)}:1:e2e5:0:1236:0").code == 822
    assert not Move.objects.exists()


@pytest.mark.parametrize(
    "line", ["JGDA:{g}:1:0000:0:0000:0", "JGDA:{g}:1:--:0:0000:0", "JGDA:{g}:1:@@@@:0:0000:0"]
)
def test_jgda_null_move_gets_802_and_changes_nothing(login, alice, game, line):
    assert login(alice).send(line.format(g=gid(game))).code == 802
    assert not Move.objects.exists()


def test_null_move_refused_on_the_web_never_reaches_spar(login, client, bob, game, play):
    # A pass stored from the web would reach SPAR as "4:0000:0:-57-57:0".
    play(game, "e4", "f5", "Qh5+")
    client.force_login(bob)
    client.post(reverse("game_move", args=[game.pk]), {"number": 4, "move": "--"})
    assert login(bob).send(f"SPAR:{gid(game)}:3").code == 840
    assert fresh(game).next_move_number == 4


def test_jgda_whose_position_disagrees_gets_822(login, alice, game):
    assert login(alice).send(f"JGDA:{gid(game)}:1:e2e4:0:1229:0").code == 822
    assert not Move.objects.exists()


def test_jgda_whose_promotion_disagrees_gets_822(login, alice, game):
    assert login(alice).send(f"JGDA:{gid(game)}:1:e2e4:0:1228:5").code == 822
    assert not Move.objects.exists()


def test_jgda_in_a_finished_game_gets_824(login, alice, game):
    services.resign(game_id=game.pk, player=game.black)
    assert login(alice).send(f"JGDA:{gid(game)}:1:e2e4:0:1228:0").code == 824
    assert not Move.objects.exists()


def test_jgda_while_a_draw_offer_is_pending_gets_825(login, alice, game):
    services.offer_draw(game_id=game.pk, player=game.black)
    assert login(alice).send(f"JGDA:{gid(game)}:1:e2e4:0:1228:0").code == 825
    assert not Move.objects.exists()


def test_jgda_in_a_game_you_do_not_play_gets_820(login, carol, game):
    assert login(carol).send(f"JGDA:{gid(game)}:1:e2e4:0:1228:0").code == 820
    assert not Move.objects.exists()


def test_jgda_malformed_gets_802(login, alice, game):
    assert login(alice).send(f"JGDA:{gid(game)}:1:e2e4").code == 802
    assert not Move.objects.exists()


def test_jgda_promotion_from_promocion_alone(login, alice, game, play):
    play(game, "a2a4", "b7b5", "a4b5", "a7a6", "b5a6", "c8b7", "a6b7", "b8c6")
    reply = login(alice).send(f"JGDA:{gid(game)}:9:b7a8:0:4956:5")
    assert reply.code == 103
    assert Move.objects.get(game=game, number=9).uci == "b7a8q"
    assert login(alice).send(f"SPAR:{gid(game)}:8").text == "9:b7a8:0:4956:5,"


def test_unexpected_error_gets_401_and_nothing_changes(login, alice, game, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("channel layer exploded")

    # Raised inside the service's transaction, after the move row was written.
    monkeypatch.setattr("games.services.moves.publish_game_event", broken)
    reply = login(alice).send(f"JGDA:{gid(game)}:1:e2e4:0:1228:0")
    assert reply.code == 401
    assert not Move.objects.exists()
    assert fresh(game).next_move_number == 1


# --------------------------------------------------------------------------- TBLS / RTBL / REND


def test_tbls_offers_a_draw(login, alice, game):
    reply = login(alice).send(f"TBLS:{gid(game)}:bob")
    assert (reply.code, reply.data) == (103, b"")
    assert solicitudes(fresh(game))[0] == 1


def test_tbls_naming_someone_who_is_not_your_opponent_gets_820(login, alice, carol, game):
    assert login(alice).send(f"TBLS:{gid(game)}:carol").code == 820
    assert solicitudes(fresh(game))[0] == 0


def test_tbls_in_a_game_you_do_not_play_gets_820(login, carol, game):
    assert login(carol).send(f"TBLS:{gid(game)}:alice").code == 820
    assert (solicitudes(fresh(game))[0], solicitudes(fresh(game))[1]) == (0, 0)


def test_tbls_of_an_unknown_game_gets_820(login, alice, game):
    assert login(alice).send("TBLS:P0009999:bob").code == 820


def test_tbls_a_second_time_gets_825(login, alice, game):
    client = login(alice)
    client.send(f"TBLS:{gid(game)}:bob")
    assert client.send(f"TBLS:{gid(game)}:bob").code == 825


def test_tbls_while_the_opponents_offer_is_pending_gets_825(login, alice, game):
    services.offer_draw(game_id=game.pk, player=game.black)
    assert login(alice).send(f"TBLS:{gid(game)}:bob").code == 825
    game = fresh(game)
    assert (solicitudes(game)[0], solicitudes(game)[1]) == (0, 1)


def test_tbls_in_a_finished_game_gets_824(login, alice, game):
    services.resign(game_id=game.pk, player=game.black)
    assert login(alice).send(f"TBLS:{gid(game)}:bob").code == 824


def test_rtbl_s_accepts_the_draw(login, bob, game):
    services.offer_draw(game_id=game.pk, player=game.white)
    assert login(bob).send(f"RTBL:{gid(game)}:S:alice").code == 103
    game = fresh(game)
    assert (game.status, game.result, solicitudes(game)[1]) == ("finished", "1/2-1/2", 2)


def test_rtbl_n_withdraws_the_offer(login, bob, game):
    services.offer_draw(game_id=game.pk, player=game.white)
    assert login(bob).send(f"RTBL:{gid(game)}:N:alice").code == 103
    game = fresh(game)
    assert (game.status, solicitudes(game)[0]) == ("active", 0)


def test_rtbl_without_an_offer_gets_826(login, bob, game):
    assert login(bob).send(f"RTBL:{gid(game)}:S:alice").code == 826
    assert fresh(game).is_active


def test_rtbl_of_your_own_offer_gets_826(login, alice, game):
    client = login(alice)
    client.send(f"TBLS:{gid(game)}:bob")
    assert client.send(f"RTBL:{gid(game)}:S:bob").code == 826
    assert fresh(game).is_active


def test_rtbl_with_an_answer_other_than_s_or_n_gets_802(login, bob, game):
    services.offer_draw(game_id=game.pk, player=game.white)
    assert login(bob).send(f"RTBL:{gid(game)}:Y:alice").code == 802
    assert solicitudes(fresh(game))[0] == 1


@pytest.mark.parametrize("code", ["RTBL", "RTBS"])
def test_rtbl_in_a_game_you_do_not_play_gets_820(login, carol, game, code):
    services.offer_draw(game_id=game.pk, player=game.white)
    assert login(carol).send(f"{code}:{gid(game)}:S:alice").code == 820
    game = fresh(game)
    assert (game.status, solicitudes(game)[0]) == ("active", 1)


@pytest.mark.parametrize("code", ["RTBL", "RTBS"])
def test_rtbl_naming_someone_who_is_not_your_opponent_gets_820(login, bob, carol, game, code):
    services.offer_draw(game_id=game.pk, player=game.white)
    assert login(bob).send(f"{code}:{gid(game)}:S:carol").code == 820
    game = fresh(game)
    assert (game.status, solicitudes(game)[0]) == ("active", 1)


def test_rtbl_of_an_unknown_game_gets_820(login, bob, game):
    assert login(bob).send("RTBS:P0009999:S:alice").code == 820


@pytest.mark.parametrize("code", ["RTBL", "RTBS"])
def test_rtbl_in_a_finished_game_gets_824(login, bob, game, code):
    services.offer_draw(game_id=game.pk, player=game.white)
    services.resign(game_id=game.pk, player=game.white)
    assert login(bob).send(f"{code}:{gid(game)}:S:alice").code == 824
    game = fresh(game)
    assert (game.result, solicitudes(game)[1]) == ("0-1", 0)


def test_rend_resigns_and_the_opponent_wins(login, alice, game):
    assert login(alice).send(f"REND:{gid(game)}:bob").code == 103
    game = fresh(game)
    assert (game.result, solicitudes(game)[0]) == ("0-1", 3)


def test_rend_in_a_finished_game_gets_824(login, alice, game):
    client = login(alice)
    client.send(f"REND:{gid(game)}:bob")
    assert client.send(f"REND:{gid(game)}:bob").code == 824


def test_rend_naming_the_wrong_opponent_gets_820(login, alice, carol, game):
    assert login(alice).send(f"REND:{gid(game)}:carol").code == 820
    assert fresh(game).is_active


def test_rend_of_an_unknown_game_gets_820(login, alice, game):
    assert login(alice).send("REND:P0009999:bob").code == 820
    assert fresh(game).is_active


def test_rend_in_a_game_you_do_not_play_gets_820(login, carol, game):
    assert login(carol).send(f"REND:{gid(game)}:bob").code == 820
    assert login(carol).send(f"REND:{gid(game)}:alice").code == 820
    game = fresh(game)
    assert (game.status, solicitudes(game)[0], solicitudes(game)[1]) == ("active", 0, 0)


# --------------------------------------------------------------------------- FINP / STAT / SRNK


def test_finp_with_nothing_to_claim_gets_822(login, alice, game):
    assert login(alice).send(f"FINP:{gid(game)}:bob").code == 822
    assert fresh(game).is_active


def test_finp_in_a_game_you_do_not_play_gets_820(login, carol, game):
    assert login(carol).send(f"FINP:{gid(game)}:bob").code == 820


def test_finp_naming_someone_who_is_not_your_opponent_gets_820(login, alice, carol, game):
    assert login(alice).send(f"FINP:{gid(game)}:carol").code == 820
    assert fresh(game).is_active


def test_finp_of_an_unknown_game_gets_820(login, alice, game):
    assert login(alice).send("FINP:P0009999:bob").code == 820


def test_finp_in_a_finished_game_gets_824(login, alice, game):
    services.resign(game_id=game.pk, player=game.black)
    assert login(alice).send(f"FINP:{gid(game)}:bob").code == 824
    game = fresh(game)
    assert (game.result, game.termination) == ("1-0", "resignation")


def test_stat_describes_the_game_from_your_side(login, bob, game, play):
    play(game, "e2e4")
    services.offer_draw(game_id=game.pk, player=game.white)
    reply = login(bob).send(f"STAT:{gid(game)}")
    fields = reply.text.split(":")
    assert reply.code == 103
    assert fields[:3] == [gid(game), "alice", "bob"]
    assert len(fields[3]) == 11
    assert fields[4:] == ["0", "0", "1", "0", "N", "2"]


CREATED = dt.datetime(2020, 3, 1, 12, 0, 5, tzinfo=dt.UTC)
FINISHED = dt.datetime(2021, 7, 9, 8, 30, 0, tzinfo=dt.UTC)


def test_stat_fecha_of_a_game_in_progress_is_when_it_was_created(login, bob, game, play):
    Game.objects.filter(pk=game.pk).update(created_at=CREATED)
    play(game, "e2e4")
    services.offer_draw(game_id=game.pk, player=game.white)
    fields = login(bob).send(f"STAT:{gid(game)}").text.split(":")
    assert fields[3] == fecha(CREATED) == "01583064005"
    assert fields[4] == "0"


def test_stat_fecha_of_a_finished_game_is_when_it_finished(login, alice, game):
    services.resign(game_id=game.pk, player=game.black)
    Game.objects.filter(pk=game.pk).update(created_at=CREATED, finished_at=FINISHED)
    fields = login(alice).send(f"STAT:{gid(game)}").text.split(":")
    assert fields[3] == fecha(FINISHED) == "01625819400"
    assert fields[4:6] == ["2", "1"]


def test_stat_of_a_game_you_do_not_play_gives_no_colour(login, carol, game):
    reply = login(carol).send(f"STAT:{gid(game)}")
    assert reply.code == 103
    fields = reply.text.split(":")
    assert (fields[1], fields[2], fields[8]) == ("alice", "bob", "-")


def test_stat_of_an_unknown_game_gets_820(login, alice, game):
    assert login(alice).send("STAT:P0009999").code == 820


def test_stat_of_a_malformed_game_name_gets_802(login, alice):
    assert login(alice).send("STAT:game-one").code == 802


def test_srnk_lists_the_players_with_most_wins_first(login, alice, bob, carol, start_game):
    for black in (bob, carol):
        services.resign(game_id=start_game(alice, black).pk, player=black)
    services.resign(game_id=start_game(bob, carol).pk, player=carol)
    reply = login(carol).send("SRNK")
    assert reply.code == 103
    assert reply.text == "alice:2,bob:1,carol:0,"


@pytest.mark.parametrize("line", ["SRNK", "SRNK:"])
def test_srnk_lists_ten_players_at_most(login, alice, make_player, line):
    # The seed writes "SRNK : <CRLF>"; the bare code is accepted too.
    for n in range(12):
        player = make_player(f"winner{n:02d}")
        PlayerRecord.objects.filter(player=player).update(wins=20 - n)
    reply = login(alice).send(line)
    assert reply.code == 103
    assert reply.text == "".join(f"winner{n:02d}:{20 - n}," for n in range(10))
