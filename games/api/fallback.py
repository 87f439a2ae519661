"""Any path under ``/api/`` that names no endpoint: lichess's JSON 404, not the site's
page (nor, for a POST, the CSRF refusal's)."""

from __future__ import annotations

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.views.decorators.csrf import csrf_exempt

from games.api import gate


@csrf_exempt
def not_found(request: HttpRequest) -> HttpResponseBase:
    return gate.not_found(request)
