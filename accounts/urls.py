"""Account pages: subscription, login and logout, password, unsubscribe, preferences."""

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
    path("preferences/", views.preferences, name="preferences"),
    path("preferences/restore/", views.preferences_restore, name="preferences_restore"),
    path("mail/stop/<str:token>/", views.mail_stop, name="mail_stop"),
]
