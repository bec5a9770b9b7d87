"""`reveal-nb synth` end to end: real MP4s decodable by decord, checksummed manifest, resumable, bad size rejected."""
import hashlib, json, subprocess, sys
from pathlib import Path
import decord

from conftest import CLI


def test_synth_tiny_writes_a_checked_dataset(tmp_path):
    out = tmp_path / "synth"
    res = subprocess.run(CLI + ["synth", "--size", "tiny", "--out", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    man = json.loads((out / "manifest.json").read_text())
    assert man["counts"]["dev"]["videos"] == 1 and man["counts"]["test"]["videos"] == 1
    for rel, digest in man["files"].items():
        assert hashlib.sha256((out / rel).read_bytes()).hexdigest() == digest, rel
    dev = {json.loads(l)["video_id"] for l in (out / "annotations" / "dev.jsonl").read_text().splitlines()}
    test = {json.loads(l)["video_id"] for l in (out / "annotations" / "test.jsonl").read_text().splitlines()}
    assert dev and test and not dev & test
    vr = decord.VideoReader(str(out / "videos" / "synth-tiny-test-000.mp4"))
    assert len(vr) > 100 and vr[0].asnumpy().std() > 5
    mtime = (out / "videos" / "synth-tiny-test-000.mp4").stat().st_mtime_ns
    subprocess.run(CLI + ["synth", "--size", "tiny", "--out", str(out)], check=True, capture_output=True)
    assert (out / "videos" / "synth-tiny-test-000.mp4").stat().st_mtime_ns == mtime, "a finished video must not be rebuilt"


def test_synth_rejects_unknown_size(tmp_path):
    res = subprocess.run(CLI + ["synth", "--size", "huge", "--out", str(tmp_path)], capture_output=True, text=True)
    assert res.returncode == 2 and "field 'size'" in res.stderr
