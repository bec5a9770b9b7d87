"""EgoLifeQA on a folder of 30-s clips in the official layout, made by the synthetic renderer: one memory per
person over the clips of every day in time order, and nothing that ends after the question's time is ever retrieved."""
import json, subprocess, sys
from pathlib import Path
import pytest
from reveal_nb.data.benchmarks import load_egolifeqa
from reveal_nb.data.clips import clip_start
from reveal_nb.config import RevealConfig
from reveal_nb.core import sha256_file
from reveal_nb.synth.render import write_video
from reveal_nb.synth.world import narration_track, simulate

from conftest import CLI
NAMES = [f"DAY1_A1_JAKE_{t}.mp4" for t in ("11000000", "11003000", "11010000")]
ASKED = ("11004500", "11012500")        # 11:00:45 (in the second clip) and 11:01:25 (in the third)


def write_ego_clips(folder, names, seed=0, seconds=30.0):
    "Clips named `names` cut from one simulated world, each with its narration beside it (as chapter 06c)."
    folder = Path(folder); folder.mkdir(parents=True, exist_ok=True)
    starts = [clip_start(n) for n in names]
    truth = simulate("ego", starts[-1] - starts[0] + seconds + 30, seed)
    lines = narration_track(truth, 0.0, 0.0)
    for name, s in zip(names, starts):
        a = s - starts[0]
        steps = [st | dict(start=st["start"] - a, end=st["end"] - a) for st in truth["steps"]]
        write_video(truth | dict(duration=seconds, steps=steps), folder / name)
        mine = [l | dict(start=max(0.0, l["start"] - a), end=min(seconds, l["end"] - a))
                for l in lines if l["start"] < a + seconds and l["end"] > a]
        (folder / name).with_suffix(".json").write_text(json.dumps(mine))


def ego_record(i, asked, question, options, answer, target="11001500"):
    "One EgoLifeQA record in the official schema."
    return dict(ID=str(i), query_time=dict(date="DAY1", time=asked), type="EventRecall", need_audio=False,
                need_name=False, last_time=False, trigger="", question=question,
                **{f"choice_{k}": o for k, o in zip("abcd", options)}, answer=answer,
                target_time=dict(date="DAY1", time=target), keywords="", reason="")


def write_questions(root, asked=ASKED):
    recs = [ego_record(1, asked[0], "Where did Alex go after the office?", ["bathroom", "bedroom", "garden", "attic"], "B"),
            ego_record(2, asked[-1], "What did Alex put on the counter?", ["a cup", "a book", "a phone", "a key"], "C")]
    (root / "EgoLifeQA").mkdir(parents=True, exist_ok=True)
    (root / "EgoLifeQA" / "EgoLifeQA_A1_JAKE.json").write_text(json.dumps(recs[:len(asked)]))


@pytest.fixture(scope="module")
def ego_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("egolife")
    write_ego_clips(root / "A1_JAKE" / "DAY1", NAMES)
    write_questions(root)
    return root


def test_a_person_s_questions_share_one_memory_of_their_clips(ego_root, tmp_path):
    from reveal_nb.runs.traces import item_video
    items = load_egolifeqa(ego_root)
    assert [it.video_id for it in items] == ["A1_JAKE", "A1_JAKE"]
    assert all(it.extra["clips_until"] == items[1].extra["query_seconds"] for it in items)  # the last question
    assert [p.name for p in item_video(items[0])] == NAMES                   # the same clips for both questions
    alone = tmp_path / "alone"; alone.mkdir(); (alone / "A1_JAKE").symlink_to(ego_root / "A1_JAKE")
    write_questions(alone, ASKED[:1])                                        # only the 11:00:45 question
    assert [p.name for p in item_video(load_egolifeqa(alone)[0])] == NAMES[:2]   # 11:01:00 is not needed


def test_a_question_on_a_later_day_reads_the_days_before(ego_root, tmp_path):
    "A DAY2 question's memory holds DAY1's clips and DAY2's up to the question, not what came after it."
    import shutil
    from reveal_nb.runs.traces import item_video
    root = tmp_path / "two-days"; (root / "A1_JAKE").mkdir(parents=True)
    shutil.copytree(ego_root / "A1_JAKE" / "DAY1", root / "A1_JAKE" / "DAY1")
    day2 = [n.replace("DAY1", "DAY2") for n in NAMES]
    write_ego_clips(root / "A1_JAKE" / "DAY2", day2, seed=1)
    rec = ego_record(1, ASKED[0], "Where did Alex go after the office?", ["bathroom", "bedroom", "garden", "attic"], "B")
    rec["query_time"]["date"] = "DAY2"                                       # asked on DAY2, about DAY1 (target_time)
    (root / "EgoLifeQA").mkdir(); (root / "EgoLifeQA" / "EgoLifeQA_A1_JAKE.json").write_text(json.dumps([rec]))
    [item] = load_egolifeqa(root)
    assert item.video_id == "A1_JAKE" and item.extra["query_seconds"] == clip_start(f"DAY2_X_{ASKED[0]}")
    assert [p.name for p in item_video(item)] == NAMES + day2[:2]             # DAY1, then DAY2 up to 11:00:45
    assert item.evidence == [[clip_start("DAY1_X_11001500")] * 2]            # its gold moment is on DAY1


