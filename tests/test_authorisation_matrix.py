"""The authorisation matrix of ``docs/security.md``, read from the doc and played cell by
cell: every action × every role × every door (web, socket, ESPOL).

Each cell builds the same small world (players, a staff account, a pending and a rejected
subscription request, a revoked account, a game or a challenge), logs the role in at the
door as a client would (a refused login is part of the cell: pending, rejected and staff
accounts are checked to be turned away by ESPOL ``PASS``, and the first two by the web's
login page), runs the action, and compares what the door answered with the cell. A cell
that is not ``allowed`` must also leave the database exactly as it was; an ``allowed``
action must change it (a read must not).

The normal run plays each (action, role) once, at a door taken in turn so that every
door meets every action and every role; ``pytest -m stress`` plays every cell.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.messages import constants as message_levels
from django.contrib.messages import get_messages
from django.core import signing
from django.test import Client
from django.urls import get_resolver, reverse

from accounts import services as account_services
from accounts.models import Preferences, SubscriptionRequest
from ajedrez.asgi import application
from games import mail_links, services
from games.lobby_urls import urlpatterns as lobby_urls
from games.mail_links import stop_token
from games.models import Challenge, Game, Move, Notification
from games.urls import urlpatterns as game_urls
from legacy_tcp.espol.client import EspolClient, jgda
from legacy_tcp.espol.handlers import COMMANDS
from tests.conftest import PASSWORD
from tests.matrix import Cell, read_matrix
from tests.protocols.conftest import ServerThread

User = get_user_model()


DOC = Path(__file__).resolve().parent.parent / "docs" / "security.md"
DOORS = ("web", "socket", "espol")

# The doc's words for each action and role, and the names the test knows them by.
ACTIONS = {
    "read the game": "read",
    "preview a move": "preview",
    "move": "move",
    "offer a draw": "offer",
    "answer a draw offer": "answer",
    "resign": "resign",
    "claim a draw": "claim",
    "challenge": "challenge",
    "accept a challenge": "accept",
    "decline a challenge": "decline",
    "withdraw a challenge": "withdraw",
    "open a notification": "notification",
    "stop mail by its link": "mail_stop",
    "stop mail by a forged link": "mail_stop_forged",
}
ROLES = {
    "anonymous": "anonymous",
    "pending": "pending",
    "rejected": "rejected",
    "to move": "mover",
    "opponent": "opponent",
    "another player": "other",
    "revoked": "revoked",
    "staff": "staff",
}
USERNAMES = {
    "pending": "pat",
    "rejected": "rex",
    "mover": "alice",
    "opponent": "bob",
    "other": "carol",
    "revoked": "eve",
    "staff": "sam",
}
CHALLENGE_ACTIONS = {"challenge", "accept", "decline", "withdraw"}
# Three times the starting position, white to move: either player may claim the draw.
REPETITION = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"]


CELLS = read_matrix(
    DOC.read_text(), "## Authorisation matrix", actions=ACTIONS, roles=ROLES, doors=DOORS
)


def short_run(cells: list[Cell]) -> list[Cell]:
    """One door per (action, role), in turn: every door meets every action and role."""
    by_pair: dict[tuple[str, str], dict[str, Cell]] = {}
    for cell in cells:
        by_pair.setdefault((cell.action, cell.role), {})[cell.door] = cell
    chosen = []
    actions, roles = list(ACTIONS.values()), list(ROLES.values())
    for (action, role), doors in by_pair.items():
        turn = actions.index(action) + roles.index(role)
        order = [DOORS[(turn + k) % len(DOORS)] for k in range(len(DOORS))]
        chosen.append(next(doors[d] for d in order if d in doors))
    return chosen


# --------------------------------------------------------------------------- the world


@dataclass
class World:
    users: dict[str, Any]
    game: Game | None
    challenge: Challenge | None


def build_world(action: str) -> World:
    users = {
        role: User.objects.create_user(USERNAMES[role], password=PASSWORD)
        for role in ("mover", "opponent", "other", "revoked")
    }
    users["target"] = User.objects.create_user("dora", password=PASSWORD)
    users["staff"] = User.objects.create_user("sam", password=PASSWORD, is_staff=True)
    account_services.request_subscription(username="pat", password=PASSWORD)
    rejected = account_services.request_subscription(username="rex", password=PASSWORD)
    account_services.reject_subscription(request_id=rejected.pk, admin=users["staff"])
    mover, opponent = users["mover"], users["opponent"]
    game = challenge = None
    if action in CHALLENGE_ACTIONS:
        if action != "challenge":
            challenge = services.challenge(challenger=opponent, challenged=mover)
    else:
        made = services.challenge(challenger=opponent, challenged=mover)
        game = services.accept_challenge(challenge_id=made.pk, player=mover, colour="white")
        if action == "answer":
            services.offer_draw(game_id=game.pk, player=opponent)
        if action == "claim":
            for number, text in enumerate(REPETITION, start=1):
                player = mover if number % 2 else opponent
                services.make_move(
                    game_id=game.pk, player=player, move_number=number, move=text
                )
        game.refresh_from_db()
    return World(users, game, challenge)


def fingerprint(*, reader: int | None = None) -> tuple:
    """Everything an action could change; for a read by ``reader``, all but the read
    state of the reader's own notifications, which reading a game marks read."""
    notifications = Notification.objects.all()
    if reader is not None:
        notifications = notifications.exclude(recipient_id=reader)
    return (
        sorted(Game.objects.values_list("pk", "version", "status", "result", "draw_offer_by")),
        Move.objects.count(),
        sorted(Challenge.objects.values_list("pk", "status")),
        sorted(User.objects.values_list("pk", "is_active")),
        sorted(SubscriptionRequest.objects.values_list("pk", "status")),
        sorted(notifications.values_list("pk", "read_at")),
        sorted(
            (player, mail, json.dumps(kinds, sort_keys=True))
            for player, mail, kinds in Preferences.objects.values_list(
                "player_id", "mail", "mail_kinds"
            )
        ),
    )


