"""Hypothesis profiles: `ci` (the default) draws the same cases every run, so that
`make test` is deterministic; `thorough` draws new ones each run, and more of them:

    HYPOTHESIS_PROFILE=thorough .venv/bin/pytest tests/core

(a property that fails there prints the case and a `@reproduce_failure` line to keep).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
SCALE = 10 if PROFILE == "thorough" else 1

_COMMON = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
settings.register_profile("ci", derandomize=True, **_COMMON)  # type: ignore[arg-type]
settings.register_profile("thorough", derandomize=False, **_COMMON)  # type: ignore[arg-type]
settings.load_profile(PROFILE)


def examples(n: int) -> int:
    """`n` cases in CI, ten times as many in the thorough profile."""
    return n * SCALE
