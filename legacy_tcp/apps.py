from django.apps import AppConfig


class LegacyTcpConfig(AppConfig):
    name = "legacy_tcp"
    verbose_name = "Legacy TCP gateways"
