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

        from games.analysis_tasks import queue_analysis, queue_position
        from games.signals import analysis_requested, position_evaluation_requested

        analysis_requested.connect(queue_analysis, dispatch_uid="games.analysis")
        position_evaluation_requested.connect(queue_position, dispatch_uid="games.position")


def end_games_of_closing_account(sender: Any, player: Any, **kwargs: Any) -> None:
    """An account is closing: it leaves its tournaments (their games forfeited and scored
    by ICCF's rule), then its other games in progress end as losses, its challenges
    close."""
    from games.services import abandon_games, withdraw_everywhere

    withdraw_everywhere(player=player)
    abandon_games(player=player)
