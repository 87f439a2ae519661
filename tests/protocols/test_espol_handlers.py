"""The handlers and the login throttle on their own: no socket, a real database."""

from __future__ import annotations

import inspect

import pytest

from accounts.throttling import LoginThrottle
from ajedrez.core.errors import DomainError
from games import errors, services
from games.models import Challenge
from legacy_tcp.espol import codec as espol
from legacy_tcp.espol import handlers
from legacy_tcp.espol.codec import Code, parse_line
from tests.conftest import PASSWORD


def run(session: handlers.Session, line: bytes) -> handlers.Reply:
    """What the server does with a line, minus the socket and the thread."""
    command = parse_line(line)
    return handlers.immediate_reply(session, command) or handlers.execute(session, command)


def test_help_and_quit_need_no_database():
    session = handlers.Session()
    assert handlers.immediate_reply(session, parse_line(b"HELP")).code == Code.S_TRAN
    quit_reply = handlers.immediate_reply(session, parse_line(b"QUIT"))
    assert quit_reply.close and quit_reply.encode() == b""


def test_game_commands_before_login_are_gated_without_the_database():
    reply = handlers.immediate_reply(handlers.Session(), parse_line(b"JUEG:bob"))
    assert reply.code == Code.F_LOGIN


def test_user_then_pass_logs_the_session_in(alice):
    session = handlers.Session()
    assert run(session, b"USER:alice").code == Code.S_USER
    assert session.pending_username == "alice" and session.user is None
    assert run(session, f"PASS:{PASSWORD}".encode()).code == Code.S_PASSWD
    assert session.user == alice and session.pending_username is None


def test_wrong_password_is_counted_and_flagged_for_the_throttle(alice):
    session = handlers.Session()
    run(session, b"USER:alice")
    reply = run(session, b"PASS:nope")
    assert (reply.code, reply.failed_login_for) == (Code.F_PASINV, "alice")
    assert session.failed_passwords == 1 and session.user is None


def test_a_new_user_command_logs_the_session_out(alice, bob):
    session = handlers.Session()
    run(session, b"USER:alice")
    run(session, f"PASS:{PASSWORD}".encode())
    assert run(session, b"USER:bob").code == Code.S_USER
    assert session.user is None
    assert run(session, b"JUEG:alice").code == Code.F_LOGIN


def test_domain_errors_become_espol_codes(alice):
    session = handlers.Session(user=alice, auth_hash=alice.get_session_auth_hash())
    assert run(session, b"JUEG:alice").code == Code.F_SELF
    assert not Challenge.objects.exists()


