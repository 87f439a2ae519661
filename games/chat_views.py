"""The game's chat over HTTP: write a line, read the rooms the viewer may read. The
page uses these when its socket is down; the socket carries the same through
:mod:`games.chat` otherwise."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from accounts.types import AuthenticatedRequest
from games import chat, errors
from games.web import error_status, game_or_404, wants_json


class ChatForm(forms.Form):
    # The service checks the length again (after stripping), as every door must.
    text = forms.CharField(max_length=2000, strip=False, label=gettext_lazy("Message"))


@login_required
@require_http_methods(["GET", "POST"])
def game_chat(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    """Write in the game's chat (the players' room for a player, else the spectators');
    GET reads the rooms the viewer may read, as JSON (the page asks for the spectators'
    room when the game ends: its players read it from then on)."""
    if request.method == "GET":
        return _chat_rooms(request, pk)
    form = ChatForm(request.POST)
    try:
        if not form.is_valid():
            raise errors.ChatMessageInvalid()
        message = chat.post_message(
            game_id=pk, author=request.user, text=form.cleaned_data["text"]
        )
    except errors.DomainError as error:
        if isinstance(error, errors.GameNotFound) and not wants_json(request):
            raise Http404(error.message) from error
        if wants_json(request):
            response = JsonResponse(
                {"type": "error", **error.as_dict()}, status=error_status(error)
            )
            if isinstance(error, errors.ChatRateLimited):
                response["Retry-After"] = str(error.details.get("retry_after", 1))
            return response
        messages.error(request, error.message)
        return redirect("game_detail", pk=pk)
    if wants_json(request):
        return JsonResponse({"type": "chat", **chat.message_state(message)})
    return redirect(f"{reverse('game_detail', args=[pk])}#chat")


def _chat_rooms(request: AuthenticatedRequest, pk: int) -> JsonResponse:
    rooms = chat.messages_for(game_or_404(pk), request.user)
    return JsonResponse(
        {
            "type": "chat_rooms",
            "rooms": {
                room: [chat.message_state(line) for line in lines] for room, lines in rooms.items()
            },
        }
    )
