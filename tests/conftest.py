"""Test-wide setup: the web tests' Django points at a throwaway data folder.

Set before pytest-django sets Django up, so that no test touches the user's own data
folder (the secret key file, the SQLite database). DATABASE_URL, when set, selects
PostgreSQL for the web tests (`.ci/run` does that for a second run).
"""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("PITCHPASS_HOME", tempfile.mkdtemp(prefix="pitchpass-test-"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pitchpass.web.settings")

import django

django.setup()

import profiles  # noqa: E402, F401  # Hypothesis: the `ci` profile unless HYPOTHESIS_PROFILE says
