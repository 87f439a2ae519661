from typing import Any

from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from accounts.signals import account_closing

        account_closing.connect(end_games_of_closing_account, dispatch_uid="games.abandon")

        from games.signals import notification_created
        from games.tasks import queue_mail

        notification_created.connect(queue_mail, dispatch_uid="games.mail")


def end_games_of_closing_account(sender: Any, player: Any, **kwargs: Any) -> None:
    """An account is closing: its games in progress end as losses, its challenges close."""
    from games.services import abandon_games

    abandon_games(player=player)
