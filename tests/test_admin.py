"""AdmChess through the Django test client, logged in as a superuser."""

from __future__ import annotations

import datetime as dt
import io

import chess.pgn
import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.core.management import CommandError, call_command
from django.db import connection
from django.http import HttpRequest
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts import services as account_services
from accounts.models import AccessChange, SubscriptionRequest
from games import services
from games.models import Challenge, Game, Move
from ranking.models import PlayerRecord
from tests.conftest import PASSWORD

User = get_user_model()


@pytest.fixture
def admin_user(db) -> User:
    return User.objects.create_superuser("root", "root@example.org", PASSWORD)


@pytest.fixture
def admin_client(admin_user) -> Client:
    # Messages are checked in English whatever translations the project ships.
    client = Client(headers={"accept-language": "en"})
    client.force_login(admin_user)
    return client


def _messages(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def _action(client: Client, url: str, action: str, pks: list[int]):
    return client.post(url, {"action": action, "_selected_action": pks}, follow=True)


def _finished_game(start_game, white, black, *, days_ago: float) -> Game:
    game = start_game(white, black)
    services.resign(game_id=game.pk, player=black)
    Game.objects.filter(pk=game.pk).update(finished_at=timezone.now() - dt.timedelta(days=days_ago))
    return game


SUBSCRIPTIONS = reverse("admin:accounts_subscriptionrequest_changelist")
USERS = reverse("admin:auth_user_changelist")
GAMES = reverse("admin:games_game_changelist")
PURGE = reverse("admin:games_game_purge")


# --------------------------------------------------------------------------- site


def test_admin_site_is_titled_admchess(admin_client):
    response = admin_client.get(reverse("admin:index"))
    assert response.status_code == 200
    assert "AdmChess — Ajedrez" in response.content.decode()


def test_anonymous_visitor_is_sent_to_the_admin_login(db):
    response = Client().get(GAMES)
    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]


def test_player_without_staff_status_cannot_open_the_admin(alice):
    client = Client()
    client.force_login(alice)
    response = client.get(GAMES)
    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]


# --------------------------------------------------------------------------- subscriptions


@pytest.fixture
def pending_request(db) -> SubscriptionRequest:
    return account_services.request_subscription(
        username="dora", password="dora-secret", comment="Dora Reyes", email="dora@example.org"
    )


def test_subscription_list_shows_the_request(admin_client, pending_request):
    response = admin_client.get(SUBSCRIPTIONS)
    page = response.content.decode()
    assert response.status_code == 200
    assert "dora" in page
    assert "Dora Reyes" in page
    assert "dora@example.org" in page
    assert pending_request.password_hash not in page


def test_subscription_list_filters_by_status(admin_client, pending_request):
    account_services.request_subscription(username="emil", password="emil-secret")
    account_services.reject_subscription(
        request_id=SubscriptionRequest.objects.get(username="emil").pk, admin=None
    )
    response = admin_client.get(SUBSCRIPTIONS, {"status__exact": "pending"})
    shown = list(response.context["cl"].result_list)
    assert shown == [pending_request]


def test_subscription_list_searches_comments(admin_client, pending_request):
    account_services.request_subscription(username="emil", password="emil-secret")
    response = admin_client.get(SUBSCRIPTIONS, {"q": "Reyes"})
    assert list(response.context["cl"].result_list) == [pending_request]


def test_approve_action_gives_a_working_login(admin_client, pending_request):
    response = _action(admin_client, SUBSCRIPTIONS, "approve", [pending_request.pk])
    assert response.status_code == 200
    assert any("Approved 1 request(s): dora." in m for m in _messages(response))
    pending_request.refresh_from_db()
    assert pending_request.status == SubscriptionRequest.Status.APPROVED
    assert pending_request.decided_by.username == "root"
    assert Client().login(request=HttpRequest(), username="dora", password="dora-secret")


