from django.apps import AppConfig


class LegacyTcpConfig(AppConfig):
    name = "legacy_tcp"
    verbose_name = "Legacy TCP gateways"

    def ready(self) -> None:
        from legacy_tcp import checks  # noqa: F401  (registers the gateways' checks)
