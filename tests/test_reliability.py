"""Issue 25's cases that are fixed: no data loss, one writer per folder, reproducible generation,
one line for bad input."""
import json, os, subprocess, sys, time
from pathlib import Path
import pytest
from filelock import FileLock
from reveal_nb.config import RevealConfig, RevealInputError
from reveal_nb.synth.dataset import ensure_generated, generate
from reveal_nb.runs.traces import run_variant

from conftest import CLI


def test_a_foreign_folder_is_refused_and_left_untouched(tmp_path):
    (tmp_path / "annotations").mkdir()
    mine = tmp_path / "annotations" / "test.jsonl"; mine.write_text('{"qid": "mine"}\n')
    r = subprocess.run(CLI + ["eval", "--bench", "reveal-synth", "--root", str(tmp_path), "--limit", "1"], capture_output=True, text=True)
    assert r.returncode == 2 and "not a reveal-synth folder" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert mine.read_text() == '{"qid": "mine"}\n' and sorted(p.name for p in tmp_path.iterdir()) == ["annotations"]


def test_an_interrupted_generation_resumes(tmp_path):
    d = tmp_path / "syn"
    generate(d, "tiny", progress=False)
    (d / "manifest.json").unlink()                    # as if killed before the manifest was written
    assert ensure_generated(d, "tiny", progress=False)["counts"]["test"]["questions"] > 0


def test_a_run_folder_has_one_writer(tmp_path):
    with FileLock(str(tmp_path / ".writer.lock")):
        with pytest.raises(RevealInputError, match="another process is writing this run"):
            run_variant([], RevealConfig(), tmp_path)
    assert run_variant([], RevealConfig(), tmp_path) == []


@pytest.mark.parametrize("duration", ["NaN", "\"long\"", "-5"])
def test_a_bad_duration_is_one_line_at_loading(tmp_path, duration):
    "Caught when the file is read (`data check` and `eval` alike), never at scoring after the model work."
    from reveal_nb.data.benchmarks import write_example_files
    root = write_example_files("longvideobench", tmp_path / "lvb")
    f = next(root.glob("*.json"))
    f.write_text(f.read_text().replace('"duration": 190.16', f'"duration": {duration}', 1))
    r = subprocess.run(CLI + ["data", "check", "longvideobench", "--root", str(root)], capture_output=True, text=True)
    assert r.returncode != 0 and "duration" in (r.stderr + r.stdout) and "Traceback" not in r.stderr, (r.stdout, r.stderr)


def test_merging_an_empty_shard_set_is_refused(tmp_path):
    from reveal_nb.runs.evaluate import merge_shards
    a = tmp_path / "a"; a.mkdir(); (a / "traces.jsonl").write_text("")
    with pytest.raises(RevealInputError, match="nothing to merge"): merge_shards([a], tmp_path / "out")
    assert not (tmp_path / "out" / "traces.jsonl").exists()


def test_a_full_disk_leaves_no_partial_merge(tmp_path, monkeypatch):
    "A write that fails (a full disk, simulated by a TEST DOUBLE of the writer that raises ENOSPC) is one line, and no file is left."
    import errno
    import reveal_nb.runs.evaluate as ev
    a = tmp_path / "a"; a.mkdir()
    (a / "traces.jsonl").write_text("".join(json.dumps(dict(qid=f"q{i}", config_fingerprint="f")) + "\n" for i in range(20)))
    def full_disk(path, text): raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(ev, "atomic_write_text", full_disk)
    with pytest.raises(RevealInputError, match="No space left on device"): ev.merge_shards([a], tmp_path / "out")
    assert not (tmp_path / "out" / "traces.jsonl").exists()
    monkeypatch.undo()
    assert ev.merge_shards([a], tmp_path / "out").read_text().count("\n") == 20       # the rerun is not refused as "already exists"


