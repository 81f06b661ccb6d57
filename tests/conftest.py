"""Shared test settings and the one quick report the report and advisor tests read."""

import importlib.util
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, settings

# numba compiles on first use; no per-example deadline
settings.register_profile(
    "project", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("project")

# a tiny report with the two sections that write the advice tables
REPORT_ARGS = ["report", "--rules", "standard", "--quick", "--games", "60", "--players", "3,4",
               "--section", "assaf-risk", "--section", "when-to-call", "--quiet"]  # fmt: skip


@pytest.fixture(scope="session")
def report(tmp_path_factory):
    """A folder with the report in ``out/`` and its datasets in ``data/``; do not change it."""
    from yaniv_sim.cli import main

    root = tmp_path_factory.mktemp("report")
    runner = CliRunner()
    result = runner.invoke(main, [*REPORT_ARGS, "--out", str(root / "out"),
                                  "--data", str(root / "data")])  # fmt: skip
    assert result.exit_code == 0, result.output
    return root


def load_script(name: str):
    """One of the project's ``scripts/NAME.py``, imported as a module (they are not a package)."""
    path = Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
