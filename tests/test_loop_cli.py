"""`reveal-nb demo`, `reveal-nb trace show` and `trace plot` as a user runs them (the demo with the bundled models: slow)."""
import json, subprocess, sys
from pathlib import Path
import pytest

from conftest import CLI


@pytest.mark.slow
def test_demo_then_trace_show(tmp_path):
    run = subprocess.run(CLI + ["demo", "--size", "tiny", "--limit", "2", "--variants", "reveal", "--data", str(tmp_path / "synth"),
                                "--out", str(tmp_path / "run")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    print(run.stdout)
    assert "reveal" in run.stdout and "chance" in run.stdout and "one rendered trace" in run.stdout
    assert (tmp_path / "run" / "reveal" / "example_trace.png").read_bytes()[:4] == b"\x89PNG"
    traces = tmp_path / "run" / "reveal" / "traces.jsonl"
    qid = json.loads(traces.read_text().splitlines()[0])["qid"]
    show = subprocess.run(CLI + ["trace", "show", str(traces), qid], capture_output=True, text=True)
    assert show.returncode == 0 and show.stdout.startswith(qid) and "Round 0" in show.stdout and "rho = " in show.stdout
    missing = subprocess.run(CLI + ["trace", "show", str(traces), "no-such-question"], capture_output=True, text=True)
    assert missing.returncode == 2 and "traces.jsonl: field 'qid'" in missing.stderr and qid in missing.stderr


def test_trace_show_of_a_missing_file_is_a_clear_error(tmp_path):
    res = subprocess.run(CLI + ["trace", "show", str(tmp_path / "none.jsonl"), "q1"], capture_output=True, text=True)
    assert res.returncode == 2 and "none.jsonl" in res.stderr


def test_demo_rejects_an_unknown_variant(tmp_path):
    res = subprocess.run(CLI + ["demo", "--variants", "reveal,magic", "--data", str(tmp_path / "d"), "--out", str(tmp_path / "o")],
                         capture_output=True, text=True)
    assert res.returncode == 2 and "magic" in res.stderr and "unknown variant" in res.stderr


def test_trace_plot_draws_a_real_trace(tmp_path):
    "`reveal-nb trace plot` writes one question's run as a picture (the committed example of chapter 07c)."
    from conftest import ROOT
    example = ROOT / "figures" / "trace_example.jsonl"
    res = subprocess.run(CLI + ["trace", "plot", str(example), "synth-small-dev-000-q003", "--out", str(tmp_path / "t.svg")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-2000:]
    assert (tmp_path / "t.svg").read_text().lstrip().startswith("<?xml")
    bad = subprocess.run(CLI + ["trace", "plot", str(example), "synth-small-dev-000-q003", "--out", str(tmp_path / "t.jpg")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "png or .svg" in bad.stderr and "Traceback" not in bad.stderr
    assert not (tmp_path / "t.jpg").exists()
