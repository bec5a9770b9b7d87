"""Fault injection with the real models: a memory build and a run of the loop are killed with SIGKILL at
several points, checkpoint files are torn mid-line, and two builds of one memory run at once. Every rerun
must end with exactly one record per id, identical to an uninterrupted run (slow: real LLM calls)."""
import json, os, signal, subprocess, sys, time
from pathlib import Path
import pytest

pytestmark = pytest.mark.slow
from conftest import CLI, kill_when
VID = "synth-tiny-test-000"


# Short summaries (about 30 words, so at most 64 generated tokens each): the L2/L3 summaries are most of a memory build's
# time (about 80 of 100 s at the default 120/300 words), and what is tested here is what a kill leaves behind.
SHORT = ["--set", "l2_words=30", "--set", "l3_words=30"]


def _build_args(synth, memory_dir):
    return ["memory", "build", str(synth / "videos" / f"{VID}.mp4"), "--captions", str(synth / "narration" / f"{VID}.json"),
            "--subtitles", str(synth / "subtitles" / f"{VID}.srt"), "--set", f"memory_dir={memory_dir}"] + SHORT


def _run(args, **kw):
    res = subprocess.run(CLI + args, capture_output=True, text=True, timeout=1800, **kw)
    assert res.returncode == 0, res.stderr[-3000:]
    return res




def _folder(memory_dir):
    dirs = [d for d in Path(memory_dir).iterdir() if d.is_dir()] if Path(memory_dir).exists() else []
    return dirs[0] if dirs else None


def _has(memory_dir, name, lines=0):
    d = _folder(memory_dir)
    return d is not None and (d / name).exists() and (d / name).read_text().count("\n") >= lines


@pytest.fixture(scope="module")
def reference_memory(synth, tmp_path_factory):
    mem = tmp_path_factory.mktemp("ref-memory")
    _run(_build_args(synth, mem))
    return _folder(mem)


KILL_POINTS = {  # when to kill the build: each point leaves a different stage half done
    "while scanning": lambda m: _folder(m) is not None,
    "after the scan": lambda m: _has(m, "scan.json"),
    "after the captions": lambda m: _has(m, "captions.jsonl", 1),
    "after the first summary": lambda m: _has(m, "summaries.jsonl", 1),
}


@pytest.mark.xdist_group("faults-memory")   # parallel workers: one reference memory, on one worker
@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_killed_memory_build_resumes_to_the_same_memory(point, synth, reference_memory, tmp_path):
    mem = tmp_path / "memory"
    killed = kill_when(_build_args(synth, mem), lambda: KILL_POINTS[point](mem))
    if killed: assert not _has(mem, "meta.json")
    _run(_build_args(synth, mem))
    d = _folder(mem)
    test_items = (d / "items.jsonl").read_text()
    assert test_items == (reference_memory / "items.jsonl").read_text()
    for ck in ("captions.jsonl", "summaries.jsonl"):
        ids = [json.loads(l)["id"] for l in (d / ck).read_text().splitlines()]
        assert len(ids) == len(set(ids)), f"{ck}: a record was written twice"
    assert killed, f"the build finished before the kill point {point!r} was seen"


