"""The game page and its actions, mounted at ``/games/``."""

from __future__ import annotations

from django.urls import path, register_converter

from games import analysis_views, chat_views, views


class ShortIdConverter:
    """A game's short id (``games.models.games.is_short_id``): eight letters and
    digits, never all digits, so ``/games/12/`` stays the game numbered 12."""

    regex = "(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{8}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(ShortIdConverter, "shortid")

urlpatterns = [
    path("<int:pk>/", views.game_detail, name="game_detail"),
    path("<shortid:short_id>/", views.game_by_short_id, name="game_by_short_id"),
    path("<int:pk>/state/", views.game_state_view, name="game_state"),
    path("<int:pk>/pgn/", views.game_pgn, name="game_pgn"),
    path("<int:pk>/chat/", chat_views.game_chat, name="game_chat"),
    path("<int:pk>/conditional/", views.game_conditional, name="game_conditional"),
    path("<int:pk>/move/", views.game_move, name="game_move"),
    path("<int:pk>/move/preview/", views.game_move_preview, name="game_move_preview"),
    path("<int:pk>/draw/offer/", views.game_draw_offer, name="game_draw_offer"),
    path("<int:pk>/draw/answer/", views.game_draw_answer, name="game_draw_answer"),
    path("<int:pk>/resign/", views.game_resign, name="game_resign"),
    path("<int:pk>/draw/claim/", views.game_claim_draw, name="game_claim_draw"),
    path("<int:pk>/analysis/", analysis_views.game_analysis, name="game_analysis"),
    path("<int:pk>/note/", analysis_views.game_note, name="game_note"),
]
