"""The analysis board, mounted at ``/analysis/``."""

from django.urls import path

from games import analysis_views

urlpatterns = [
    path("", analysis_views.analysis_board, name="analysis_board"),
    path("evaluation/", analysis_views.position_evaluation, name="position_evaluation"),
]
