"""The evaluation runner with the real bundled models (slow): the Ray executor (a local Ray instance started
here, two workers) gives the same traces as this process; `reveal-nb eval` killed with SIGKILL resumes with no
question lost or written twice and a torn last line tolerated; a LongVideoBench item's subtitle offset reaches
the memory the runner builds."""
import json, shutil, signal, subprocess, sys, time
from pathlib import Path
import pytest
from reveal_nb.config import RevealConfig, with_overrides
from reveal_nb.core import read_jsonl_records
from reveal_nb.data.benchmarks import load_reveal_synth, load_benchmark
from reveal_nb.runs.evaluate import evaluate, ray_executor
from reveal_nb.method.loop import memory_config, memory_levels
from reveal_nb.memory.offline import OfflineMemory
from reveal_nb.memory.build import memory_key, memory_root
from reveal_nb.memory.video import parse_srt

pytestmark = pytest.mark.slow
from conftest import CLI
# One question per unit; two rounds keep the loop's planner, verifier and answerer in
# play at half the cost of the default three.
CFG = with_overrides(RevealConfig(), {"question_batch": 1, "max_rounds": 2})


def untimed(t):
    "A trace without wall-clock fields and without the mark of replies read from the reply cache."
    return {k: v for k, v in t.items() if k not in ("batch_seconds", "calls")} | dict(calls=[{k: v for k, v in c.items() if k not in ("latency_s", "cached")} for c in t["calls"]])


@pytest.fixture(scope="module")
def local(synth, tmp_path_factory):
    items = load_reveal_synth(synth, "test")   # one video, two questions: two units for two workers
    out = tmp_path_factory.mktemp("local")
    evaluate(items, CFG, out, progress=False)
    return items, read_jsonl_records(out / "traces.jsonl", key="qid")


@pytest.mark.xdist_group("evaluate-local")   # shares the `local` run with the next test on one worker
def test_ray_executor_gives_the_local_traces(local, tmp_path, capsys):
    items, _ = local
    # M_base (one retrieval round, planner and answerer) keeps the model time small: the executor is under test here,
    # not the loop. The reply cache is off in the Ray run: the workers must compute every reply themselves.
    cfg = with_overrides(CFG, {"variant": "m_base"})
    evaluate(items, cfg, tmp_path / "local", progress=False)
    ref = read_jsonl_records(tmp_path / "local" / "traces.jsonl", key="qid")
    scores = evaluate(items, with_overrides(cfg, {"reply_cache": False}), tmp_path / "ray", executor=ray_executor(workers=2), progress=False)
    got = read_jsonl_records(tmp_path / "ray" / "traces.jsonl", key="qid")
    assert scores["n"] == len(items) == len(got)
    assert {q: untimed(t) for q, t in got.items()} == {q: untimed(t) for q, t in ref.items()}
    started = [l for l in capsys.readouterr().out.splitlines() if l.startswith("worker ")]   # a line per unit started
    assert {it.video_id for it in items} <= {l.split("video ")[1].split(",")[0] for l in started}


@pytest.mark.xdist_group("evaluate-local")
def test_killed_eval_resumes_without_loss_or_duplicates(local, synth, tmp_path):
    _, ref = local
    out = tmp_path / "run"
    args = CLI + ["eval", "--bench", "reveal-synth", "--root", str(synth), "--split", "test", "--variant", "reveal",
                  "--set", "question_batch=1", "--set", "max_rounds=2", "--out", str(out)]
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0, killed = time.time(), False
    while p.poll() is None and time.time() - t0 < 900:
        if (out / "traces.jsonl").exists(): p.send_signal(signal.SIGKILL); killed = True; break
        time.sleep(0.02)
    p.wait()
    assert killed, "the run finished before its first trace was seen"
    assert len((out / "traces.jsonl").read_text().splitlines()) == 1
    with open(out / "traces.jsonl", "a") as f: f.write('{"qid": "synth-tiny-test-000-q001", "torn')
    res = subprocess.run(args, capture_output=True, text=True, timeout=1800)
    assert res.returncode == 0, res.stderr[-3000:]
    lines = (out / "traces.jsonl").read_text().splitlines()
    qids = [json.loads(l)["qid"] for l in lines]
    assert sorted(qids) == sorted(ref), "a question lost or written twice"
    got = read_jsonl_records(out / "traces.jsonl", key="qid")
    assert {q: untimed(t) for q, t in got.items()} == {q: untimed(ref[q]) for q in got}
    assert "accuracy: official" in res.stdout and (out / "scores.json").exists()


def test_longvideobench_subtitle_offset_reaches_the_memory(synth, tmp_path):
    root, vid, offset = tmp_path / "lvb", "synth-tiny-test-000", 5.0
    (root / "videos").mkdir(parents=True); (root / "subtitles").mkdir()
    shutil.copy(synth / "videos" / f"{vid}.mp4", root / "videos" / f"{vid}.mp4")
    lines = parse_srt(synth / "subtitles" / f"{vid}.srt")   # LongVideoBench clocks subtitles from a later start: shift them
    (root / "subtitles" / f"{vid}_en.json").write_text(json.dumps([{"timestamp": [l["start"] + offset, l["end"] + offset], "text": l["text"]} for l in lines]))
    rec = dict(id="lvb-0", video_id=vid, question="What does the person say first?", candidates=["a", "b", "c", "d"], correct_choice=0,
               question_category="T2E", video_path=f"{vid}.mp4", duration=120.0, subtitle_path=f"{vid}_en.json",
               starting_timestamp_for_subtitles=offset)
    (root / "lvb_val.json").write_text(json.dumps([rec]))
    items = load_benchmark("longvideobench", root)
    assert items[0].extra["starting_timestamp_for_subtitles"] == offset
    items[0].captions_path = str(synth / "narration" / f"{vid}.json")   # the CPU captioner reads provided narration
    cfg = with_overrides(CFG, {"variant": "m_base", "l2_words": 30, "l3_words": 30})   # a memory of its own: short summaries keep it quick
    evaluate(items, cfg, tmp_path / "run", progress=False)
    folder = memory_root(cfg) / memory_key(items[0].video_path, memory_config(cfg), items[0].captions_path, items[0].subtitles_path, offset,
                                           memory_levels(cfg))
    mem = OfflineMemory.load(folder)
    assert mem.meta["subtitles_offset"] == offset
    line = lines[1]   # 62.9-69.2 s on the video's clock; ignoring the offset would put it at 67.9-74.2 s, into the next 10-s chunk
    holding = [it for it in mem.items if it["level"] == 1 and line["text"] in it["text"]]
    assert holding and all(it["start"] < line["end"] and line["start"] < it["end"] for it in holding), [(it["start"], it["end"]) for it in holding]
