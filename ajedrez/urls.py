"""Top-level URLs."""

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from accounts import views as accounts_views


class FaviconView(RedirectView):
    """``/favicon.ico``, which browsers ask for on pages without an icon link (a PDF,
    the admin's raw views): the site's icon. Resolved per request, as static names may
    be hashed."""

    permanent = False

    def get_redirect_url(self, *args: object, **kwargs: object) -> str:
        return static("img/favicon.svg")


urlpatterns = [
    path("favicon.ico", FaviconView.as_view()),
    path("admin/", admin.site.urls),
    # Django's language switcher (django.conf.urls.i18n), remembering a player's choice.
    path("i18n/setlang/", accounts_views.set_language, name="set_language"),
    path("accounts/", include("accounts.urls")),
    path("games/", include("games.urls")),
    path("ranking/", include("ranking.urls")),
    path("", include("games.lobby_urls")),
]
