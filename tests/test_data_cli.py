"""`reveal-nb data check` on example files in each official layout: what is present, what is missing, exit codes."""
import subprocess, sys
from pathlib import Path
import pytest
from reveal_nb.data.benchmarks import write_example_files

from conftest import CLI


@pytest.mark.parametrize("name", ["videomme", "lvbench", "longvideobench", "egolifeqa", "egor1"])
def test_data_check_reports_missing_videos(name, tmp_path):
    root = write_example_files(name, tmp_path / name)
    res = subprocess.run(CLI + ["data", "check", name, "--root", str(root)], capture_output=True, text=True)
    assert "questions" in res.stdout, res.stdout + res.stderr
    assert "expects" in res.stdout  # a handful of example records is not the full benchmark
    assert res.returncode == 1 and "video file(s) missing" in res.stdout  # (for EgoLife: the folder of clips)


def test_data_check_missing_annotations_is_clear(tmp_path):
    res = subprocess.run(CLI + ["data", "check", "longvideobench", "--root", str(tmp_path)], capture_output=True, text=True)
    assert res.returncode == 1 and "annotation file missing" in res.stdout and "lvb_val.json" in res.stdout


def test_data_check_passes_when_everything_is_there(tmp_path):
    root = write_example_files("longvideobench", tmp_path / "lvb")
    (root / "videos").mkdir()
    for i in range(4):
        (root / "videos" / f"v{i}.mp4").write_bytes(b"\0")
    res = subprocess.run(CLI + ["data", "check", "longvideobench", "--root", str(root)], capture_output=True, text=True)
    assert res.returncode == 0 and "ok" in res.stdout, res.stdout