def opponent_name(role: str) -> str:
    """The name a role's ESPOL command gives as the opponent: the other player's, or, for
    those outside the game, a player's of the game."""
    return {"mover": "bob", "opponent": "alice"}.get(role, "alice")


def move_text(role: str) -> str:
    """A move that would be legal for the role's side if it were their turn."""
    return "e5" if role == "opponent" else "e4"


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


def to_login(response) -> bool:
    return response.status_code == 302 and response["Location"].startswith(
        reverse(settings.LOGIN_URL)
    )


def json_outcome(response) -> str:
    if to_login(response):
        return "302"
    return "allowed" if response.status_code == 200 else str(response.status_code)


def form_outcome(response) -> str:
    """A lobby form: sent to the login page, or back with a success or an error."""
    if to_login(response):
        return "302"
    levels = {m.level for m in get_messages(response.wsgi_request)}
    assert len(levels) == 1, levels
    return "refused" if levels == {message_levels.ERROR} else "allowed"


def web_act(client: Client, cell: Cell, world: World) -> str:
    as_json = {"HTTP_ACCEPT": "application/json"}
    game, challenge = world.game, world.challenge
    if cell.action == "notification":
        # bob's (the opponent's): alice accepted his challenge. Opening it leads on to
        # the game; anybody else's notification does not exist for them.
        told = Notification.objects.get(recipient=world.users["opponent"])
        response = client.get(reverse("notification_open", args=[told.pk]))
        if to_login(response):
            return "302"
        return "allowed" if response.status_code == 302 else str(response.status_code)
    if cell.action in ("mail_stop", "mail_stop_forged"):
        # The link in bob's mail stops all of it; a link signed with another key (the
        # right shape, bob's id) is refused. No login either way: the token is the
        # authority, so every role gets the same answer.
        bob = world.users["opponent"].pk
        token = (
            stop_token(bob, None)
            if cell.action == "mail_stop"
            else signing.dumps([bob, "all"], salt=mail_links.SALT, key="not-this-site")
        )
        response = client.post(reverse("mail_stop", args=[token]))
        return "allowed" if response.status_code == 200 else str(response.status_code)
    if cell.action == "read":
        assert game is not None
        outcomes = {
            json_outcome(client.get(reverse(name, args=[game.pk]), **as_json))
            for name in ("game_detail", "game_state", "game_pgn")
        }
        assert len(outcomes) == 1, outcomes
        return outcomes.pop()
    if cell.action in CHALLENGE_ACTIONS:
        if cell.action == "challenge":
            url, data = reverse("challenge_create"), {"username": "dora"}
        else:
            assert challenge is not None
            args: list[Any] = [challenge.pk] + (["white"] if cell.action == "accept" else [])
            url, data = reverse(f"challenge_{cell.action}", args=args), {}
        return form_outcome(client.post(url, data))
    assert game is not None
    number = {"number": game.next_move_number, "move": move_text(cell.role)}
    if cell.action == "preview":
        return json_outcome(client.get(reverse("game_move_preview", args=[game.pk]), number))
    url_name, data = {
        "move": ("game_move", number),
        "offer": ("game_draw_offer", {}),
        "answer": ("game_draw_answer", {"accept": "no"}),
        "resign": ("game_resign", {}),
        "claim": ("game_claim_draw", {}),
    }[cell.action]
    return json_outcome(client.post(reverse(url_name, args=[game.pk]), data, **as_json))


# --------------------------------------------------------------------------- socket