@pytest.mark.django_db
def test_unexpected_errors_become_401(alice, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr("accounts.throttling.authenticate", broken)
    session = handlers.Session()
    assert run(session, b"USER:alice").code == Code.S_USER
    assert run(session, b"PASS:anything").code == Code.E_SYSTEM


def test_a_bug_inside_a_service_is_logged_and_not_reported_as_bad_input(
    alice, game, monkeypatch, caplog
):
    def broken_make_move(**kwargs):
        # What a programming error inside the service looks like from outside.
        raise TypeError("unsupported operand type(s) for +: 'int' and 'str'")

    monkeypatch.setattr("games.services.make_move", broken_make_move)
    session = handlers.Session(user=alice, auth_hash=alice.get_session_auth_hash())
    with caplog.at_level("ERROR", logger="legacy_tcp.espol"):
        reply = run(session, f"JGDA:{game.public_id}:1:e2e4:0:1228:0".encode())
    # 401 (the server's fault), not 802 (the line's) nor 822 (the move's).
    assert reply.code == Code.E_SYSTEM
    logged = [r for r in caplog.records if r.name == "legacy_tcp.espol"]
    assert len(logged) == 1 and logged[0].exc_info[0] is TypeError
    assert "command=JGDA" in logged[0].getMessage()


def stat_requests(game, player) -> tuple[str, str]:
    """STAT's solicitud_blancas and solicitud_negras of ``game``, as ``player`` reads them."""
    session = handlers.Session(user=player, auth_hash=player.get_session_auth_hash())
    reply = run(session, f"STAT:{game.public_id}".encode())
    assert reply.code == Code.S_TRAN, reply
    fields = reply.text.split(":")
    return fields[6], fields[7]


def test_stat_says_who_offers_and_who_accepted_a_draw(alice, bob, game):
    services.offer_draw(game_id=game.pk, player=bob)
    assert stat_requests(game, alice) == ("0", "1")
    services.answer_draw(game_id=game.pk, player=alice, accept=True)
    # Seed 000: the offer stays in the offerer's field, "accepts" goes in the other's.
    assert stat_requests(game, alice) == ("2", "1")


def test_stat_forgets_a_declined_offer(alice, bob, game):
    services.offer_draw(game_id=game.pk, player=alice)
    services.answer_draw(game_id=game.pk, player=bob, accept=False)
    assert stat_requests(game, bob) == ("0", "0")


def test_stat_says_who_resigned(alice, bob, game):
    services.resign(game_id=game.pk, player=bob)
    assert stat_requests(game, alice) == ("0", "3")


def test_stat_shows_an_abandoned_game_as_resigned_by_who_left(alice, bob, game, play):
    # Once both have moved: leaving before one's first move aborts the game instead.
    play(game, "e4", "e5")
    services.abandon_games(player=alice)
    assert stat_requests(game, bob) == ("3", "0")


def test_stat_of_a_claimed_draw_shows_no_request(alice, bob, game, play):
    play(game, "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8")
    services.claim_draw(game_id=game.pk, player=alice)
    assert stat_requests(game, bob) == ("0", "0")


def test_stat_of_a_game_the_board_ended_shows_no_request(alice, bob, game, play):
    play(game, "f3", "e5", "g4", "Qh4#")
    assert stat_requests(game, alice) == ("0", "0")


@pytest.fixture
def clock(monkeypatch) -> list[float]:
    """The throttle's monotonic clock, moved by hand."""
    now = [1000.0]
    monkeypatch.setattr("accounts.throttling.time.monotonic", lambda: now[0])
    return now


HOME, GUESSER = "203.0.113.7", "198.51.100.9"


def test_throttle_delay_is_nothing_before_a_failure_then_doubles_to_its_cap():
    throttle = LoginThrottle(base=0.5, cap=3.0)
    assert [throttle.delay(n) for n in range(6)] == [0.0, 0.5, 1.0, 2.0, 3.0, 3.0]


def test_throttle_lets_a_name_without_failures_be_checked_at_once(clock):
    throttle = LoginThrottle(base=0.5, cap=8.0)
    assert throttle.reserve("alice", HOME) == 0.0
    assert throttle.reserve("alice", HOME) == 0.0


def test_throttle_makes_the_next_check_wait_after_each_failure(clock):
    throttle = LoginThrottle(base=0.5, cap=3.0)
    waits = []
    for _ in range(5):
        wait = throttle.reserve("alice", GUESSER)
        waits.append(wait)
        clock[0] += wait
        throttle.failed("alice", GUESSER)
    assert waits == [0.0, 0.5, 1.0, 2.0, 3.0]


def test_throttle_counts_the_time_a_client_waited_by_itself(clock):
    throttle = LoginThrottle(base=0.5, cap=8.0)
    throttle.failed("alice", GUESSER)
    throttle.failed("alice", GUESSER)  # the next check is 1 s away
    clock[0] += 0.75
    assert throttle.reserve("alice", GUESSER) == pytest.approx(0.25)


def test_throttle_queues_checks_from_one_address_that_arrive_together(clock):
    throttle = LoginThrottle(base=0.5, cap=8.0)
    throttle.failed("alice", GUESSER)
    # Three guesses at the same instant: each waits for the turn after the previous one.
    assert [throttle.reserve("alice", GUESSER) for _ in range(3)] == [0.5, 1.0, 1.5]


def test_throttle_reports_failures_of_the_name_and_of_the_address(clock):
    throttle = LoginThrottle(base=0.5, cap=8.0)
    assert throttle.failed("alice", GUESSER) == (1, 1, 0.5)
    assert throttle.failed("bob", GUESSER) == (1, 2, 1.0)
    assert throttle.failed("alice", GUESSER) == (2, 3, 2.0)


def test_throttle_does_not_hold_a_name_back_from_another_address(clock):
    # Keyed by the name alone, guesses queued on it held its owner's right password back
    # behind them: the guessers could lock a player out without knowing anything.
    throttle = LoginThrottle(base=0.5, cap=8.0)
    for _ in range(8):
        throttle.failed("alice", GUESSER)
    assert [throttle.reserve("alice", GUESSER) for _ in range(3)] == [8.0, 16.0, 24.0]
    assert throttle.reserve("alice", HOME) == 0.0


def test_throttle_slows_one_address_trying_many_names(clock):
    throttle = LoginThrottle(base=0.5, cap=8.0)
    throttle.failed("alice", GUESSER)
    throttle.failed("bob", GUESSER)
    assert throttle.reserve("carol", GUESSER) == pytest.approx(1.0)
    assert throttle.reserve("carol", HOME) == 0.0


def test_throttle_waits_for_the_later_turn_of_the_name_and_the_address(clock):
    throttle = LoginThrottle(base=0.5, cap=8.0)
    for _ in range(3):
        throttle.failed("alice", GUESSER)  # alice from there: 2 s; the address: 2 s
    clock[0] += 2.0
    throttle.failed("bob", GUESSER)  # the address's fourth failure: 4 s from now
    assert throttle.reserve("alice", GUESSER) == pytest.approx(4.0)


def test_throttle_forgets_a_name_at_an_address_after_a_success(clock):
    throttle = LoginThrottle(base=0.5, cap=8.0)
    throttle.failed("alice", HOME)
    throttle.failed("alice", HOME)
    throttle.succeeded("alice", HOME)
    clock[0] += 1.0  # past the address's turn
    assert throttle.reserve("alice", HOME) == 0.0
    assert throttle.failed("alice", HOME).for_name == 1


def test_throttle_keeps_the_address_count_after_a_success(clock):
    # Otherwise a guesser with an account of their own would log into it between guesses
    # and try every name at full speed.
    throttle = LoginThrottle(base=0.5, cap=8.0)
    throttle.failed("alice", GUESSER)
    throttle.failed("bob", GUESSER)
    throttle.succeeded("mallory", GUESSER)
    assert throttle.reserve("carol", GUESSER) == pytest.approx(1.0)
    assert throttle.failed("carol", GUESSER).for_address == 3


def test_throttle_keeps_names_apart(clock):
    throttle = LoginThrottle(base=0.5, cap=8.0)
    throttle.failed("alice", GUESSER)
    throttle.failed("alice", GUESSER)
    assert throttle.reserve("bob", HOME) == 0.0


def test_throttle_forgets_failures_older_than_its_window(clock):
    throttle = LoginThrottle(base=0.5, cap=8.0, window=60.0)
    throttle.failed("alice", GUESSER)
    throttle.failed("alice", GUESSER)
    clock[0] += 61.0
    assert throttle.reserve("alice", GUESSER) == 0.0
    assert throttle.failed("alice", GUESSER) == (1, 1, 0.5)


# --------------------------------------------------------------------------- layering


def test_handlers_reach_the_database_only_through_services_and_selectors():
    source = inspect.getsource(handlers)
    for query_api in (".objects", ".values_list(", ".values(", ".filter(", ".exclude("):
        assert query_api not in source, query_api


def test_the_per_command_account_check_is_the_selectors(alice, monkeypatch):
    asked = []

    def closed(player_id: int, auth_hash: str | None) -> bool:
        asked.append(player_id)
        return False

    monkeypatch.setattr("accounts.selectors.is_current_login", closed)
    session = handlers.Session(user=alice, auth_hash=alice.get_session_auth_hash())
    assert run(session, b"SRNK").code == Code.F_LOGIN
    assert asked == [alice.pk] and session.user is None


def test_spar_sends_what_the_selector_returns(alice, game, monkeypatch):
    monkeypatch.setattr(
        "games.selectors.move_records",
        lambda game_id, *, after: [(1, "e2e4", True), (2, "a2a1q", False)],
    )
    session = handlers.Session(user=alice, auth_hash=alice.get_session_auth_hash())
    reply = run(session, f"SPAR:{game.public_id}:0".encode())
    assert (reply.code, reply.text) == (Code.S_TRAN, "1:e2e4:1:1228:0,2:a2a1:0:0800:5,")


def test_selectors_for_the_gateway_return_plain_values(alice, bob, carol, game, play):
    from accounts import selectors as account_selectors
    from games import selectors

    play(game, "e4", "e5")
    assert selectors.move_records(game.pk, after=1) == [(2, "e7e5", False)]
    carol.is_active = False
    carol.save()
    assert account_selectors.player_names_changed_since(espol.EPOCH, exclude=alice) == ["bob"]


# --------------------------------------------------------------------------- errors


def test_wrong_move_number_error_carries_the_expected_number():
    reply = handlers.error_reply(errors.WrongMoveNumber(expected=7))
    assert reply.encode() == espol.frames(823, "7")


@pytest.mark.parametrize(
    ("domain_code", "espol_code"),
    [
        ("user_not_found", 814),
        ("wrong_password", 815),
        ("game_not_found", 820),
        ("not_a_player", 820),
        ("not_your_turn", 821),
        ("illegal_move", 822),
        ("invalid_move", 822),
        ("nothing_to_claim", 822),
        ("game_finished", 824),
        ("draw_offer_pending", 825),
        ("no_draw_offer", 826),
        ("challenge_exists", 830),
        ("opponent_challenged_first", 830),
        ("active_game_exists", 830),
        ("challenge_not_found", 831),
        ("self_challenge", 832),
        ("subscription_refused", 850),
        ("something_new", 401),
    ],
)
def test_domain_errors_map_to_espol_codes(domain_code, espol_code):
    error = DomainError("why")
    error.code = domain_code
    reply = handlers.error_reply(error)
    assert (reply.code, reply.data) == (espol_code, "why")


def logged_in(player) -> handlers.Session:
    session = handlers.Session()
    run(session, f"USER:{player.username}".encode())
    assert run(session, f"PASS:{PASSWORD}".encode()).code == Code.S_PASSWD
    return session


def test_challenges_beyond_the_limit_are_answered_busy(alice, bob, settings):
    settings.CHALLENGES_PER_PAIR_PER_WINDOW = 1
    session = logged_in(alice)
    made = run(session, b"JUEG:bob")
    assert made.code == Code.S_TRAN, made
    services.withdraw_challenge(challenge_id=Challenge.objects.get().pk, player=alice)
    refused = run(session, b"JUEG:bob")
    assert refused.code == Code.E_BUSY, refused
    assert Challenge.objects.count() == 1


def test_a_second_draw_offer_before_a_move_is_refused_as_825(alice, bob, game):
    services.offer_draw(game_id=game.pk, player=alice)
    services.answer_draw(game_id=game.pk, player=bob, accept=False)
    reply = run(logged_in(alice), f"TBLS:{game.public_id}:bob".encode())
    assert reply.code == Code.F_DRAWPEND, reply