def test_a_changed_question_is_answered_again_not_reused(tmp_path):
    "A finished trace whose question changed since (here its gold letter) is not reused: the runner answers it again."
    from reveal_nb.data.qa_items import QAItem
    from reveal_nb.method.record import run_fingerprint
    from reveal_nb.runs.traces import answered_this, item_fingerprint
    cfg = RevealConfig()
    it = QAItem("unit", "q1", "v", "Which?", {"A": "x", "B": "y"}, "A", ["attribute"])
    t = dict(qid="q1", question="Which?", options={"A": "x", "B": "y"}, gold="A", item_fingerprint=item_fingerprint(it, cfg),
             config_fingerprint=run_fingerprint(cfg), correct=True)
    assert answered_this(t, it, cfg)
    moved = QAItem("unit", "q1", "v", "Which?", {"A": "x", "B": "y"}, "B", ["attribute"])
    assert not answered_this(t, moved, cfg)
    old = {k: v for k, v in t.items() if k != "item_fingerprint"}        # a trace written before item fingerprints
    assert answered_this(old, it, cfg) and not answered_this(old, moved, cfg)
    (tmp_path / "traces.jsonl").write_text(json.dumps(t) + "\n")
    calls = []
    def recorder(units, c):                                                # TEST DOUBLE of an executor: records what it is asked to run
        calls.extend(i.qid for u in units for i in u); yield [dict(t, gold="B", correct=False, item_fingerprint=item_fingerprint(moved, cfg))]
    out = run_variant([moved], cfg, tmp_path, executor=recorder, progress=False)
    assert calls == ["q1"] and out[0]["gold"] == "B"
    assert run_variant([moved], cfg, tmp_path, executor=recorder, progress=False)[0]["gold"] == "B" and calls == ["q1"]   # now current: reused


def test_another_size_into_a_synth_folder_is_refused(tmp_path):
    d = tmp_path / "syn"
    generate(d, "tiny", progress=False)
    before = sorted(p.name for p in (d / "videos").iterdir())
    with pytest.raises(RevealInputError, match="holds reveal-synth tiny"): generate(d, "mini", progress=False)
    assert sorted(p.name for p in (d / "videos").iterdir()) == before


@pytest.mark.parametrize("options, says", [({"A": "x", "B": None}, "not a text"), ({"A": "x", "B": "x"}, "same text"),
                                           ({chr(65 + i): f"o{i}" for i in range(27)}, "at most 26")])
def test_bad_options_are_named(options, says):
    from reveal_nb.data.qa_items import QAItem, check_item
    with pytest.raises(RevealInputError, match=says): check_item(QAItem("b", "q", "v", "Q?", options, "A", []), "f.json")


def test_a_boolean_setting_must_say_true_or_false():
    from reveal_nb.config import with_overrides
    with pytest.raises(RevealInputError, match="true or false"): with_overrides(RevealConfig(), ["early_stop=maybe"])
    assert with_overrides(RevealConfig(), ["early_stop=no"]).early_stop is False


