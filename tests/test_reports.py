"""The report notebooks, run for real by papermill (`reveal-nb figures`) with tiny parameters, and the book built
from them and opened in headless Chromium.

One tiny run (reveal-synth tiny test split, bundled models, K = 2, runs computed first in two processes as `make
figures` does) serves every test here; it takes a few minutes.
"""
import json, os, re, shutil, subprocess, sys
from pathlib import Path
import pandas as pd
import pytest
from conftest import ROOT

# xdist_group: the tests share the module's expensive fixture, so parallel workers keep them on one worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("reports")]
BIN = Path(sys.executable).parent
REPORTS = ["table1_main", "table2_ablation", "tables34_efficiency", "fig4a_volume", "fig4b_calibration", "fig4c_types",
           "fig5_case", "oracle", "sweep_theta-0.8", "sweep_heatmap"]
TINY = ["--size", "tiny", "--root", "{data}", "--splits", "test", "--runs", "{runs}", "--out", "{out}",
        "--set", "max_rounds=2",
        "--param", "probe_rounds=2", "--param", "Ks=[1,2]", "--param", "ks=[1,4]", "--jobs", "2", "--pool", "starter"]


def figures(tmp, *extra):
    args = [a.format(data=tmp / "data", runs=tmp / "runs", out=tmp / "figures") for a in TINY]
    res = subprocess.run([str(BIN / "reveal-nb"), "figures", *args, *extra], cwd=ROOT, capture_output=True, text=True, timeout=3600)
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-4000:]
    return res.stdout


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reports")
    out = figures(tmp)
    return tmp, out


def test_every_report_writes_its_files(tiny):
    tmp, out = tiny
    assert "prefetch (2 processes)" in out and re.search(r"prefetched reveal-\w+ \(2 questions\)", out), out[-2000:]
    for name in REPORTS:
        meta = json.loads((tmp / "figures" / f"{name}.json").read_text())
        assert meta["n"] >= 1 and "backbone" in meta and "parameters" in meta, name
        if name != "fig5_case":             # the case study may honestly find no qualifying question
            assert (tmp / "figures" / f"{name}.csv").stat().st_size > 0, name
        if not name.startswith("sweep_theta"):
            assert (tmp / "figures" / f"{name}.png").stat().st_size > 1000 and (tmp / "figures" / f"{name}.svg").exists(), name
    t2 = pd.read_csv(tmp / "figures" / "table2_ablation.csv")
    assert list(t2.variant) == ["m_base", "iter", "offmem", "onmem", "reveal", "no_rubric"]
    assert t2.published.notna().sum() == 5                      # every ladder row but the no-rubric one has a published number
    assert set(t2.n) == {2} and t2.accuracy.between(0, 1).all()
    paired = pd.read_csv(tmp / "figures" / "table2_paired.csv")     # REVEAL against every other row
    assert list(paired.other) == ["m_base", "iter", "offmem", "onmem", "no_rubric"] and set(paired.n) == {2}
    assert (paired.ci_low <= paired.difference).all() and paired.mcnemar_p.between(0, 1).all()
    grid = pd.read_csv(tmp / "figures" / "sweep_theta-0.8.csv")
    assert len(grid) == 2 * 6 and set(grid.K) == {1, 2} and {0.45, 0.7} <= set(grid.tau)  # the default and the paper's τ
    assert (grid[grid.K == 1].mean_rounds == 1).all()
    sweep = json.loads((tmp / "runs" / "notebooks" / "sweep_theta-0.8.ipynb").read_text())
    title = "".join(next(c for c in sweep["cells"] if c["cell_type"] == "markdown")["source"]).split("\n")[0]
    assert title.startswith("# Sweep") and title.endswith("(theta = 0.8)"), title      # the book tells the θ copies apart
    fig5 = (tmp / "figures" / "fig5_case.txt").read_text()
    assert fig5.startswith(("Chosen by rule:", "No case study"))


def test_rerun_reuses_every_trace(tiny):
    tmp, _ = tiny
    runs = tmp / "runs"
    before = {p: p.read_bytes() for p in runs.glob("*/*.jsonl")} | {p: p.read_bytes() for p in runs.glob("*.jsonl")}
    assert any(p.name == "round_answers.jsonl" for p in before) and any(p.name == "traces.jsonl" for p in before)
    figures(tmp, "--only", "table2_ablation,fig4a_volume,fig4b_calibration")
    after = {p: p.read_bytes() for p in runs.glob("*/*.jsonl")} | {p: p.read_bytes() for p in runs.glob("*.jsonl")}
    assert before == after                                      # nothing was run again: no trace or answer appended


def test_book_builds_and_shows_chapters_and_figures(tiny, tmp_path):
    tmp, _ = tiny
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.fail("Chromium is missing: `make test` installs Debian's chromium package")
    src = tmp_path / "project"
    shutil.copytree(ROOT / "nbs", src / "nbs", ignore=shutil.ignore_patterns("_build", "_executed", ".ipynb_checkpoints"))
    shutil.copytree(tmp / "figures", src / "figures")
    (src / "nbs" / "reports" / "_executed").mkdir()
    for nb in (tmp / "runs" / "notebooks").glob("*.ipynb"):
        shutil.copy(nb, src / "nbs" / "reports" / "_executed" / nb.name)
    cfg = (src / "nbs" / "_config.yml").read_text().replace("execute_notebooks: cache", "execute_notebooks: \"off\"")
    (src / "nbs" / "_config.yml").write_text(cfg)       # the chapters' execution is `make book`'s job; here the build itself is tested
    res = subprocess.run([str(BIN / "jupyter-book"), "build", str(src / "nbs")], capture_output=True, text=True, timeout=1800)
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-4000:]
    html = src / "nbs" / "_build" / "html"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", f"--user-data-dir={tmp_path / 'chrome'}",
             "--virtual-time-budget=5000"]          # index.html redirects to the intro page: let the redirect happen
    dom = subprocess.run([chromium, *flags, "--dump-dom", (html / "index.html").as_uri()], capture_output=True, text=True, timeout=120).stdout
    for title in ("The loop", "Core", "Memory", "Table 2", "Figure 4b"):
        assert title in dom, f"{title!r} missing from the rendered index page"
    images = re.findall(r'<img[^>]*\ssrc="([^"]+)"', dom)
    assert any("table2_ablation" in s for s in images), images
    assert all((html / s).exists() for s in images if not s.startswith(("http", "data:"))), images
    page = next(html.glob("reports/_executed/table2_ablation.html"))
    shot = tmp_path / "table2.png"
    subprocess.run([chromium, *flags, f"--screenshot={shot}", "--window-size=1280,2400", page.as_uri()], capture_output=True, timeout=120)
    assert shot.stat().st_size > 20_000
    keep = os.environ.get("REVEAL_NB_SCREENSHOTS")
    if keep: shutil.copy(shot, keep)
