"""Run every component notebook's cells as tests (nbdev's test runner, one notebook per test).

Cells flagged `#| slow` load real models; `make test` runs them, `make test-fast` (REVEAL_NB_FAST=1) skips them.
Each notebook runs in its own process, so one notebook's state cannot leak into another's.
"""
import os, subprocess, sys
from pathlib import Path
import pytest
from conftest import ROOT

NOTEBOOKS = sorted((ROOT / "nbs").glob("[0-9]*.ipynb"))
FAST = os.environ.get("REVEAL_NB_FAST") == "1"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(nb, tmp_path):
    flags = "" if FAST else "slow"
    nbdev_test = Path(sys.executable).parent / "nbdev_test"
    res = subprocess.run([str(nbdev_test), "--path", str(nb), "--flags", flags, "--do_print"],
                         cwd=ROOT / "nbs", capture_output=True, text=True, timeout=3600)
    assert res.returncode == 0, f"{nb.name} failed:\n{res.stdout[-6000:]}\n{res.stderr[-6000:]}"


