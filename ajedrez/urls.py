"""Top-level URLs."""

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from accounts import views as accounts_views
from ajedrez import faults


class FaviconView(RedirectView):
    """``/favicon.ico``, which browsers ask for on pages without an icon link (a PDF,
    the admin's raw views): the site's icon. Resolved per request, as static names may
    be hashed."""

    permanent = False

    def get_redirect_url(self, *args: object, **kwargs: object) -> str:
        return static("img/favicon.svg")


# 503 for a database or Redis that is down, JSON unless a page was asked for.
handler500 = "ajedrez.faults.server_error"

urlpatterns = [
    path("favicon.ico", FaviconView.as_view()),
    path("healthz", faults.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    # Django's language switcher (django.conf.urls.i18n), remembering a player's choice.
    path("i18n/setlang/", accounts_views.set_language, name="set_language"),
    path("accounts/", include("accounts.urls")),
    path("games/", include("games.urls")),
    path("ranking/", include("ranking.urls")),
    path("", include("games.lobby_urls")),
]