def test_reject_action_gives_no_login(admin_client, pending_request):
    response = _action(admin_client, SUBSCRIPTIONS, "reject", [pending_request.pk])
    assert any("Rejected 1 request(s): dora." in m for m in _messages(response))
    pending_request.refresh_from_db()
    assert pending_request.status == SubscriptionRequest.Status.REJECTED
    assert not User.objects.filter(username="dora").exists()
    assert not Client().login(request=HttpRequest(), username="dora", password="dora-secret")


def test_approving_a_decided_request_is_reported_as_refused(admin_client, pending_request):
    account_services.reject_subscription(request_id=pending_request.pk, admin=None)
    response = _action(admin_client, SUBSCRIPTIONS, "approve", [pending_request.pk])
    assert any("dora: refused" in m for m in _messages(response))
    assert not User.objects.filter(username="dora").exists()


def test_mixed_approval_reports_successes_and_refusals(admin_client, pending_request):
    other = account_services.request_subscription(username="emil", password="emil-secret")
    account_services.approve_subscription(request_id=other.pk, admin=None)
    response = _action(admin_client, SUBSCRIPTIONS, "approve", [pending_request.pk, other.pk])
    shown = _messages(response)
    assert any("Approved 1 request(s): dora." in m for m in shown)
    assert any(m.startswith("emil: refused") for m in shown)


def test_subscription_requests_cannot_be_added_or_edited(admin_client, pending_request):
    assert admin_client.get(reverse("admin:accounts_subscriptionrequest_add")).status_code == 403
    change_url = reverse("admin:accounts_subscriptionrequest_change", args=[pending_request.pk])
    response = admin_client.post(change_url, {"username": "mallory", "status": "approved"})
    assert response.status_code == 403
    pending_request.refresh_from_db()
    assert (pending_request.username, pending_request.status) == ("dora", "pending")


# --------------------------------------------------------------------------- users


def test_user_list_shows_each_players_record(admin_client, alice, bob, start_game):
    game = start_game(alice, bob)
    services.resign(game_id=game.pk, player=bob)
    response = admin_client.get(USERS, {"q": "alice"})
    row = response.context["cl"].result_list[0]
    admin_model = response.context["cl"].model_admin
    assert (admin_model.wins(row), admin_model.losses(row), admin_model.draws(row)) == (1, 0, 0)
    assert admin_model.rating(row) == PlayerRecord.objects.get(player=alice).rating_label


def test_user_list_query_count_does_not_grow_with_the_users(admin_client, make_player):
    for n in range(3):
        make_player(f"p{n}")
    with CaptureQueriesContext(connection) as few:
        assert admin_client.get(USERS).status_code == 200
    for n in range(3, 30):
        make_player(f"p{n}")
    with CaptureQueriesContext(connection) as many:
        assert admin_client.get(USERS).status_code == 200
    assert len(many.captured_queries) == len(few.captured_queries)


def test_user_change_page_shows_the_record_read_only(admin_client, alice):
    response = admin_client.get(reverse("admin:auth_user_change", args=[alice.pk]))
    page = response.content.decode()
    assert response.status_code == 200
    assert "1500?" in page  # the rating, provisional
    assert 'name="record-0-wins"' not in page


def test_admin_creates_a_user_with_a_record(admin_client):
    response = admin_client.post(
        reverse("admin:auth_user_add"),
        {
            "username": "fede",
            "usable_password": "true",
            "password1": "fede-secret-99",
            "password2": "fede-secret-99",
            "first_name": "Federico",
            "last_name": "Paz",
            "email": "",
        },
    )
    assert response.status_code == 302
    user = User.objects.get(username="fede")
    assert user.first_name == "Federico"
    assert PlayerRecord.objects.filter(player=user).exists()
    assert Client().login(request=HttpRequest(), username="fede", password="fede-secret-99")


@pytest.mark.parametrize("username", ["a:b", "a,b", "a#b", "a b", "x" * 31])
def test_admin_refuses_user_names_the_protocols_cannot_carry(admin_client, username):
    response = admin_client.post(
        reverse("admin:auth_user_add"),
        {
            "username": username,
            "usable_password": "true",
            "password1": "fede-secret-99",
            "password2": "fede-secret-99",
        },
    )
    assert response.status_code == 200
    assert "username" in response.context["adminform"].form.errors
    assert not User.objects.filter(username=username).exists()


