"""Top-level URLs."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/", include("accounts.urls")),
    path("games/", include("games.urls")),
    path("ranking/", include("ranking.urls")),
    path("", include("games.lobby_urls")),
]
