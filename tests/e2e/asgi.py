"""The application as the browser tests serve it: the project's ASGI app with static
files served too (as ``manage.py serve`` does), run by Daphne in a subprocess."""

from __future__ import annotations

from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

from ajedrez.asgi import application as project_application

application = ASGIStaticFilesHandler(project_application)
