from django.apps import AppConfig


class AjedrezConfig(AppConfig):
    name = "ajedrez"
    verbose_name = "Ajedrez"
