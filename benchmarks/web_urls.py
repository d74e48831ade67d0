"""pitchpass's URLs and `/bench/bare`, the baseline of `benchmarks/web.py`: the least a
Django endpoint does for a write (POST: read the JSON body, insert one row, answer its id)
and for a read (GET: select one row, answer it as JSON); `/bench/locked`, the least a
write does that waits its turn (POST: lock one row, the same for every call, as a
submission locks its match; insert; commit); and `/bench/page`, the least a signed-in
page does (the session read, one row selected, a small template rendered)."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import engines
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from pitchpass.web.http.urls import handler500  # noqa: F401
from pitchpass.web.http.urls import urlpatterns as app


@csrf_exempt
def bare(request: HttpRequest) -> HttpResponse:
    with connection.cursor() as cursor:
        if request.method == "POST":
            body = json.loads(request.body)
            cursor.execute(
                "INSERT INTO bench_bare (body) VALUES (%s) RETURNING id", [json.dumps(body)]
            )
            return JsonResponse({"id": cursor.fetchone()[0]}, status=201)
        cursor.execute("SELECT id, body FROM bench_bare WHERE id = %s", [1])
        row = cursor.fetchone()
        return JsonResponse({"id": row[0], "body": json.loads(row[1])})


@csrf_exempt
def locked(request: HttpRequest) -> HttpResponse:
    body = json.loads(request.body)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE bench_turn SET n = n + 1 WHERE id = 1")
        cursor.execute("INSERT INTO bench_bare (body) VALUES (%s) RETURNING id", [json.dumps(body)])
        made = cursor.fetchone()[0]
    return JsonResponse({"id": made}, status=201)


PAGE = engines["django"].from_string(
    "<!doctype html><html lang=en><title>bare page</title><h1>Row {{ id }}</h1>"
    "<p>{{ body }}</p><p>Signed in as {{ user.get_username }}</p></html>"
)


@login_required
def page(request: HttpRequest) -> HttpResponse:
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, body FROM bench_bare WHERE id = %s", [1])
        row = cursor.fetchone()
    return HttpResponse(PAGE.render({"id": row[0], "body": row[1], "user": request.user}))


urlpatterns = [
    path("bench/bare", bare),
    path("bench/locked", locked),
    path("bench/page", page),
    *app,
]
