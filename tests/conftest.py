"""Settings for the whole suite: the hypothesis profile.

Property tests run a few examples in everyday runs and their full count in CI:
``HYPOTHESIS_PROFILE=ci`` (set by ``.ci/run``) selects the full count. Tests that
name their count use ``support.examples(n)``, which follows the same profile.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev",
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