def test_egor1_questions_reach_the_same_clip_folders(ego_root, tmp_path):
    from reveal_nb.data.benchmarks import load_egor1
    from reveal_nb.runs.traces import item_video
    root = tmp_path / "egor1"; (root / "QA-egolife").mkdir(parents=True)
    (root / "A1_JAKE").symlink_to(ego_root / "A1_JAKE")                      # Ego-R1 reads the EgoLife clips
    src = ego_root / "EgoLifeQA" / "EgoLifeQA_A1_JAKE.json"
    (root / "QA-egolife" / "EgoLifeQA_A1_JAKE.json").write_text(src.read_text())
    items = load_egor1(root)
    assert [(it.qid, it.video_id) for it in items] == [("A1_JAKE:1", "A1_JAKE"), ("A1_JAKE:2", "A1_JAKE")]
    assert [p.name for p in item_video(items[0])] == NAMES


def test_the_memory_key_of_clips_follows_their_content(ego_root, tmp_path):
    import shutil
    from reveal_nb.memory.build import memory_key
    day = tmp_path / "DAY1"; shutil.copytree(ego_root / "A1_JAKE" / "DAY1", day)
    cfg, clips = RevealConfig(), sorted(day.glob("*.mp4"))
    key = memory_key(clips, cfg)
    assert memory_key(day, cfg) == key                                       # a folder is its clips
    assert memory_key(clips[:2], cfg) != key                                 # a clip fewer
    narration = clips[1].with_suffix(".json"); narration.write_text(narration.read_text().replace("Alex", "Sam", 1))
    assert memory_key(clips, cfg) != key                                     # a clip's own narration changed
    key = memory_key(clips, cfg)
    with open(clips[2], "ab") as f: f.write(b"\0")
    assert memory_key(clips, cfg) != key                                     # a clip's content changed
    assert memory_key(clips[0], cfg).startswith(sha256_file(clips[0])[:16])   # one file keeps its own key


def test_retrieval_never_returns_what_ends_after_the_question(ego_root, tmp_path):
    from reveal_nb.backends.encoders import make_text_encoder
    from reveal_nb.method.loop import execute_action, start_run
    from reveal_nb.memory.build import build_memory
    from reveal_nb.method.planner import Action
    from reveal_nb.runs.traces import item_video
    item = load_egolifeqa(ego_root)[0]
    cfg = RevealConfig(memory_dir=str(tmp_path / "memories"))
    enc = make_text_encoder(cfg)
    mem = build_memory(item_video(item), cfg, text_encoder=enc, progress=False, levels=1)
    asked = item.extra["query_seconds"]
    l1 = mem.level(1)                                                        # one memory over the three clips:
    assert (l1[0]["start"], l1[-1]["end"]) == (clip_start(NAMES[0]), clip_start(NAMES[2]) + 30)
    assert {x["clip"] for x in l1} <= set(NAMES) and l1[0]["clip"] == NAMES[0]
    later = [x for x in mem.level(1) if x["end"] > asked and x["text"]]
    assert later, "the memory must hold moments after the question for this test to mean anything"
    query = later[-1]["text"]                                                # what happens after the question
    assert mem.search_text(enc.encode([query]), cfg, levels=(1,))[0][0]["end"] > asked   # found without a horizon
    run = start_run(item, mem, cfg, enc.dim)
    for action in (Action("Text Retrieval", [query]), Action("Uniform Sampling")):
        cands, _ = execute_action(run, action, enc, cfg)
        assert cands and all(c["end"] <= asked for c in cands), [(c["id"], c["end"]) for c in cands]
    assert all(x["end"] <= asked for x in run.mem.level(1)) and run.mem.level(1)


@pytest.mark.slow
def test_egolifeqa_eval_runs_end_to_end_on_a_clip_folder(ego_root, tmp_path):
    out, mems = tmp_path / "run", tmp_path / "memories"
    res = subprocess.run(CLI + ["eval", "--bench", "egolifeqa", "--root", str(ego_root), "--limit", "1",
                                "--variant", "m_base", "--set", f"memory_dir={mems}", "--out", str(out)],
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "accuracy: official" in res.stdout and json.loads((out / "scores.json").read_text())["n"] == 1
    [folder] = [p for p in mems.iterdir() if p.is_dir()]                    # one memory for the person
    items = [json.loads(l) for l in (folder / "items.jsonl").read_text().splitlines()]
    assert [x["clip"] for x in items[::3]] == NAMES                          # 10-s chunks, three per clip, in order
    assert (items[0]["start"], items[-1]["end"]) == (clip_start(NAMES[0]), clip_start(NAMES[2]) + 30)
    trace = json.loads((out / "traces.jsonl").read_text().splitlines()[0])
    asked = clip_start(f"DAY1_X_{ASKED[0]}")
    admitted = [a for r in trace["rounds"] for a in r["admitted"]]
    assert admitted and all(a["end"] <= asked for a in admitted), [(a["id"], a["end"]) for a in admitted]
    assert trace["gold_in_final"] == [True]                                  # 11:00:15 lies in a chunk it holds
