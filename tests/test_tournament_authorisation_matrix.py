"""The tournaments' authorisation matrix of ``docs/security.md``, read from the doc and
played cell by cell: every action on an event × every role × every door that has it (the
web's pages and forms; the event page's socket, which only reads).

Each cell builds the same small world (players, a staff account, a pending and a rejected
subscription request, an account to revoke, one to become a bot, and four events: open
and being played, with the entrant in one pair and another event's player in the other),
logs the role in at the door as a client would, runs the action, and compares what the
door answered with the cell. A refusal must leave the database exactly as it was; an
allowed action must change it, and a read must not.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import SESSION_KEY, get_user_model
from django.test import Client
from django.urls import reverse

from accounts import services as account_services
from accounts.models import BotAccount, SubscriptionRequest
from ajedrez.asgi import application
from games import services
from games.models import Game, GroupStanding, Notification, Tournament, TournamentEntry
from games.tournament_urls import urlpatterns as tournament_urls
from tests.conftest import PASSWORD
from tests.games.tournaments import join_all, make_event
from tests.matrix import Cell, read_matrix
from tests.test_authorisation_matrix import form_outcome, to_login

User = get_user_model()

DOC = Path(__file__).resolve().parent.parent / "docs" / "security.md"
HEADING = "## Authorisation matrix: tournaments"
DOORS = ("web", "socket")

ACTIONS = {
    "read the events": "read",
    "join an event open for registration": "join_open",
    "join an event being played": "join_running",
    "leave an event before its start": "leave_open",
    "leave an event being played": "leave_running",
    "withdraw from an event being played": "withdraw_running",
    "withdraw from an event not started": "withdraw_open",
}
ROLES = {
    "anonymous": "anonymous",
    "pending": "pending",
    "rejected": "rejected",
    "entrant": "entrant",
    "a player": "player",
    "another event's player": "elsewhere",
    "revoked": "revoked",
    "bot": "bot",
    "staff": "staff",
}
USERNAMES = {
    "pending": "pat",
    "rejected": "rex",
    "entrant": "alice",
    "player": "bob",
    "elsewhere": "carol",
    "revoked": "eve",
    "bot": "bea",
    "staff": "sam",
}
# Each action's view and the event it acts on.
FORMS = {
    "join_open": ("tournament_join", "open"),
    "join_running": ("tournament_join", "running"),
    "leave_open": ("tournament_leave", "open"),
    "leave_running": ("tournament_leave", "running"),
    "withdraw_running": ("tournament_withdraw", "running"),
    "withdraw_open": ("tournament_withdraw", "open"),
}


CELLS = read_matrix(
    DOC.read_text(), HEADING, actions=ACTIONS, roles=ROLES, doors=DOORS
)


# --------------------------------------------------------------------------- the world


@dataclass
class World:
    users: dict[str, Any]
    events: dict[str, Tournament]


def build_world() -> World:
    users = {
        role: User.objects.create_user(USERNAMES[role], password=PASSWORD)
        for role in ("entrant", "player", "elsewhere", "revoked", "bot")
    }
    users["staff"] = User.objects.create_user("sam", password=PASSWORD, is_staff=True)
    fillers = [User.objects.create_user(name, password=PASSWORD) for name in ("dora", "fred")]
    account_services.request_subscription(username="pat", password=PASSWORD)
    rejected = account_services.request_subscription(username="rex", password=PASSWORD)
    account_services.reject_subscription(request_id=rejected.pk, admin=users["staff"])
    events = {}
    for owner, suffix in (("entrant", ""), ("elsewhere", "_elsewhere")):
        # Open until eight join; the other starts when its third player joins.
        events[f"open{suffix}"] = make_event(name=f"Open{suffix}", max_players=8)
        join_all(events[f"open{suffix}"], [users[owner]])
        running = make_event(name=f"Running{suffix}", min_players=3, max_players=3)
        join_all(running, [users[owner], *fillers])
        running.refresh_from_db()
        assert running.status == Tournament.Status.RUNNING
        events[f"running{suffix}"] = running
    return World(users, events)


def fingerprint() -> tuple:
    """Everything an action on events could change."""
    return (
        sorted(Tournament.objects.values_list("pk", "status", "current_round")),
        sorted(TournamentEntry.objects.values_list(
            "pk", "tournament_id", "player_id", "withdrawn_at"
        )),
        sorted(GroupStanding.objects.values_list("pk", "withdrawn", "annulled", "points")),
        sorted(Game.objects.values_list("pk", "version", "status", "result")),
        sorted(Notification.objects.values_list("pk", "read_at")),
        sorted(User.objects.values_list("pk", "is_active")),
        sorted(BotAccount.objects.values_list("player_id", flat=True)),
        sorted(SubscriptionRequest.objects.values_list("pk", "status")),
    )


# --------------------------------------------------------------------------- web


def web_client(role: str, world: World) -> Client:
    client = Client()
    if role in ("pending", "rejected"):
        # Their requested password logs in nowhere.
        client.post(reverse("login"), {"username": USERNAMES[role], "password": PASSWORD})
        assert SESSION_KEY not in client.session
    elif role != "anonymous":
        client.force_login(world.users[role])
    return client


def read_outcome(response) -> str:
    if to_login(response):
        return "302"
    if response.streaming:
        # The PGN: read to its end, where the test client closes it (as a server would),
        # which gives its download slot back.
        b"".join(response.streaming_content)
    return "allowed" if response.status_code == 200 else str(response.status_code)


def web_act(client: Client, cell: Cell, world: World) -> str:
    if cell.action == "read":
        event = world.events["running"].pk
        outcomes = {
            read_outcome(client.get(url))
            for url in (
                reverse("tournament_list"),
                reverse("tournament_detail", args=[event]),
                reverse("tournament_detail", args=[event]) + "?partial=1",
                reverse("tournament_games", args=[event]),
                reverse("tournament_pgn", args=[event]),
            )
        }
        assert len(outcomes) == 1, outcomes
        return outcomes.pop()
    name, which = FORMS[cell.action]
    url = reverse(name, args=[world.events[which].pk])
    return form_outcome(client.post(url, {"confirm": "yes"}))


# --------------------------------------------------------------------------- socket


def socket_cookie(role: str, world: World) -> bytes | None:
    cookie = web_client(role, world).cookies.get(settings.SESSION_COOKIE_NAME)
    return f"{settings.SESSION_COOKIE_NAME}={cookie.value}".encode() if cookie else None


async def socket_read(cookie: bytes | None, event: Tournament) -> str:
    headers = [(b"host", b"localhost"), (b"origin", b"http://localhost")]
    if cookie:
        headers.append((b"cookie", cookie))
    comm = WebsocketCommunicator(application, f"/ws/tournaments/{event.pk}/", headers=headers)
    try:
        connected, _ = await comm.connect()
        assert connected
        first = await comm.receive_output(timeout=5)
        if first["type"] == "websocket.close":
            return str(first["code"])
        assert json.loads(first["text"]) == {"type": "hello", "tournament": event.pk}
        return "allowed"
    finally:
        await comm.disconnect()


# --------------------------------------------------------------------------- the check


def check(cell: Cell) -> None:
    world = build_world()
    if cell.door == "web":
        client = web_client(cell.role, world)
    else:
        cookie = socket_cookie(cell.role, world)
    # After the login: the old cookie must be worthless once the account is closed, or
    # once it became a bot's (the upgrade ends its sessions).
    if cell.role == "revoked":
        account_services.revoke_access(player=world.users["revoked"], by=world.users["staff"])
    if cell.role == "bot":
        services.upgrade_to_bot(player=world.users["bot"])
    before = fingerprint()
    if cell.door == "web":
        outcome = web_act(client, cell, world)
    else:
        outcome = async_to_sync(socket_read)(cookie, world.events["running"])
    after = fingerprint()
    assert outcome == cell.expected, f"{cell.id}: got {outcome}, the matrix says {cell.expected}"
    if cell.expected != "allowed" or cell.action == "read":
        assert after == before, f"{cell.id}: changed the database"
    else:
        assert after != before, f"{cell.id}: allowed, yet nothing changed"


@pytest.mark.parametrize(
    "cell",
    [
        # The socket's cells need the rows committed, for the consumer's thread to read,
        # and so does a bot's upgrade, which ends the sessions once it commits.
        pytest.param(cell, id=cell.id, marks=pytest.mark.django_db(
            transaction=cell.door == "socket" or cell.role == "bot"
        ))
        for cell in CELLS
    ],
)
def test_the_tournament_matrix_holds_in_every_cell(cell):
    check(cell)


# --------------------------------------------------------------------------- coverage


def test_the_table_has_every_action_and_role():
    pairs = {(c.action, c.role) for c in CELLS}
    assert pairs == {(a, r) for a in ACTIONS.values() for r in ROLES.values()}
    assert {c.action for c in CELLS if c.door == "socket"} == {"read"}


def test_every_tournament_url_is_in_the_matrix():
    """A new page or form of events must get its row."""
    named = {p.name for p in tournament_urls}
    read = {"tournament_list", "tournament_detail", "tournament_games", "tournament_pgn"}
    assert named == read | {name for name, _event in FORMS.values()}