SOCKET_MESSAGES = {
    "move": lambda game, role: {
        "type": "move", "number": game.next_move_number, "move": move_text(role)
    },
    "offer": lambda game, role: {"type": "draw_offer"},
    "answer": lambda game, role: {"type": "draw_answer", "accept": False},
    "resign": lambda game, role: {"type": "resign"},
    "claim": lambda game, role: {"type": "claim_draw"},
}


def socket_cookie(role: str, world: World) -> bytes | None:
    client = web_client(role, world)
    cookie = client.cookies.get(settings.SESSION_COOKIE_NAME)
    return f"{settings.SESSION_COOKIE_NAME}={cookie.value}".encode() if cookie else None


async def socket_act(cookie: bytes | None, cell: Cell, game: Game) -> str:
    headers = [(b"host", b"localhost"), (b"origin", b"http://localhost")]
    if cookie:
        headers.append((b"cookie", cookie))
    comm = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=headers)
    try:
        connected, _ = await comm.connect()
        assert connected
        first = await comm.receive_output(timeout=5)
        if first["type"] == "websocket.close":
            return str(first["code"])
        assert json.loads(first["text"])["type"] == "snapshot"
        if cell.action == "read":
            return "allowed"
        await comm.send_json_to(SOCKET_MESSAGES[cell.action](game, cell.role))
        for _ in range(10):
            output = await comm.receive_output(timeout=5)
            if output["type"] == "websocket.close":
                return str(output["code"])
            frame = json.loads(output["text"])
            if frame["type"] == "ack":
                return "allowed"
            if frame["type"] == "error":
                return frame["code"]
        raise AssertionError("neither an ack nor an error")
    finally:
        await comm.disconnect()


# --------------------------------------------------------------------------- ESPOL


def espol_client(server: ServerThread, role: str) -> EspolClient:
    client = EspolClient("127.0.0.1", server.port, timeout=10.0)
    if role == "anonymous":
        return client
    assert client.send(f"USER:{USERNAMES[role]}").code == 101
    logged_in = client.send(f"PASS:{PASSWORD}").code
    # Pending and rejected requests have no account; staff accounts do not play.
    assert logged_in == (815 if role in ("pending", "rejected", "staff") else 102)
    return client


def espol_lines(cell: Cell, world: World) -> list[str]:
    if cell.action == "challenge":
        return ["JUEG:dora"]
    if cell.action == "accept":
        return ["ACEP:B:bob"]
    game = world.game
    assert game is not None
    gid, opponent = game.public_id, opponent_name(cell.role)
    return {
        "read": [f"STAT:{gid}", f"SPAR:{gid}:0"],
        "move": [jgda(gid, game.next_move_number, "e2e4" if cell.role != "opponent" else "e7e5")],
        "offer": [f"TBLS:{gid}:{opponent}"],
        "answer": [f"RTBL:{gid}:N:{opponent}"],
        "resign": [f"REND:{gid}:{opponent}"],
        "claim": [f"FINP:{gid}:{opponent}"],
    }[cell.action]


def espol_outcome(code: int | None) -> str:
    # SPAR of a game without moves answers 840, "no moves after 0": a read all the same.
    return "allowed" if code in (103, 840) else str(code)


# --------------------------------------------------------------------------- the check


@pytest.fixture
def espol_server(transactional_db, settings) -> Iterator[ServerThread]:
    settings.ESPOL_MAX_PER_ADDRESS = 0
    server = ServerThread().start()
    yield server
    server.stop()


def check(cell: Cell, request: pytest.FixtureRequest) -> None:
    world = build_world(cell.action)
    espol = None
    if cell.door == "espol":
        espol = espol_client(request.getfixturevalue("espol_server"), cell.role)
    elif cell.door == "web":
        client = web_client(cell.role, world)
    else:
        cookie = socket_cookie(cell.role, world)
    if cell.role == "revoked":
        # After the login: the old cookie, socket and connection must all be worthless.
        account_services.revoke_access(player=world.users["revoked"], by=world.users["staff"])
    reader = None
    if cell.action == "read" and cell.expected == "allowed" and cell.role in world.users:
        reader = world.users[cell.role].pk
    before = fingerprint(reader=reader)
    if cell.door == "web":
        outcome = web_act(client, cell, world)
    elif cell.door == "socket":
        assert world.game is not None
        outcome = async_to_sync(socket_act)(cookie, cell, world.game)
    else:
        assert espol is not None
        outcomes = {espol_outcome(espol.send(line).code) for line in espol_lines(cell, world)}
        espol.close()
        assert len(outcomes) == 1, outcomes
        outcome = outcomes.pop()
    after = fingerprint(reader=reader)
    assert outcome == cell.expected, f"{cell.id}: got {outcome}, the matrix says {cell.expected}"
    if cell.expected != "allowed" or cell.action in ("read", "preview"):
        assert after == before, f"{cell.id}: changed the database"
    else:
        assert after != before, f"{cell.id}: allowed, yet nothing changed"


