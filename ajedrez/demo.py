"""Demo data for a first start: an administrator, a few players, games in progress.

Everything goes through the real services (subscription, approval, challenges, moves), so
the demo shows exactly what players would have produced.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from accounts import services as accounts
from accounts.models import SubscriptionRequest
from accounts.types import Player
from games import mail as games_mail
from games import services as games
from games.models import Game

User = get_user_model()

ADMIN_USERNAME = "admin"
PLAYER_PASSWORD = "ajedrez-demo"
PLAYERS = {
    "alice": "Alice Andrade",
    "bob": "Bob Benítez",
    "carol": "Carol Cedeño",
    "dave": "Dave Delgado",
    "eve": "Eve Espinoza",
}
PENDING_REQUEST = ("frank", "Frank Franco")

# (white, black, moves): two games in progress and one finished by mate.
GAMES = [
    ("alice", "bob", ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3"]),
    ("carol", "alice", ["d4", "Nf6", "c4", "e6"]),
    ("bob", "dave", ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]),
]


@dataclass(frozen=True)
class DemoCredentials:
    admin_username: str
    admin_password: str
    player_password: str
    players: tuple[str, ...]


def _credentials_file() -> Path:
    return Path(settings.DEMO_CREDENTIALS_FILE)


def ensure_admin() -> str:
    """Make sure the demo administrator exists and return its password.

    The password is generated once and kept in a local untracked file, so every start can
    print it; if the file is lost, the password is reset and the file written again.
    """
    path = _credentials_file()
    password = path.read_text().strip() if path.exists() else ""
    admin = User.objects.filter(username=ADMIN_USERNAME).first()
    if admin is not None and password and admin.check_password(password):
        return password
    password = secrets.token_urlsafe(12)
    if admin is None:
        User.objects.create_superuser(ADMIN_USERNAME, "admin@localhost", password)
    else:
        admin.set_password(password)
        admin.save(update_fields=["password"])
    path.write_text(password + "\n")
    path.chmod(0o600)
    return password


def _ensure_player(username: str, full_name: str, admin: Player) -> Player:
    """The demo player ``username``, asked for and approved as a newcomer would be.

    Each step is its own short transaction, and the request hashes the password before
    its transaction opens (hashing inside one would hold the write lock for the hash).
    A start interrupted between the steps finds the pending request and approves it.
    """
    existing = User.objects.filter(username=username).first()
    if existing is not None:
        return existing
    pending = SubscriptionRequest.objects.filter(
        username=username, status=SubscriptionRequest.Status.PENDING
    ).first()
    if pending is None:
        pending = accounts.request_subscription(
            username=username,
            password=PLAYER_PASSWORD,
            comment=full_name,
            email=f"{username}@example.org",
        )
    return accounts.approve_subscription(request_id=pending.pk, admin=admin)


def seed_players_and_games() -> bool:
    """Create the demo players and games once; returns False when they already exist.

    Frank's request, made last, marks a finished seed: a start interrupted before it
    completes the seed on the next start (each step is idempotent).
    """
    if SubscriptionRequest.objects.filter(username=PENDING_REQUEST[0]).exists():
        return False
    admin = User.objects.get(username=ADMIN_USERNAME)
    users = {
        username: _ensure_player(username, full_name, admin)
        for username, full_name in PLAYERS.items()
    }
    # The games all at once or none; nothing in them hashes a password. Their
    # notifications are kept (the bell shows them) but not mailed: they are not news.
    with games_mail.held(), transaction.atomic():
        if not Game.objects.of_player(users["alice"]).exists():
            for white, black, moves in GAMES:
                challenge = games.challenge(challenger=users[black], challenged=users[white])
                game = games.accept_challenge(
                    challenge_id=challenge.pk, player=users[white], colour="white"
                )
                for number, move in enumerate(moves, start=1):
                    player = users[white] if number % 2 else users[black]
                    games.make_move(
                        game_id=game.pk, player=player, move_number=number, move=move
                    )
            games.challenge(challenger=users["eve"], challenged=users["alice"])
    accounts.request_subscription(
        username=PENDING_REQUEST[0], password=PLAYER_PASSWORD, comment=PENDING_REQUEST[1]
    )
    return True


def seed() -> DemoCredentials:
    password = ensure_admin()
    seed_players_and_games()
    return DemoCredentials(ADMIN_USERNAME, password, PLAYER_PASSWORD, tuple(PLAYERS))
