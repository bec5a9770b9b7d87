"""The package must be exactly what the notebooks export, and the notebooks must be clean.

Both checks run nbdev on a copy of the repository, so they never modify the working tree and do not
depend on git state: export the copied notebooks and compare every module; clean the copied notebooks
and compare every notebook byte for byte.
"""
import filecmp, shutil, subprocess, sys
from pathlib import Path
from conftest import ROOT

BIN = Path(sys.executable).parent


def _copy_project(dst: Path) -> Path:
    shutil.copy(ROOT / "settings.ini", dst / "settings.ini")
    shutil.copy(ROOT / "pyproject.toml", dst / "pyproject.toml")
    shutil.copytree(ROOT / "nbs", dst / "nbs", ignore=shutil.ignore_patterns(".ipynb_checkpoints", "_*"))
    shutil.copytree(ROOT / "reveal_nb", dst / "reveal_nb", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run(["git", "init", "-q"], cwd=dst, check=True)
    return dst


def _sources(root: Path, pattern: str) -> set[str]:
    "Files under root as _copy_project copies them: build output (`_build`, `_executed`) and checkpoints left out."
    return {p.relative_to(root).as_posix() for p in root.rglob(pattern)
            if not any(part.startswith("_") or part == ".ipynb_checkpoints" or part == "__pycache__" for part in p.relative_to(root).parts[:-1])}


def _differing(a: Path, b: Path, pattern: str) -> list[str]:
    names = sorted(_sources(a, pattern) | _sources(b, pattern))
    return [n for n in names if not ((a / n).exists() and (b / n).exists() and filecmp.cmp(a / n, b / n, shallow=False))]


def test_package_matches_notebooks(tmp_path):
    proj = _copy_project(tmp_path)
    subprocess.run([str(BIN / "nbdev_export")], cwd=proj, check=True, capture_output=True)
    stale = _differing(ROOT / "reveal_nb", proj / "reveal_nb", "*.py")
    assert not stale, f"reveal_nb/ differs from what the notebooks export: {stale}. Run nbdev_export and commit both."


def test_notebooks_are_clean(tmp_path):
    proj = _copy_project(tmp_path)
    subprocess.run([str(BIN / "nbdev_clean"), "--fname", "nbs"], cwd=proj, check=True, capture_output=True)
    dirty = _differing(ROOT / "nbs", proj / "nbs", "*.ipynb")
    assert not dirty, f"notebooks not clean (outputs/metadata left in): {dirty}. Run nbdev_clean and commit."


def test_clean_keeps_papermill_parameters_tag(tmp_path):
    import json, nbformat
    proj = _copy_project(tmp_path)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("tau = 0.7", metadata={"tags": ["parameters"], "collapsed": True})])
    nbformat.write(nb, proj / "nbs" / "zz_report.ipynb")
    subprocess.run([str(BIN / "nbdev_clean"), "--fname", "nbs/zz_report.ipynb"], cwd=proj, check=True, capture_output=True)
    meta = json.loads((proj / "nbs" / "zz_report.ipynb").read_text())["cells"][0]["metadata"]
    assert meta == {"tags": ["parameters"]}


def test_cells_nbdev_skips_are_skipped_by_the_book():
    "`#| eval: false` is nbdev's; Jupyter Book executes a chapter unless the cell is tagged skip-execution."
    import json
    untagged = [f"{p.name} cell {i}" for p in sorted((ROOT / "nbs").glob("*.ipynb"))
                for i, c in enumerate(json.loads(p.read_text())["cells"])
                if c["cell_type"] == "code" and any(l.strip() == "#| eval: false" for l in "".join(c["source"]).splitlines())
                and "skip-execution" not in c.get("metadata", {}).get("tags", [])]
    assert not untagged, f"cells nbdev does not run but the book would: {untagged}; tag them skip-execution"