@pytest.mark.xdist_group("faults-memory")   # parallel workers: one reference memory, on one worker
@pytest.mark.parametrize("checkpoint", ["captions.jsonl", "summaries.jsonl"])
def test_torn_memory_checkpoint_is_repaired(checkpoint, synth, reference_memory, tmp_path):
    mem = tmp_path / "memory"; mem.mkdir()
    d = mem / reference_memory.name
    subprocess.run(["cp", "-r", str(reference_memory), str(d)], check=True)
    (d / "meta.json").unlink()
    lines = (d / checkpoint).read_text().splitlines()
    (d / checkpoint).write_text("\n".join(lines[:-1] + [lines[-1][: len(lines[-1]) // 2]]))   # the last record torn mid-line
    _run(_build_args(synth, mem))
    assert (d / checkpoint).read_text().splitlines() == lines
    assert (d / "items.jsonl").read_text() == (reference_memory / "items.jsonl").read_text()


@pytest.mark.xdist_group("faults-memory")   # parallel workers: one reference memory, on one worker
def test_two_builds_at_once_build_once(synth, reference_memory, tmp_path):
    mem = tmp_path / "memory"
    procs = [subprocess.Popen(CLI + _build_args(synth, mem), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=1800) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1][-2000:] for o in outs]
    assert sum("another process is building" in err for _, err in outs) == 1
    d = _folder(mem)
    summaries = (d / "summaries.jsonl").read_text().splitlines()
    assert len(summaries) == len({json.loads(l)["id"] for l in summaries})     # no summary generated twice
    assert (d / "items.jsonl").read_text() == (reference_memory / "items.jsonl").read_text()


# The loop: question_batch=1 writes one trace per question, so a kill can fall between two of them.
def _demo_args(synth, out, cache):
    return ["demo", "--size", "tiny", "--variants", "reveal", "--data", str(synth), "--out", str(out),
            "--set", "question_batch=1", "--set", "max_rounds=2", "--set", f"memory_dir={cache}"] + SHORT


VOLATILE = {"latency_s", "batch_seconds", "seconds", "started", "finished", "wall_seconds", "cached"}   # cached: whether a reply came from the reply cache


def _stable(x):
    "A trace without its timings."
    if isinstance(x, dict): return {k: _stable(v) for k, v in x.items() if k not in VOLATILE}
    if isinstance(x, list): return [_stable(v) for v in x]
    return x


def _traces(out):
    lines = (out / "reveal" / "traces.jsonl").read_text().splitlines()
    recs = [json.loads(l) for l in lines]
    assert len(recs) == len({r["qid"] for r in recs}), "a question was written twice"
    return {r["qid"]: _stable(r) for r in recs}


@pytest.fixture(scope="module")
def reference_run(synth, tmp_path_factory):
    out = tmp_path_factory.mktemp("ref-run")
    _run(_demo_args(synth, out / "run", out / "memories"))
    return out / "run", out / "memories"


@pytest.mark.xdist_group("faults-run")   # parallel workers: one reference run, on one worker
@pytest.mark.parametrize("point", ["while building the memory", "after the first trace", "after the first trace, on Ray"])
def test_killed_run_resumes_to_the_same_traces(point, synth, reference_run, tmp_path):
    "SIGKILL of the run (on Ray: of its driver, the workers left to die with it), then a rerun: the traces of an uninterrupted run."
    ref_out, ref_mem = reference_run
    out, mem = tmp_path / "run", tmp_path / "memories"
    traces = out / "reveal" / "traces.jsonl"
    ray = ["--workers", "2"] if point.endswith("on Ray") else []
    ready = {"while building the memory": lambda: _folder(mem) is not None}.get(
        point, lambda: traces.exists() and traces.read_text().count("\n") >= 1)
    if point.startswith("after the first trace"):   # the memory is the other test's business: start from the reference's
        subprocess.run(["cp", "-r", str(ref_mem), str(mem)], check=True)
    killed = kill_when(_demo_args(synth, out, mem) + ray, ready)
    _run(_demo_args(synth, out, mem) + ray)
    assert _traces(out) == _traces(ref_out)
    assert killed, f"the run finished before the kill point {point!r} was seen"


@pytest.mark.xdist_group("faults-run")   # parallel workers: one reference run, on one worker
def test_torn_trace_is_repaired(synth, reference_run, tmp_path):
    ref_out, ref_mem = reference_run
    out = tmp_path / "run"
    subprocess.run(["cp", "-r", str(ref_out), str(out)], check=True)
    path = out / "reveal" / "traces.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1] + [lines[-1][:100]]))
    _run(_demo_args(synth, out, ref_mem))
    assert _traces(out) == _traces(ref_out)
