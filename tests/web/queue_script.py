"""`python queue_script.py enqueue-nap DIR` or `rows`: acts on the database of its
environment (PITCHPASS_HOME or DATABASE_URL), as a server process would."""

from __future__ import annotations

import json
import sys

from pitchpass.web.setup import configure, migrate

configure()
migrate()

import jobs_for_tests  # noqa: E402  (Django is set up first)
from django_tasks_db.models import DBTaskResult  # noqa: E402

if sys.argv[1] == "enqueue-nap":
    jobs_for_tests.nap.enqueue(sys.argv[2], 60)
else:
    rows = DBTaskResult.objects.order_by("enqueued_at")
    print(json.dumps([{"status": r.status, "workers": r.worker_ids} for r in rows]))
