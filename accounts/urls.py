"""Account pages: subscription, login and logout, password (the preferences page and the
mail links are :mod:`games.preferences`'s, as they name the games' notifications)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views

urlpatterns = [
    path("subscribe/", views.subscribe, name="subscribe"),
    path("subscribe/done/", views.subscribe_done, name="subscribe_done"),
    path("login/", views.AjedrezLoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
]