def test_admin_refuses_a_user_name_taken_in_another_case(admin_client, alice):
    response = admin_client.post(
        reverse("admin:auth_user_add"),
        {
            "username": "ALICE",
            "usable_password": "true",
            "password1": "fede-secret-99",
            "password2": "fede-secret-99",
        },
    )
    assert response.status_code == 200
    assert "username" in response.context["adminform"].form.errors
    assert User.objects.filter(username__iexact="alice").count() == 1


def test_revoke_access_deactivates_and_ends_active_games_as_losses(
    admin_client, alice, bob, start_game, play
):
    game = play(start_game(alice, bob), "e4", "e5")
    response = _action(admin_client, USERS, "revoke_access", [bob.pk])
    assert any("bob" in m and "Revoked" in m for m in _messages(response))
    bob.refresh_from_db()
    game.refresh_from_db()
    assert not bob.is_active
    assert (game.status, game.result, game.termination) == ("finished", "1-0", "abandonment")
    assert not Client().login(request=HttpRequest(), username="bob", password=PASSWORD)
    records = {r.player_id: (r.wins, r.losses, r.draws) for r in PlayerRecord.objects.all()}
    assert (records[alice.pk], records[bob.pk]) == ((1, 0, 0), (0, 1, 0))


def test_active_flag_cannot_be_unticked_on_the_user_form(admin_client, alice, bob, start_game):
    game = start_game(alice, bob)
    url = reverse("admin:auth_user_change", args=[bob.pk])
    form = admin_client.get(url).context["adminform"].form
    assert "is_active" not in form.fields
    # A hand-made POST without the box, as a browser sends an unticked one.
    response = admin_client.post(
        url,
        {
            "username": "bob",
            "first_name": "",
            "last_name": "",
            "email": "",
            "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00",
            "record-TOTAL_FORMS": "1",
            "record-INITIAL_FORMS": "1",
            "access_change-TOTAL_FORMS": "0",
            "access_change-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302
    bob.refresh_from_db()
    game.refresh_from_db()
    assert bob.is_active
    assert game.status == "active"


def test_restore_access_reopens_a_closed_account(admin_client, admin_user, alice, bob, start_game):
    start_game(alice, bob)
    _action(admin_client, USERS, "revoke_access", [bob.pk])
    response = _action(admin_client, USERS, "restore_access", [alice.pk, bob.pk])
    messages = _messages(response)
    assert "Restored access of 1 user: bob." in messages
    assert "alice: refused (the account is not closed)" in messages
    assert Client().login(request=HttpRequest(), username="bob", password=PASSWORD)
    page = admin_client.get(reverse("admin:auth_user_change", args=[bob.pk])).content.decode()
    assert "Last access change" in page
    assert AccessChange.objects.get(player=bob).changed_by == admin_user


def test_revoking_your_own_access_is_refused(admin_client, admin_user):
    response = _action(admin_client, USERS, "revoke_access", [admin_user.pk])
    assert any("root: refused" in m for m in _messages(response))
    admin_user.refresh_from_db()
    assert admin_user.is_active


# --------------------------------------------------------------------------- games


def test_game_list_shows_public_id_players_and_moves(admin_client, game, play):
    play(game, "e4", "e5", "Nf3")
    response = admin_client.get(GAMES)
    page = response.content.decode()
    assert game.public_id in page
    assert "alice" in page and "bob" in page
    assert response.context["cl"].model_admin.moves_played(game) == 3


def test_game_list_filters_by_status(admin_client, alice, bob, carol, start_game):
    active = start_game(alice, bob)
    _finished_game(start_game, alice, carol, days_ago=1)
    response = admin_client.get(GAMES, {"status__exact": "active"})
    assert list(response.context["cl"].result_list) == [active]


def test_game_search_by_public_id(admin_client, alice, bob, carol, start_game):
    wanted = start_game(alice, bob)
    start_game(alice, carol)
    response = admin_client.get(GAMES, {"q": wanted.public_id})
    assert list(response.context["cl"].result_list) == [wanted]


def test_game_search_by_player_name(admin_client, alice, bob, carol, start_game):
    start_game(alice, bob)
    wanted = start_game(carol, bob)
    response = admin_client.get(GAMES, {"q": "carol"})
    assert list(response.context["cl"].result_list) == [wanted]


def test_game_change_page_shows_moves_and_pgn(admin_client, game, play):
    play(game, "e4", "e5", "Nf3")
    response = admin_client.get(reverse("admin:games_game_change", args=[game.pk]))
    page = response.content.decode()
    assert response.status_code == 200
    assert "Nf3" in page
    assert '<pre class="pgn">' in page
    assert "1. e4 e5 2. Nf3" in page
    assert reverse("admin:games_game_pgn", args=[game.pk]) in page


def test_game_change_page_has_no_editable_game_fields(admin_client, game):
    response = admin_client.get(reverse("admin:games_game_change", args=[game.pk]))
    form = response.context["adminform"].form
    assert list(form.fields) == []


def test_posting_to_the_game_change_page_is_forbidden(admin_client, game):
    url = reverse("admin:games_game_change", args=[game.pk])
    response = admin_client.post(url, {"status": "finished", "result": "1-0"})
    assert response.status_code == 403
    game.refresh_from_db()
    assert game.status == "active"


def test_pgn_download_is_an_attachment_python_chess_reads(admin_client, game, play):
    play(game, "e4", "e5")
    response = admin_client.get(reverse("admin:games_game_pgn", args=[game.pk]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/x-chess-pgn")
    assert f'filename="{game.public_id}.pgn"' in response["Content-Disposition"]
    parsed = chess.pgn.read_game(io.StringIO(response.content.decode()))
    assert [m.uci() for m in parsed.mainline_moves()] == ["e2e4", "e7e5"]


def test_pgn_download_of_a_missing_game_is_404(admin_client):
    assert admin_client.get(reverse("admin:games_game_pgn", args=[999])).status_code == 404
    assert admin_client.get("/admin/games/game/abc/pgn/").status_code == 404


def test_moves_inline_offers_no_add_change_or_delete(admin_client, game, play):
    play(game, "e4")
    response = admin_client.get(reverse("admin:games_game_change", args=[game.pk]))
    (inline,) = response.context["inline_admin_formsets"]
    assert not inline.has_add_permission
    assert not inline.has_change_permission
    assert not inline.has_delete_permission
    assert 'name="moves-0-san"' not in response.content.decode()


def test_moves_have_no_admin_pages_of_their_own(admin_client, game, play):
    play(game, "e4")
    move = Move.objects.get(game=game)
    assert admin_client.get(f"/admin/games/move/{move.pk}/change/").status_code == 404
    assert admin_client.get("/admin/games/move/add/").status_code == 404
    assert admin_client.post(f"/admin/games/move/{move.pk}/delete/").status_code == 404
    assert Move.objects.filter(pk=move.pk).exists()


def test_games_cannot_be_added_through_the_admin(admin_client):
    assert admin_client.get(reverse("admin:games_game_add")).status_code == 403


def test_an_active_game_cannot_be_deleted_one_by_one(admin_client, game):
    url = reverse("admin:games_game_delete", args=[game.pk])
    page = admin_client.post(url, {"post": "yes"}, follow=True)
    assert any("still in progress" in said for said in _messages(page))
    assert Game.objects.filter(pk=game.pk).exists()


def test_a_finished_game_can_be_deleted_one_by_one(admin_client, alice, bob, start_game):
    game = _finished_game(start_game, alice, bob, days_ago=0)
    response = admin_client.post(
        reverse("admin:games_game_delete", args=[game.pk]), {"post": "yes"}
    )
    assert response.status_code == 302
    assert not Game.objects.filter(pk=game.pk).exists()
    assert Challenge.objects.get(status="accepted").game_id is None


def test_bulk_delete_is_not_offered_for_games(admin_client, game):
    response = _action(admin_client, GAMES, "delete_selected", [game.pk])
    assert Game.objects.filter(pk=game.pk).exists()
    assert "delete_selected" not in response.context["cl"].model_admin.get_actions(
        response.wsgi_request
    )


def test_check_replay_action_says_the_selected_games_replay(
    admin_client, alice, bob, carol, start_game, play
):
    first, second = start_game(alice, bob), start_game(alice, carol)
    play(first, "e4", "e5")
    response = _action(admin_client, GAMES, "check_replay", [first.pk, second.pk])
    assert _messages(response) == ["All 2 selected games replay from the start."]


def test_check_replay_action_names_each_game_that_does_not_replay(
    admin_client, alice, bob, carol, start_game, play
):
    good, bad = start_game(alice, bob), start_game(alice, carol)
    play(bad, "e4", "e5")
    Move.objects.filter(game=bad, number=2).update(uci="0000", san="--")
    response = _action(admin_client, GAMES, "check_replay", [good.pk, bad.pk])
    assert _messages(response) == [
        f"{bad.public_id}: move 2 (0000) is not a move",
        "1 of the 2 selected games does not replay from the start.",
    ]
    assert Move.objects.get(game=bad, number=2).uci == "0000"  # reported, not repaired


def test_check_replay_action_checks_only_the_selected_games(
    admin_client, alice, bob, carol, start_game, play
):
    chosen, other = start_game(alice, bob), start_game(alice, carol)
    play(other, "e4")
    Move.objects.filter(game=other).update(san="d4")
    response = _action(admin_client, GAMES, "check_replay", [chosen.pk])
    assert _messages(response) == ["1 selected game replays from the start."]


# --------------------------------------------------------------------------- maintenance


@pytest.fixture
def games_of_every_age(alice, bob, carol, make_player, start_game) -> dict[str, Game]:
    dave = make_player("dave")
    return {
        "old": _finished_game(start_game, alice, bob, days_ago=40),
        "recent": _finished_game(start_game, alice, carol, days_ago=5),
        "active": start_game(alice, dave),
    }


def test_changelist_links_to_the_purge_page(admin_client):
    page = admin_client.get(GAMES).content.decode()
    assert PURGE in page


def test_purge_page_shows_the_form(admin_client):
    response = admin_client.get(PURGE)
    assert response.status_code == 200
    assert 'name="days"' in response.content.decode()


def test_purge_deletes_old_finished_games_and_keeps_the_rest(admin_client, games_of_every_age):
    response = admin_client.post(PURGE, {"days": "30"}, follow=True)
    assert any("Deleted 1 game" in m for m in _messages(response))
    kept = set(Game.objects.values_list("pk", flat=True))
    assert kept == {games_of_every_age["recent"].pk, games_of_every_age["active"].pk}


def test_purge_with_zero_days_keeps_active_games(admin_client, games_of_every_age):
    admin_client.post(PURGE, {"days": "0"})
    assert list(Game.objects.values_list("pk", flat=True)) == [games_of_every_age["active"].pk]


def test_purge_keeps_the_challenge_history(admin_client, games_of_every_age):
    admin_client.post(PURGE, {"days": "30"})
    accepted = Challenge.objects.filter(status="accepted")
    assert accepted.count() == 3
    assert accepted.filter(game__isnull=True).count() == 1


@pytest.mark.parametrize("days", ["-1", "abc", ""])
def test_purge_refuses_a_bad_number_of_days(admin_client, games_of_every_age, days):
    response = admin_client.post(PURGE, {"days": days})
    assert response.status_code == 200
    assert response.context["form"].errors["days"]
    assert Game.objects.count() == 3


def test_purge_page_needs_delete_permission(games_of_every_age, make_player):
    clerk = make_player("clerk", is_staff=True)
    client = Client()
    client.force_login(clerk)
    assert client.post(PURGE, {"days": "0"}).status_code == 403
    assert Game.objects.count() == 3


def test_purge_command_deletes_old_finished_games(games_of_every_age):
    out = io.StringIO()
    call_command("purge_finished_games", "--days", "30", stdout=out)
    assert "Deleted 1 finished game" in out.getvalue()
    assert not Game.objects.filter(pk=games_of_every_age["old"].pk).exists()
    assert Game.objects.count() == 2


def test_purge_command_refuses_negative_days(games_of_every_age):
    with pytest.raises(CommandError):
        call_command("purge_finished_games", "--days", "-1")
    assert Game.objects.count() == 3


# --------------------------------------------------------------------------- read-only lists


def test_challenge_list_filters_by_status(admin_client, alice, bob, carol):
    pending = services.challenge(challenger=alice, challenged=bob)
    declined = services.challenge(challenger=carol, challenged=bob)
    services.decline_challenge(challenge_id=declined.pk, player=bob)
    response = admin_client.get(
        reverse("admin:games_challenge_changelist"), {"status__exact": "pending"}
    )
    assert list(response.context["cl"].result_list) == [pending]


def test_challenges_cannot_be_changed_through_the_admin(admin_client, alice, bob):
    pending = services.challenge(challenger=alice, challenged=bob)
    url = reverse("admin:games_challenge_change", args=[pending.pk])
    assert admin_client.post(url, {"status": "accepted"}).status_code == 403
    assert admin_client.get(reverse("admin:games_challenge_add")).status_code == 403
    pending.refresh_from_db()
    assert pending.status == "pending"


def test_player_record_list_is_read_only(admin_client, alice, bob, start_game):
    game = start_game(alice, bob)
    services.resign(game_id=game.pk, player=bob)
    response = admin_client.get(reverse("admin:ranking_playerrecord_changelist"))
    assert response.status_code == 200
    assert [r.player.username for r in response.context["cl"].result_list][:1] == ["alice"]
    record_url = reverse("admin:ranking_playerrecord_change", args=[alice.pk])
    assert admin_client.post(record_url, {"wins": 99}).status_code == 403
    assert PlayerRecord.objects.get(player=alice).wins == 1


def test_an_accepted_challenge_links_to_its_game(admin_client, alice, bob):
    accepted = services.challenge(challenger=alice, challenged=bob)
    game = services.accept_challenge(challenge_id=accepted.pk, player=bob, colour="white")
    page = admin_client.get(reverse("admin:games_challenge_changelist")).content.decode()
    link = reverse("admin:games_game_change", args=[game.pk])
    assert f'<a href="{link}">{game.public_id}</a>' in page


def test_the_admin_lists_notifications_read_only_filtered_by_kind(admin_client, alice, bob):
    from games import notifications
    from games.models import NotificationKind

    notifications.notify(recipient=alice, kind=NotificationKind.DRAW_OFFERED, actor=bob)
    notifications.notify(recipient=bob, kind=NotificationKind.GAME_OVER)
    url = reverse("admin:games_notification_changelist")
    page = admin_client.get(url, {"kind__exact": "draw_offered"})
    assert page.status_code == 200
    rows = page.content.decode().split('id="result_list"', 1)[1].split("</table>", 1)[0]
    assert "draw offered" in rows and "game over" not in rows
    assert admin_client.get(reverse("admin:games_notification_add")).status_code == 403


def test_open_challenges_are_listed_read_only_with_their_games(admin_client, alice, bob, carol):
    waiting = services.create_seek(maker=alice, days_per_move=3)
    taken = services.create_seek(maker=carol, days_per_move=5)
    game = services.accept_seek(seek_id=taken.pk, player=bob)

    listed = admin_client.get(
        reverse("admin:games_seek_changelist"), {"status__exact": "open"}
    )
    assert list(listed.context["cl"].result_list) == [waiting]
    page = admin_client.get(reverse("admin:games_seek_changelist")).content.decode()
    assert reverse("admin:games_game_change", args=[game.pk]) in page
    change = reverse("admin:games_seek_change", args=[waiting.pk])
    assert admin_client.post(change, {"status": "cancelled"}).status_code == 403
    assert admin_client.get(reverse("admin:games_seek_add")).status_code == 403
    waiting.refresh_from_db()
    assert waiting.status == "open"
