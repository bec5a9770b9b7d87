"""Paired differences at a larger n: the figures' pooled runs extended by more reveal-synth seeds, in one command.

    .venv/bin/python bench/bench_paired.py --pooled runs/figures-small/reveal-XXXX,runs/figures-small/onmem-XXXX,... \
        --pooled-seeds 0,1,2 --seeds 3,4,5,6 --out runs/n400 [--run] [--size small] [--split test]

The first `--pooled` folder is the base (REVEAL); every folder names its variant in `scores.json`. With `--run`,
each run is repeated on the test split of every extra seed with its own config (`reveal-nb eval --config`,
resumable: an interrupted run continues where it stopped) into OUT/<label>-seed<S>, the label being the
variant (with its τ, `reveal-tau1.0`, when an earlier folder has the same variant). Then the
traces of every seed are pooled by (seed, question) and the script prints, for each run, its accuracy with
a Wilson interval and what its loop did, and the paired table: base − each other run on the questions both
answered (paired bootstrap interval, right only in one, McNemar's p). Questions an extra-seed run has not
answered yet are left out of its pairs, and the table says how many pairs each row has.
"""
import argparse, json, os, subprocess, sys
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
from pathlib import Path
from reveal_nb.core import atomic_write_json, read_jsonl_records
from reveal_nb.report.analysis import paired_rows, trace_accuracy
from reveal_nb.report.notebooks import report_items, seed_root
from reveal_nb.studies.loop_study import loop_behaviour


def scores_of(folder: Path) -> dict:
    path = folder / "scores.json"
    if not path.exists(): sys.exit(f"{path}: no scores.json (is this a finished run folder?)")
    record = json.loads(path.read_text())
    for key in ("variant", "config"):
        if key not in record: sys.exit(f"{path}: field '{key}' missing")
    return record


def traces_of(folder: Path, seed: int | None) -> list[dict]:
    "A run's traces; a single-seed run's question ids get the seed mark a pooled run already has."
    path = folder / "traces.jsonl"
    if not path.exists(): return []
    traces = list(read_jsonl_records(path, key="qid").values())
    return traces if seed is None else [dict(t, qid=f"seed{seed}-{t['qid']}") for t in traces]


def run_seed(config: dict, variant: str, seed: int, size: str, split: str, out: Path):
    "`reveal-nb eval` of one variant on one seed's split, with its pooled run's config; resumes."
    out.parent.mkdir(parents=True, exist_ok=True)
    config_file = out.parent / f"{out.name}-config.json"
    atomic_write_json(config_file, {"config": config})
    cli = Path(sys.executable).with_name("reveal-nb")
    cmd = [str(cli), "eval", "--size", size, "--root", str(seed_root(Path("data") / f"reveal-synth-{size}", seed)),
           "--split", split, "--config", str(config_file), "--set", f"seed={seed}", "--variant", variant,
           "--out", str(out)]
    print(" ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pooled", required=True, help="comma-separated run folders of pooled seeds; the first is the base")
    ap.add_argument("--pooled-seeds", default="0,1,2")
    ap.add_argument("--seeds", default="", help="extra seeds, each run into OUT/<variant>-seed<S>")
    ap.add_argument("--out", default="runs/n400"); ap.add_argument("--run", action="store_true")
    ap.add_argument("--size", default="small"); ap.add_argument("--split", default="test")
    a = ap.parse_args(argv)
    folders = [Path(p) for p in a.pooled.split(",") if p]
    records = [scores_of(f) for f in folders]
    variants = [r["variant"] for r in records]
    labels = [v if v not in variants[:i] else f"{v}-tau{r['config']['tau']}"
              for i, (v, r) in enumerate(zip(variants, records))]
    if len(set(labels)) != len(labels): sys.exit(f"--pooled: two folders of one variant and τ ({labels})")
    pooled_seeds = [int(s) for s in a.pooled_seeds.split(",") if s]
    seeds = [int(s) for s in a.seeds.split(",") if s]
    if a.run:
        for s in seeds:
            for label, r in zip(labels, records):
                run_seed(r["config"], r["variant"], s, a.size, a.split, Path(a.out) / f"{label}-seed{s}")
    items = {it.qid: it for it in report_items("reveal-synth", Path("data") / f"reveal-synth-{a.size}", a.split,
                                                a.size, seeds=pooled_seeds + seeds)}
    runs = {label: traces_of(f, None) + [t for s in seeds for t in traces_of(Path(a.out) / f"{label}-seed{s}", s)]
            for label, f in zip(labels, folders)}
    stray = next((t["qid"] for ts in runs.values() for t in ts if t["qid"] not in items), None)
    if stray: sys.exit(f"{stray}: not a question of the {a.split} split of seeds {pooled_seeds + seeds}")
    t0 = runs[labels[0]][0]
    print(f"\nreveal-synth {a.size} {a.split}, seeds {pooled_seeds + seeds} ({len(items)} questions); backbone "
          f"{t0['backbone']['model']}, readings {t0['readings']}, rubric pool {t0['rubric_pool'].get('name')}, "
          f"τ = {t0['tau']}, K = {t0['max_rounds']}\n")
    print("| run | n | accuracy [95%] | near chance | early stop | mean rounds | calls / question |\n|---|---|---|---|---|---|---|")
    for v, ts in runs.items():
        acc, b = trace_accuracy(ts), loop_behaviour(ts)
        print(f"| {v} | {acc['n']} | {acc['accuracy']:.3f} [{acc['ci_low']:.3f}, {acc['ci_high']:.3f}] | "
              f"{'yes' if acc['near_chance'] else 'no'} (chance {acc['chance']:.2f}) | {b['early_stop']} | "
              f"{b['mean_rounds']} | {b['calls_per_question']} |")
    table = paired_rows(runs, labels[0])
    print("\n" + table.to_markdown(index=False, floatfmt=".3f"))


if __name__ == "__main__":
    main()
