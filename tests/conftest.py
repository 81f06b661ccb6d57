"""Shared test settings."""

from hypothesis import HealthCheck, settings

# numba compiles on first use; no per-example deadline
settings.register_profile(
    "project", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("project")
