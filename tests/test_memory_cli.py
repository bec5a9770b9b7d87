"""`reveal-nb memory build/show` on a real reveal-synth video with the bundled models (slow: real LLM summaries)."""
import json, subprocess, sys
from pathlib import Path
import pytest
from reveal_nb.synth.dataset import generate

from conftest import CLI


@pytest.mark.slow
def test_memory_build_then_show(tmp_path):
    data = tmp_path / "synth"; generate(data, "tiny", progress=False)
    vid = "synth-tiny-dev-000"
    args = [str(data / "videos" / f"{vid}.mp4"), "--captions", str(data / "narration" / f"{vid}.json"),
            "--subtitles", str(data / "subtitles" / f"{vid}.srt"), "--set", f"memory_dir={tmp_path / 'memories'}",
            "--set", "l2_words=30", "--set", "l3_words=30"]
    # the bundled model's dequantized copy stays in the shared cache; the memory is built fresh in this test's folder
    # (with 30-word summaries: at the default lengths the summaries are most of the build's time)
    build = subprocess.run(CLI + ["memory", "build"] + args, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    folder = Path(build.stdout.strip().splitlines()[-1].split("folder: ")[1])
    meta = json.loads((folder / "meta.json").read_text())
    assert meta["complete"] and meta["counts"]["L1"] >= 2 and meta["counts"]["L2"] >= 1 and meta["counts"]["L3"] == 1
    assert folder.parent == tmp_path / "memories"
    show = subprocess.run(CLI + ["memory", "show"] + args, capture_output=True, text=True)
    assert show.returncode == 0 and "L1-00000" in show.stdout and str(folder) in show.stdout


def test_memory_build_bad_video_is_a_clear_error(tmp_path):
    (tmp_path / "broken.mp4").write_bytes(b"nothing here")
    (tmp_path / "n.json").write_text("[]")
    res = subprocess.run(CLI + ["memory", "build", str(tmp_path / "broken.mp4"), "--captions", str(tmp_path / "n.json"),
                                "--set", f"memory_dir={tmp_path}"], capture_output=True, text=True)
    assert res.returncode == 2 and "broken.mp4" in res.stderr and "cannot be decoded" in res.stderr
