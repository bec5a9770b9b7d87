"""A memory's files damaged after a build (a torn checkpoint line, `items.jsonl` cut short, a damaged scan
checkpoint) are named and repaired from the checkpoints, and bad input to `build_memory` fails in one line
leaving nothing behind (chapter 02b keeps one worked example: an interrupted build resuming).

The summaries come from `ScriptedBackend`, the scripted TEST DOUBLE of chapter 09b: what is checked is which
stage is redone and how many model calls that costs, not what the summaries say. `tests/test_faults.py`
kills and tears real builds of the bundled models."""
import json, shutil, warnings
from pathlib import Path
import numpy as np
import pytest
from reveal_nb.config import RevealConfig, RevealInputError
from reveal_nb.core import read_jsonl_records
from reveal_nb.memory.offline import OfflineMemory
from reveal_nb.memory.build import build_memory, memory_root
from reveal_nb.backends.models import ScriptedBackend

VID = "synth-tiny-test-000"


@pytest.fixture(scope="module")
def enc():
    from reveal_nb.backends.encoders import make_text_encoder
    return make_text_encoder(RevealConfig())


def files(synth):
    return dict(video=synth / "videos" / f"{VID}.mp4", captions=synth / "narration" / f"{VID}.json",
                subtitles=synth / "subtitles" / f"{VID}.srt")


def scripted(n=50):
    "The summarizer's test double: numbered replies, no reply cache (every call is counted)."
    return ScriptedBackend([f"summary {k}" for k in range(n)], cfg=RevealConfig(reply_cache=False))


@pytest.fixture(scope="module")
def reference(synth, enc, tmp_path_factory):
    "A complete memory (L1-L3) built once; each test works on its own copy."
    cfg = RevealConfig(memory_dir=str(tmp_path_factory.mktemp("reference")))
    f = files(synth)
    return build_memory(f["video"], cfg, f["captions"], f["subtitles"], llm=scripted(), text_encoder=enc, progress=False)


@pytest.fixture
def copy(reference, tmp_path):
    "(config, folder) of a fresh copy of the reference memory, where `build_memory` looks for it."
    cfg = RevealConfig(memory_dir=str(tmp_path / "memories"))
    folder = memory_root(cfg) / reference.folder.name
    shutil.copytree(reference.folder, folder)
    return cfg, folder


def rebuild(synth, cfg, enc, llm):
    f = files(synth)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        mem = build_memory(f["video"], cfg, f["captions"], f["subtitles"], llm=llm, text_encoder=enc, progress=False)
    return mem, [str(w.message) for w in said]


def test_a_torn_summary_line_is_cut_and_only_that_summary_redone(synth, enc, reference, copy):
    cfg, d = copy
    summaries = d / "summaries.jsonl"; lines = summaries.read_text().splitlines()
    summaries.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:15])      # the last record torn mid-line
    (d / "meta.json").unlink()                                               # as a killed build leaves it
    llm = scripted()
    mem, _ = rebuild(synth, cfg, enc, llm)
    assert len(llm.seen) == 1                                                # only the torn summary
    assert len(summaries.read_text().splitlines()) == len(read_jsonl_records(summaries)) == len(lines)
    assert len(mem.items) == len(reference.items)


def test_items_cut_short_are_named_and_the_index_rebuilt_without_a_model_call(synth, enc, reference, copy):
    cfg, d = copy
    items = d / "items.jsonl"; items.write_text(items.read_text()[:200])
    with pytest.raises(RevealInputError, match="items.jsonl"): OfflineMemory.load(d)
    llm = scripted(0)                                                        # any model call would fail
    mem, said = rebuild(synth, cfg, enc, llm)
    assert any("items.jsonl" in s and "rebuilding its index" in s for s in said), said
    assert items.read_text() == (reference.folder / "items.jsonl").read_text() and not llm.seen


@pytest.mark.parametrize("damage", ["descriptors.npy", "scan.json"])
def test_a_damaged_scan_checkpoint_is_scanned_again(synth, enc, reference, copy, damage):
    cfg, d = copy
    (d / "meta.json").unlink()
    if damage == "descriptors.npy": (d / damage).write_bytes(b"\x93NUMPY")
    else: (d / damage).write_text((d / damage).read_text()[:60])
    mem, said = rebuild(synth, cfg, enc, scripted(0))
    assert any("damaged scan checkpoint" in s for s in said), said
    assert np.load(d / "descriptors.npy").shape[0] == mem.meta["frames"]["kept"]
    assert json.loads((d / "scan.json").read_text())["times"] == \
        json.loads((reference.folder / "scan.json").read_text())["times"]
    assert (d / "items.jsonl").read_text() == (reference.folder / "items.jsonl").read_text()


def test_bad_input_fails_in_one_line_and_leaves_nothing(synth, reference, tmp_path):
    f, cfg = files(synth), RevealConfig(memory_dir=str(tmp_path / "memories"))
    with pytest.raises(RevealInputError, match="nope.mp4"): build_memory(tmp_path / "nope.mp4", cfg, f["captions"])
    with pytest.raises(RevealInputError, match="needs a narration/captions file"): build_memory(f["video"], cfg)
    with pytest.raises(RevealInputError, match="no visual channel"): reference.search_visual(np.zeros((1, 8)))
    with pytest.raises(RevealInputError, match="levels"): build_memory(f["video"], cfg, f["captions"], levels=4)
    not_a_video = tmp_path / "notes.mp4"; not_a_video.write_text("not a video")
    with pytest.raises(RevealInputError, match="notes.mp4"):
        build_memory(not_a_video, cfg, f["captions"], progress=False)
    assert not any(memory_root(cfg).iterdir())                               # no empty folder, no lock file
    assert OfflineMemory.load(reference.folder).meta["complete"]             # nothing built is touched