def params(cells: list[Cell]) -> list:
    """The web's cells run in a transaction rolled back at the end; the socket's and
    ESPOL's need the rows committed, for the threads and the server that read them, and
    so does a revocation, which ends the sessions once it commits."""
    return [
        pytest.param(cell, id=cell.id, marks=pytest.mark.django_db(
            transaction=cell.door != "web" or cell.role == "revoked"
        ))
        for cell in cells
    ]


@pytest.mark.parametrize("cell", params(short_run(CELLS)))
def test_the_matrix_holds_one_door_per_action_and_role(cell, request):
    check(cell, request)


@pytest.mark.stress
@pytest.mark.parametrize("cell", params(CELLS))
def test_the_matrix_holds_in_every_cell(cell, request):
    check(cell, request)


# --------------------------------------------------------------------------- coverage


def test_the_table_has_every_action_and_role_and_the_short_run_every_door():
    pairs = {(c.action, c.role) for c in CELLS}
    assert pairs == {(a, r) for a in ACTIONS.values() for r in ROLES.values()}
    short = short_run(CELLS)
    for door in DOORS:
        assert {c.role for c in short if c.door == door} == set(ROLES.values()), door
    for door in ("web", "espol"):
        actions_there = {c.action for c in CELLS if c.door == door}
        assert {c.action for c in short if c.door == door} == actions_there, door


def test_every_action_of_every_door_is_in_the_matrix():
    """A new URL, socket message or ESPOL command that acts on games or challenges must
    get its row."""
    named = {p.name for p in [*game_urls, *lobby_urls]}
    covered_urls = {
        "game_detail", "game_state", "game_pgn", "game_move", "game_move_preview",
        "game_draw_offer", "game_draw_answer", "game_resign", "game_claim_draw",
        "challenge_create", "challenge_accept", "challenge_decline", "challenge_withdraw",
        "notification_open",
    }
    # The lobby's pages are the player's own (dashboard, their game lists, the count of
    # games awaiting them and the next of them, vacation, player lists, leaving;
    # tests/web/test_next_game.py holds "next": only the player's own games).
    # Their notifications' list and "mark all as read" name no one else's rows (and
    # tests/web/test_notifications.py holds them: anonymous, CSRF, only one's own).
    own_pages = {
        "dashboard", "game_list", "awaiting", "vacation", "players", "player_detail",
        "unsubscribe", "notification_list", "notification_read_all", "next_game",
    }
    # Reads of finished games that any logged-in player may make, like a profile's
    # (tests/web/test_archive.py: anonymous visitors are sent to log in).
    public_reads = {"player_archive", "player_archive_pgn", "live_games"}
    # A game's address by its short id: a redirect to the game's page, whose rows hold
    # (a challenge's leads its players alone to their dashboard: tests/games/test_short_ids.py).
    public_reads |= {"game_by_short_id"}
    # A game's chat: who writes in which room, staff, mutes and strangers are held by
    # tests/web/test_chat.py.
    chat = {"game_chat"}
    # A player's own conditional moves, a web door only: the owner, the opponent, a
    # watcher, a stranger and the CSRF check are held by tests/web/test_conditional_views.py.
    conditional = {"game_conditional"}
    # The engine's doors (a game's analysis, fair play while it runs) and a player's
    # private note: held by tests/web/test_analysis_views.py (anonymous, CSRF, watchers,
    # strangers, a game in progress, the socket's "analysis" message).
    engine = {"game_analysis", "game_note"}
    # Open challenges (seeks), offered to every player: the maker alone cancels, the
    # maker cannot take their own, anonymous visitors log in first, CSRF holds
    # (tests/web/test_seek_views.py; the service's refusals: tests/games/test_seeks.py).
    seeks = {"seek_list", "seek_create", "seek_detail", "seek_accept", "seek_cancel"}
    assert (
        named - own_pages - public_reads - chat - conditional - engine - seeks == covered_urls
    )
    assert all(get_resolver().reverse_dict.getlist(name) for name in covered_urls)
    commands = {cls.__name__.upper() for cls in COMMANDS}
    in_matrix = {"STAT", "SPAR", "JGDA", "TBLS", "RTBL", "REND", "FINP", "JUEG", "ACEP"}
    # Login, subscription, and the lists of one's own challenges, games and the ranking.
    own = {"USER", "PASS", "SUBS", "UNSU", "TRAN", "JAUT", "PPEN", "SRNK"}
    assert commands == in_matrix | own
    socket_types = set(SOCKET_MESSAGES) | {"read"}
    assert {c.action for c in CELLS if c.door == "socket"} == socket_types
