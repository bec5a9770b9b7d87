"""Random damage to valid files, read the way the CLI reads them: every mutation either loads or is one line
(`RevealInputError`, exit 2 from the CLI), never a traceback.

Mutations are type swaps, nulls, huge numbers, NaN, empty and very long texts, right-to-left marks, lists and
objects where scalars belong, deleted fields and path tricks (`../../etc/passwd`, `/etc/passwd`), applied at a
random depth of: the official annotation files of LongVideoBench, LVBench and EgoLifeQA (the example files of
chapter 06a), the starter rubric pool, a config file, and a trace (`trace show`, `trace plot`). About 500 cases
per seed, a few seconds each seed.
"""
import contextlib, copy, io, json, random
from pathlib import Path
import pytest
import yaml
from conftest import ROOT

WEIRD = [None, True, 0, -1, 1e308, float("nan"), "", "x" * 5000, [], {}, [1, 2], {"a": 1}, "../../etc/passwd",
         "/etc/passwd", "é\u202e", 2 ** 70]


def _mutate(obj, rng):
    "One random change somewhere inside a JSON-like object (or the object replaced)."
    if isinstance(obj, (dict, list)) and obj and rng.random() < 0.8:
        is_dict = isinstance(obj, dict)
        k, r = rng.choice(list(obj)) if is_dict else rng.randrange(len(obj)), rng.random()
        if r < 0.2: del obj[k]
        elif r < (0.6 if is_dict else 0.5): obj[k] = rng.choice(WEIRD)
        else: obj[k] = _mutate(obj[k], rng)
        return obj
    return rng.choice(WEIRD)


def _outcome(fn):
    "None when fn loads or refuses in one line; else what went wrong."
    from reveal_nb.config import RevealInputError
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()): fn()
    except RevealInputError: return None
    except SystemExit as e: return None if e.code in (0, 2) else f"exit {e.code}"
    except Exception as e: return f"{type(e).__name__}: {str(e)[:200]}"
    return None


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_damaged_files_load_or_give_one_line(seed, tmp_path):
    from reveal_nb.data.benchmarks import load_benchmark, write_example_files
    from reveal_nb.method.rubrics import load_pool, starter_pool_path
    from reveal_nb.cli import config_from_args, main
    rng, findings = random.Random(seed), []
    for bench in ("longvideobench", "lvbench", "egolifeqa"):
        root = write_example_files(bench, tmp_path / bench)
        for f in sorted(p for p in Path(root).rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file()):
            text = f.read_text()
            for n in range(40):
                if f.suffix == ".jsonl":
                    recs = _mutate([json.loads(l) for l in text.splitlines() if l.strip()], rng)
                    f.write_text("".join(json.dumps(r) + "\n" for r in (recs if isinstance(recs, list) else [recs])))
                else: f.write_text(json.dumps(_mutate(json.loads(text), rng)))
                if why := _outcome(lambda: load_benchmark(bench, root)): findings.append((f"{bench} {f.name} #{n}", why))
            f.write_text(text)
    pool = yaml.safe_load(Path(starter_pool_path()).read_text())
    for n in range(80):
        p = tmp_path / f"pool{n}.yaml"
        p.write_text(yaml.safe_dump(_mutate(copy.deepcopy(pool), rng)))
        if why := _outcome(lambda: load_pool(p)): findings.append((f"pool #{n}", why))
    for n in range(60):
        c = tmp_path / f"config{n}.json"
        c.write_text(json.dumps(_mutate(dict(tau=0.7, max_rounds=3, early_stop=True, rubric_pool="", seed=0), rng)))
        if why := _outcome(lambda: config_from_args(str(c), [])): findings.append((f"config #{n}", why))
    example = json.loads((ROOT / "figures" / "trace_example.jsonl").read_text())
    for n in range(60):
        t, rec = tmp_path / f"traces{n}.jsonl", _mutate(copy.deepcopy(example), rng)
        t.write_text(json.dumps(rec) + "\n")
        qid = rec["qid"] if isinstance(rec, dict) and isinstance(rec.get("qid"), str) else example["qid"]
        for action in ("show", "plot"):
            args = ["trace", action, str(t), qid] + (["--out", str(tmp_path / f"t{n}.png")] if action == "plot" else [])
            if why := _outcome(lambda: main(args)): findings.append((f"trace {action} #{n}", why))
    assert not findings, f"{len(findings)} damaged files gave a traceback, first: {findings[:5]}"
