"""Every bad input a user can hand the CLI gets exit code 2 and one line on stderr naming the file (or URL)
and the problem, never a traceback. Each case builds its broken input in a fresh folder; none loads a model."""
import json, subprocess, sys
from pathlib import Path
import pytest

from conftest import CLI


def _video(t):
    "A file with a video's name; the cases below fail before anything decodes it."
    (t / "v.mp4").write_bytes(b"\0" * 64)
    return str(t / "v.mp4")


def _narration(t, content):
    (t / "n.json").write_text(content if isinstance(content, str) else json.dumps(content))
    return ["memory", "build", _video(t), "--captions", str(t / "n.json"), "--set", f"memory_dir={t / 'mem'}"]


def _synth_root(t, manifest, record):
    (t / "syn" / "annotations").mkdir(parents=True)
    (t / "syn" / "annotations" / "test.jsonl").write_text(json.dumps(record) + "\n")
    if manifest is not None: (t / "syn" / "manifest.json").write_text(manifest)
    return ["data", "check", "reveal-synth", "--root", str(t / "syn")]


_SYNTH_RECORD = dict(qid="q1", video_id="v1", question="What?", options={"A": "a", "B": "b"}, answer="A", type="attribute")


def _lvb(t, content):
    (t / "lvb").mkdir()
    (t / "lvb" / "lvb_val.json").write_text(json.dumps(content))
    return ["data", "check", "longvideobench", "--root", str(t / "lvb")]


_LVB = dict(id="x1", video_id="v", question="Q?", candidates=["a", "b"], correct_choice=True, video_path="v.mp4", duration=10.0)


def _half_built(t):
    (t / "mem" / "abc").mkdir(parents=True)
    (t / "mem" / "abc" / "meta.json").write_text(json.dumps({"complete": False}))
    return ["memory", "show", str(t / "mem" / "abc")]


def _videomme_corrupt(t):
    (t / "vm" / "videomme").mkdir(parents=True)
    (t / "vm" / "videomme" / "test-00000-of-00001.parquet").write_bytes(b"PAR1 not really a parquet")
    return ["data", "check", "videomme", "--root", str(t / "vm")]


CASES = {
    # case: (builds the input in tmp_path and returns the CLI arguments, text stderr must contain)
    "memory build: video missing": (lambda t: ["memory", "build", str(t / "none.mp4"), "--captions", str(t / "none.json")], "none.mp4"),
    "memory show: video missing": (lambda t: ["memory", "show", str(t / "none.mp4")], "none.mp4"),
    "memory show: build not finished": (_half_built, "did not finish"),
    "narration missing": (lambda t: ["memory", "build", _video(t), "--captions", str(t / "gone.json")], "gone.json"),
    "narration not JSON": (lambda t: _narration(t, "{not json"), "n.json"),
    "narration start is a string": (lambda t: _narration(t, [dict(start="a", end=1, text="x")]), "n.json"),
    "narration start is null": (lambda t: _narration(t, [dict(start=None, end=1, text="x")]), "n.json"),
    "narration text is null": (lambda t: _narration(t, [dict(start=0, end=1, text=None)]), "n.json"),
    "narration top level is an object": (lambda t: _narration(t, {"lines": []}), "expected a JSON list"),
    "--config holds a JSON list": (lambda t: (t / "c.json").write_text("[1, 2]") and ["config", "show", "--config", str(t / "c.json")], "c.json"),
    "reveal-synth record without type": (lambda t: _synth_root(t, json.dumps({"files": {}}), {k: v for k, v in _SYNTH_RECORD.items() if k != "type"}), "type"),
    "reveal-synth manifest.json missing": (lambda t: _synth_root(t, None, _SYNTH_RECORD), "manifest.json"),
    "reveal-synth manifest.json corrupt": (lambda t: _synth_root(t, "{", _SYNTH_RECORD), "manifest.json"),
    "Video-MME parquet corrupt": (_videomme_corrupt, "test-00000-of-00001.parquet"),
    "LongVideoBench top level is an object": (lambda t: _lvb(t, {"records": [_LVB]}), "lvb_val.json"),
    "LongVideoBench correct_choice is a boolean": (lambda t: _lvb(t, [_LVB]), "correct_choice"),
    "LongVideoBench video_path leaves the folder": (lambda t: _lvb(t, [dict(_LVB, correct_choice=0, video_path="../../etc/passwd")]),
                                                    "outside the benchmark folder"),
    "LongVideoBench video_path is absolute": (lambda t: _lvb(t, [dict(_LVB, correct_choice=0, video_path="/etc/passwd")]),
                                              "outside the benchmark folder"),
    "LongVideoBench subtitle_path leaves the folder": (lambda t: _lvb(t, [dict(_LVB, correct_choice=0, subtitle_path="../../x.json")]),
                                                       "subtitles_path"),
    "LongVideoBench null candidate": (lambda t: _lvb(t, [dict(_LVB, correct_choice=0, candidates=["a", None])]), "candidates[1]"),
    "reveal-synth integer qid": (lambda t: _synth_root(t, json.dumps({"files": {}}), dict(_SYNTH_RECORD, qid=7)), "qid"),
    "demo --limit 0": (lambda t: ["demo", "--limit", "0", "--out", str(t / "run"), "--data", str(t / "data")], "--limit"),
    "OpenAI-compatible server unreachable": (lambda t: ["chat", "hi", "--set", "llm_backend=openai", "--set", "llm_base_url=http://127.0.0.1:9/v1",
                                                       "--set", "request_timeout=5"], "127.0.0.1:9"),
    "trace show: traces file missing": (lambda t: ["trace", "show", str(t / "traces.jsonl"), "q1"], "traces.jsonl"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_one_line(case, tmp_path):
    build, names = CASES[case]
    res = subprocess.run(CLI + build(tmp_path), capture_output=True, text=True, cwd=tmp_path, timeout=300)
    lines = [l for l in res.stderr.splitlines() if l.strip()]
    assert res.returncode == 2, f"exit {res.returncode}\n{res.stdout[-2000:]}\n{res.stderr[-3000:]}"
    assert "Traceback" not in res.stderr, res.stderr[-3000:]
    assert len(lines) == 1 and lines[0].startswith("reveal-nb: error:"), res.stderr[-3000:]
    assert names in lines[0], lines[0]
    if case == "demo --limit 0": assert not (tmp_path / "data").exists()   # refused before generating anything
