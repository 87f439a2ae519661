"""The game page and its actions, mounted at ``/games/``."""

from __future__ import annotations

from django.urls import path

from games import views

urlpatterns = [
    path("<int:pk>/", views.game_detail, name="game_detail"),
    path("<int:pk>/state/", views.game_state_view, name="game_state"),
    path("<int:pk>/pgn/", views.game_pgn, name="game_pgn"),
    path("<int:pk>/chat/", views.game_chat, name="game_chat"),
    path("<int:pk>/conditional/", views.game_conditional, name="game_conditional"),
    path("<int:pk>/move/", views.game_move, name="game_move"),
    path("<int:pk>/move/preview/", views.game_move_preview, name="game_move_preview"),
    path("<int:pk>/draw/offer/", views.game_draw_offer, name="game_draw_offer"),
    path("<int:pk>/draw/answer/", views.game_draw_answer, name="game_draw_answer"),
    path("<int:pk>/resign/", views.game_resign, name="game_resign"),
    path("<int:pk>/draw/claim/", views.game_claim_draw, name="game_claim_draw"),
]