def _cli(*args, cwd=None):
    return subprocess.run(CLI + list(args), capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize("content, says", [(b"[1, 2]\n", "not a JSON object"), (b'{"x": 1}\n', "line 1.qid"),
                                           (b'\xff\xfe{"qid": "a"}\n', "not UTF-8"), (b'{"qid": "a"}\n', "not a trace")])
def test_trace_show_on_a_bad_file_is_one_line(tmp_path, content, says):
    f = tmp_path / "t.jsonl"; f.write_bytes(content)
    r = _cli("trace", "show", str(f), "a")
    assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_trace_show_on_a_folder_is_one_line(tmp_path):
    r = _cli("trace", "show", str(tmp_path), "a")
    assert r.returncode == 2 and "is a folder" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_a_corrupt_line_inside_a_traces_file_is_named(tmp_path):
    from reveal_nb.core import read_jsonl_records
    f = tmp_path / "t.jsonl"; f.write_text('{"qid": "a"}\n{oops\n{"qid": "b"}\n{"qid": "c", "cut')
    with pytest.warns(UserWarning, match="line 2 is not JSON"): recs = read_jsonl_records(f, key="qid")
    assert list(recs) == ["a", "b"]                          # the cut-off last line is skipped without a word


@pytest.mark.parametrize("schema, says", [(None, "file not found"), ("{bad", "not a JSON file"), ('{"type": "frob"}', "not a valid JSON schema")])
def test_chat_schema_errors_are_one_line(tmp_path, schema, says):
    f = tmp_path / "s.json"
    if schema is not None: f.write_text(schema)
    r = _cli("chat", "hi", "--schema", str(f))
    assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_bad_thetas_and_a_non_utf8_config_are_one_line(tmp_path):
    r = _cli("figures", "--thetas", "abc", "--only", "table1_main")
    assert r.returncode == 2 and "--thetas" in r.stderr and "Traceback" not in r.stderr, r.stderr
    f = tmp_path / "c.json"; f.write_bytes(b'\xff{"tau": 0.8}')
    r = _cli("config", "show", "--config", str(f))
    assert r.returncode == 2 and "cannot read JSON" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_a_generated_video_is_the_same_bytes_every_time(tmp_path):
    """Memories are keyed by the video file's SHA-256, so regenerating must give the same bytes: two
    `synth` runs (separate processes), then the test video encoded again here after other allocations."""
    from reveal_nb.synth.render import write_video
    for d in ("a", "b"):
        r = _cli("synth", "--size", "tiny", "--out", str(tmp_path / d))
        assert r.returncode == 0, r.stderr
    files = [json.loads((tmp_path / d / "manifest.json").read_text())["files"] for d in ("a", "b")]
    assert files[0] == files[1]
    truth = json.loads((tmp_path / "a" / "truth" / "synth-tiny-test-000.json").read_text())
    first = (tmp_path / "a" / "videos" / "synth-tiny-test-000.mp4").read_bytes()
    for n in range(3):
        held = [bytearray(1000 * (k % 7) + 13 * n) for k in range(50 * n + 1)]   # other allocations
        write_video(truth, tmp_path / f"again{n}.mp4")
        assert (tmp_path / f"again{n}.mp4").read_bytes() == first, f"encode {n} differs"
        del held


def test_a_failed_memory_build_leaves_no_lock_file(tmp_path):
    from reveal_nb.memory.build import build_memory
    cfg = RevealConfig(cache_dir=str(tmp_path / "cache"), memory_dir=str(tmp_path / "memories"))
    video = tmp_path / "notes.mp4"; video.write_text("not a video")
    captions = tmp_path / "narration.json"; captions.write_text("[]")
    with pytest.raises(RevealInputError, match="cannot be decoded"):
        build_memory(video, cfg, captions=captions, progress=False)
    assert list((tmp_path / "memories").iterdir()) == []


def test_an_interrupted_generation_of_another_size_is_refused(tmp_path):
    d = tmp_path / "syn"
    generate(d, "tiny", progress=False)
    (d / "manifest.json").unlink()                # killed before the manifest: the video names tell the size
    before = sorted(p.name for p in (d / "videos").iterdir())
    with pytest.raises(RevealInputError, match="interrupted generation of reveal-synth tiny"):
        generate(d, "mini", progress=False)
    assert sorted(p.name for p in (d / "videos").iterdir()) == before


def test_two_synth_runs_into_one_folder_both_finish(tmp_path):
    "Two synth runs that truly overlap (the second starts while the first holds the folder): they take turns."
    out = tmp_path / "syn"
    start = lambda: subprocess.Popen(CLI + ["synth", "--size", "mini", "--out", str(out)], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
    first = start()
    t0 = time.time()
    while not (out / ".synth.lock").exists() and first.poll() is None and time.time() - t0 < 60: time.sleep(0.02)
    assert first.poll() is None, "the first run finished before the second could start"
    runs = [first, start()]
    errs = [p.communicate(timeout=600)[1] for p in runs]
    assert [p.returncode for p in runs] == [0, 0] and not any("Traceback" in e for e in errs), errs
    assert "waiting for it" in errs[1], errs[1]                  # the second saw the first at work
    generate(tmp_path / "alone", "mini", progress=False)
    files = [json.loads((d / "manifest.json").read_text())["files"] for d in (out, tmp_path / "alone")]
    assert files[0] == files[1]
    assert [p.name for p in out.rglob(".*")] == []    # no lock or temporary file left


def test_a_truncated_video_is_our_one_line_only(tmp_path):
    "FFmpeg's and decord's own complaints are not printed before the error line; FFmpeg's reason is in it."
    from reveal_nb.synth.world import simulate
    from reveal_nb.synth.render import write_video
    video = tmp_path / "cut.mp4"; write_video(simulate("cut", 60, 0), video)
    video.write_bytes(video.read_bytes()[: video.stat().st_size // 2])       # a copy that stopped halfway
    captions = tmp_path / "narration.json"; captions.write_text("[]")
    r = _cli("memory", "build", str(video), "--captions", str(captions),
             "--set", f"memory_dir={tmp_path / 'mem'}", "--set", f"cache_dir={tmp_path / 'cache'}")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.splitlines()[-1].endswith("cannot be decoded (FFmpeg: moov atom not found)"), r.stderr
    assert [l for l in r.stderr.splitlines()[:-1] if "moov" in l or "ERROR" in l] == [], r.stderr


def test_a_latin1_srt_is_refused_naming_the_line(tmp_path):
    "Not decoded with replacement characters and no word (chapter 02: why refused, not guessed)."
    from reveal_nb.memory.video import load_text_track
    f = tmp_path / "s.srt"; f.write_bytes("1\n00:00:01,000 --> 00:00:02,000\nCafé\n".encode("latin-1"))
    says = r"s.srt: field 'subtitles': not UTF-8 text \(line 3, byte 0xe9\)"
    with pytest.raises(RevealInputError, match=says):
        load_text_track(f)


def test_a_question_that_is_a_number_is_one_line(tmp_path):
    from reveal_nb.data.benchmarks import write_example_files
    root = write_example_files("longvideobench", tmp_path / "lvb")
    f = next(root.glob("*.json")); recs = json.loads(f.read_text())
    recs[1]["question"] = 42; f.write_text(json.dumps(recs))
    r = _cli("data", "check", "longvideobench", "--root", str(root))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert f"{f} [record {recs[1]['id']}]: field 'question': 42 is not a text" in r.stderr, r.stderr


def test_data_check_lists_subtitles_that_are_not_utf8(tmp_path):
    from reveal_nb.data.benchmarks import write_example_files
    from reveal_nb.data.manifests import check_local_copy
    root = write_example_files("videomme", tmp_path / "vm")
    (root / "subtitle").mkdir()
    srt = "1\n00:00:01,000 --> 00:00:02,000\nCafé\n"
    (root / "subtitle" / "vid601.srt").write_bytes(srt.encode("cp1252"))
    problems = check_local_copy("videomme", root)["problems"]
    assert any("1 subtitle file(s) not UTF-8" in p and "vid601.srt (not UTF-8 text (line 3" in p
               for p in problems), problems


@pytest.mark.parametrize("field, value, says", [
    ("max_rounds", '"3"', '"3" is a text; write a whole number'),
    ("tau", '"high"', '"high" is a text; write a number'),
    ("early_stop", "1", "1 is a number; write true or false")])
def test_a_config_value_of_the_wrong_type_is_refused(tmp_path, field, value, says):
    f = tmp_path / "c.json"; f.write_text(f'{{"{field}": {value}}}')
    r = _cli("config", "show", "--config", str(f))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert f"{f}: field '{field}': {says}" in r.stderr, r.stderr
    f.write_text('{"tau": 1, "max_rounds": 2}')                  # a whole number is a fine float
    assert _cli("config", "show", "--config", str(f)).returncode == 0


def test_a_question_answered_twice_in_one_shard_is_refused(tmp_path):
    """Not merged keeping the last trace without a word; a question re-answered after it changed is fine
    (its later trace counts)."""
    from reveal_nb.runs.evaluate import merge_shards
    a = tmp_path / "a"; a.mkdir()
    first = dict(qid="q1", config_fingerprint="f", item_fingerprint="v1", answer="A")
    t = lambda **kw: json.dumps(first | kw) + "\n"
    (a / "traces.jsonl").write_text(t() + t(qid="q2") + t(answer="B"))
    says = r"traces.jsonl: field 'line 3.qid': 'q1' was already answered"
    with pytest.raises(RevealInputError, match=says):
        merge_shards([a], tmp_path / "out")
    assert not (tmp_path / "out").exists()
    (a / "traces.jsonl").write_text(t() + t(item_fingerprint="v2", answer="B"))
    assert json.loads(merge_shards([a], tmp_path / "out").read_text())["answer"] == "B"


@pytest.mark.parametrize("where", ["--out", "REVEAL_NB_CACHE", "memory_dir"])
def test_a_place_that_cannot_be_written_is_one_line(tmp_path, where):
    "Item 5: a file where a folder should be (as a read-only or full disk would, the write fails) is one line, exit 2."
    blocker = tmp_path / "a-file"; blocker.write_text("not a folder")
    env, args = dict(os.environ), CLI + ["eval", "--bench", "reveal-synth", "--size", "tiny", "--root", str(tmp_path / "data"),
                                        "--limit", "1", "--out", str(tmp_path / "run")]
    if where == "--out": args[-1] = str(blocker / "run")
    elif where == "REVEAL_NB_CACHE": env["REVEAL_NB_CACHE"] = str(blocker / "cache")
    else: args += ["--set", f"memory_dir={blocker / 'memories'}"]
    r = subprocess.run(args, capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert str(blocker) in r.stderr and "part of this path is a file, where a folder is needed" in r.stderr, r.stderr


@pytest.mark.parametrize("case", ["synth --out", "eval --root", "eval --out", "rubric_pool"])
def test_a_file_or_folder_of_the_wrong_kind_is_one_line(tmp_path, case):
    "A file named where a folder is needed, or a folder where a file is: one line saying which, exit 2, no traceback."
    a_file, a_folder = tmp_path / "a-file", tmp_path / "a-folder"
    a_file.write_text("not a folder"); a_folder.mkdir()
    eval_args = ["eval", "--size", "tiny", "--root", str(tmp_path / "data"), "--limit", "1", "--out", str(tmp_path / "run")]
    args, where, says = {"synth --out": (["synth", "--size", "tiny", "--out", str(a_file)], a_file, "where a folder is needed"),
                         "eval --root": (eval_args[:4] + [str(a_file)] + eval_args[5:], a_file, "where a folder is needed"),
                         "eval --out": (eval_args[:-1] + [str(a_file)], a_file, "where a folder is needed"),
                         "rubric_pool": (eval_args + ["--set", f"rubric_pool={a_folder}"], a_folder, "where a file is needed")}[case]
    r = subprocess.run(CLI + args, capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    errors = [l for l in r.stderr.splitlines() if l.startswith("reveal-nb: error")]
    assert len(errors) == 1 and str(where) in errors[0] and says in errors[0], r.stderr
    assert a_file.read_text() == "not a folder"


def test_a_missing_rubric_pool_is_reported_before_any_work(tmp_path):
    "Item 9: a missing rubric_pool file is one line before the run starts (before: after both models had loaded)."
    out = tmp_path / "run"
    r = subprocess.run(CLI + ["eval", "--bench", "reveal-synth", "--size", "tiny", "--root", str(tmp_path / "data"), "--limit", "1",
                              "--set", f"rubric_pool={tmp_path / 'nowhere.yaml'}", "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 2 and "nowhere.yaml" in r.stderr and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert not out.exists()                                 # nothing started: no run folder, no model loaded for it


def test_traces_without_their_fingerprint_and_non_utf8_annotations_are_one_line(tmp_path):
    "Item 8: resuming or merging traces that lack config_fingerprint; an annotation file that is not UTF-8."
    shard = tmp_path / "shard"; shard.mkdir()
    (shard / "traces.jsonl").write_text('{"qid": "q1", "answer": "A"}\n')
    r = subprocess.run(CLI + ["merge-shards", str(shard), "--out", str(tmp_path / "m")], capture_output=True, text=True)
    assert r.returncode == 2 and "q1.config_fingerprint" in r.stderr and "Traceback" not in r.stderr, r.stderr[-2000:]
    data = tmp_path / "data"; generate(data, "tiny", progress=False)
    run = tmp_path / "run"; run.mkdir(); (run / "traces.jsonl").write_text('{"qid": "q1", "answer": "A"}\n')
    r = subprocess.run(CLI + ["eval", "--bench", "reveal-synth", "--root", str(data), "--limit", "1", "--out", str(run)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "config_fingerprint" in r.stderr and "Traceback" not in r.stderr, r.stderr[-2000:]
    with open(data / "annotations" / "test.jsonl", "ab") as f: f.write(b'\xff\xfe{"qid": 1}\n')
    r = subprocess.run(CLI + ["eval", "--bench", "reveal-synth", "--root", str(data), "--limit", "1", "--out",
                              str(tmp_path / "run2")], capture_output=True, text=True)
    assert r.returncode == 2 and "test.jsonl" in r.stderr and "not UTF-8" in r.stderr and "Traceback" not in r.stderr, \
        r.stderr[-2000:]
