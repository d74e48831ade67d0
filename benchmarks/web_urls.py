"""pitchpass's URLs and `/bench/bare`, the baseline of `benchmarks/web.py`: the least a
Django endpoint does for a write (POST: read the JSON body, insert one row, answer its id)
and for a read (GET: select one row, answer it as JSON)."""

from __future__ import annotations

import json

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
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


urlpatterns = [path("bench/bare", bare), *app]
