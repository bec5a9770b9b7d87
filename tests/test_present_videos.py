"""LVBench is evaluated on the questions whose video is present, as the paper did (86 of its videos were still
retrievable); the run says how many questions that leaves, and scores.json records it."""
import json, subprocess, sys
from pathlib import Path
import pytest
from reveal_nb.data.benchmarks import load_benchmark, write_example_files

from conftest import CLI


def lvbench_with_one_video(root):
    "LVBench's example files (two videos, three questions each) with the first video downloaded."
    from reveal_nb.synth.render import write_video
    from reveal_nb.synth.world import simulate
    write_example_files("lvbench", root)
    write_video(simulate("lv", 30, 0) | dict(duration=30.0), root / "videos" / "yt0.mp4")
    return root


def test_only_questions_with_a_present_video_are_evaluated(tmp_path):
    from reveal_nb.runs.evaluate import present_videos
    items = load_benchmark("lvbench", lvbench_with_one_video(tmp_path / "lv"))
    kept, present = present_videos(items)
    assert {it.video_id for it in kept} == {"yt0"} and len(kept) == 3
    assert present == dict(questions=3, of_questions=6, videos=1, of_videos=2,
                           paper_subset=dict(videos=86, questions=1267))
    videomme = load_benchmark("videomme", write_example_files("videomme", tmp_path / "vm"))
    assert present_videos(videomme) == (videomme, None)       # its videos ship with it: none is dropped


def test_no_video_present_is_one_clear_line(tmp_path):
    root = write_example_files("lvbench", tmp_path / "lv")
    res = subprocess.run(CLI + ["eval", "--bench", "lvbench", "--root", str(root), "--variant", "direct",
                                "--out", str(tmp_path / "run")], capture_output=True, text=True, timeout=600)
    assert res.returncode == 2, res.stdout + res.stderr
    assert res.stderr.strip().splitlines() == [
        f"reveal-nb: error: {root / 'videos'}: field 'videos': none of the 2 lvbench videos is present "
        "(looked for e.g. yt0.mp4); nothing to evaluate"]
    assert not (tmp_path / "run" / "scores.json").exists()


@pytest.mark.slow
def test_eval_says_how_many_questions_the_present_videos_leave(tmp_path):
    root = lvbench_with_one_video(tmp_path / "lv")
    out = tmp_path / "run"
    res = subprocess.run(CLI + ["eval", "--bench", "lvbench", "--root", str(root), "--variant", "direct", "--limit", "2",
                                "--out", str(out)], capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    line = "3 of 6 questions (1 of 2 videos present; the paper's subset: 86 videos / 1,267 questions)"
    assert f"lvbench: {line}" in res.stdout and f"answerable: {line}" in res.stdout
    scores = json.loads((out / "scores.json").read_text())
    assert scores["n"] == 2 and scores["present"]["questions"] == 3 and scores["present"]["of_videos"] == 2
    traces = [json.loads(l) for l in (out / "traces.jsonl").read_text().splitlines()]
    assert [t["video_id"] for t in traces] == ["yt0", "yt0"]   # --limit takes the first answerable questions
