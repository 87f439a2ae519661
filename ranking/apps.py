from django.apps import AppConfig


class RankingConfig(AppConfig):
    name = "ranking"
    verbose_name = "Ranking"

    def ready(self) -> None:
        from ranking import signals  # noqa: F401
