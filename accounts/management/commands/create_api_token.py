"""``manage.py create_api_token USERNAME [--scope SCOPE ...]``: a personal access token of
the lichess-compatible API for a player, printed as the last line of the output (so a
script can take it with ``tail -n 1``). Without ``--scope`` the token has every scope."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts import selectors, tokens
from ajedrez.core.errors import DomainError


class Command(BaseCommand):
    help = "Make a personal API access token for a player and print it (last line)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", help="the player's user name")
        parser.add_argument(
            "--scope",
            action="append",
            dest="scopes",
            choices=list(tokens.SCOPES),
            help="a scope the token has (repeat for several; none named: every scope)",
        )
        parser.add_argument(
            "--description", default="manage.py create_api_token", help="what it is for"
        )

    def handle(self, *args: object, **options: Any) -> None:
        username = str(options["username"])
        scopes: list[str] = options["scopes"] or list(tokens.SCOPES)
        try:
            player = selectors.active_player(username)
            token, text = tokens.create_token(
                player=player, description=str(options["description"]), scopes=scopes
            )
        except DomainError as exc:
            raise CommandError(f"{username}: {exc.message}") from exc
        self.stdout.write(f"Token for {player.username}, scopes: {' '.join(token.scopes)}")
        self.stdout.write(text)
