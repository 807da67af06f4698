"""Shared helpers for the etprof Python package tests: the fixtures folder,
the CLI to compare against, and a scratch directory."""
import json
import os
import subprocess
import sys

import pytest

SOURCE = os.environ.get("ETP_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "python"))

FIXTURES = os.environ.get("ETP_FIXTURES", os.path.join(SOURCE, "..", "shared", "fixtures"))
RUNS = os.path.join(FIXTURES, "real-runs")
CLI = os.environ.get("ETPROF", os.path.join(SOURCE, "build", "etprof"))
UNDER_ASAN = os.environ.get("ETP_ASAN") == "1"


def run(name, ext="pte"):
    return os.path.join(RUNS, f"{name}.{ext}")


def cli(*args, check=True):
    """Run the CLI; its stdout (or the completed process when check=False)."""
    p = subprocess.run([CLI, *args], capture_output=True, text=True)
    if check:
        assert p.returncode == 0, p.stderr
        return p.stdout
    return p


def cli_json(*args):
    return json.loads(cli(*args))


def pytest_configure(config):
    # Only an absent fixtures folder may skip (the suite's rule), with exit 77.
    if not os.path.isdir(RUNS):
        pytest.exit(f"SKIP: {RUNS} absent", returncode=77)
