"""The shop's URLs, plus the bare view the notifications endpoint is compared with."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from ..bare import insert_body


@csrf_exempt
@require_POST
def bare_view(request: HttpRequest) -> HttpResponse:
    """The least a notification endpoint can do and keep it: store the body, one INSERT."""
    insert_body(request.body)
    return HttpResponse(b'{"stored": true}', content_type="application/json")


urlpatterns = [
    path("bench/bare/", bare_view),
    path("", include("example_project.urls")),
]
