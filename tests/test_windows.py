"""What a reader sees on a code host without running anything: the loop chapter's trace window matches the
committed run's file, and every report notebook shows its committed figure."""
import json, re
from conftest import ROOT
from reveal_nb.report.pages import stale_windows


def test_windows_show_the_committed_files():
    assert stale_windows(ROOT / "nbs", ROOT) == [], "run `reveal-nb figures` (or `reveal_nb.report.pages.refresh_windows()`)"


def test_the_loop_chapter_opens_with_a_trace_window():
    nb = json.loads((ROOT / "nbs" / "01_loop.ipynb").read_text())
    first = [c for c in nb["cells"] if c["cell_type"] == "markdown"][:3]
    assert any("window:figures/fig5_case.txt" in c["metadata"].get("tags", []) for c in first)


def test_every_report_notebook_shows_its_committed_figure_under_its_title():
    for p in sorted((ROOT / "nbs" / "reports").glob("*.ipynb")):
        cells = json.loads(p.read_text())["cells"][1:2]
        assert cells and "remove-cell" in cells[0]["metadata"].get("tags", []), f"{p.name}: no committed figure under the title"
        images = [m for c in cells for m in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", "".join(c["source"]))]
        assert images, f"{p.name}: no committed figure shown"
        for im in images: assert (p.parent / im).resolve().exists(), f"{p.name}: {im} is missing"


def test_kept_outputs_are_what_the_cells_print():
    "Cells tagged keep-output carry their text output in the committed notebook; it must be what they print now."
    from reveal_nb.report.pages import KEEP_OUTPUT, stale_outputs
    kept = [p for p in sorted((ROOT / "nbs").glob("*.ipynb")) if f'"{KEEP_OUTPUT}"' in p.read_text()]
    assert kept, "no chapter keeps an output"
    stale = [s for p in kept for s in stale_outputs(p)]
    assert not stale, f"run reveal_nb.report.pages.refresh_outputs on: {stale}"
