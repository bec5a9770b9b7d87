"""The verifier where it runs: the in-loop table of a reveal-synth run folder, in one command.

    .venv/bin/python bench/bench_in_loop.py RUN [RUN ...] --seeds 0[,1] [--split test] [--size small]
                                            [--rescore CALIBRATION]
    .venv/bin/python bench/bench_in_loop.py RUN --pooled --seeds 0,1,2   # a `reveal-nb figures` run of pooled seeds
    .venv/bin/python bench/bench_in_loop.py RUN3 RUN4 --seeds 3,4 --with-pooled RUN --pooled-seeds 0,1,2  # both

For every round of the runs' traces (best from a never-stopping run: `--set early_stop=false --set tau=1.0`),
the cache the verifier saw and whether it truly held the decisive evidence (chapter 04). Prints:
1. the in-loop table of the ρ the run recorded: AUROC for truly sufficient, pooled and per type with a 95%
   interval over questions, mean ρ per class, rounds with ρ ≥ τ and the share of them lacking the evidence,
   and how often ρ rose at the round a cache became sufficient;
2. with --rescore, the same table for ρ recomputed on the same caches by that calibration's line reading
   (`lines.rubric`; the shipped calibration when given `shipped`), so a verifier is measured on the loop's own
   rounds without rerunning the loop;
3. what the loop did: early stops, mean rounds, calls per question, false stops, repair queries rejected as
   repeats, repair rounds that added a new L1 segment.
"""
import argparse, os, sys, time
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
from pathlib import Path
from reveal_nb.config import RevealConfig, with_overrides
from reveal_nb.core import read_jsonl_records
from reveal_nb.data.benchmarks import load_benchmark
from reveal_nb.report.notebooks import seed_root, seeded
from reveal_nb.studies.loop_study import (beyond_type, feature_table, in_loop_table, loop_behaviour,
    rho_values, round_points)


def read_runs(runs, seeds, pooled: bool, size: str, split: str, with_pooled=None, pooled_seeds=()):
    """Round points, traces and items of the runs, every question id marked by its seed (`seed{s}-`): a
    pooled run (`reveal-nb figures --seeds`) has them marked already, a run per seed gets them here.
    `with_pooled` adds a pooled run of `pooled_seeds` to runs of one seed each."""
    all_seeds = list(seeds) + list(pooled_seeds)
    items = {it.qid: it for s in all_seeds for it in (seeded(i, s) for i in load_benchmark(
        "reveal-synth", seed_root(Path("data") / f"reveal-synth-{size}", s), split=split))}
    read = lambda run: read_jsonl_records(Path(run) / "traces.jsonl", key="qid").values()
    traces = (list(read(runs[0])) if pooled else
              [dict(t, qid=f"seed{s}-{t['qid']}") for run, s in zip(runs, seeds) for t in read(run)])
    traces += list(read(with_pooled)) if with_pooled else []
    stray = next((t["qid"] for t in traces if t["qid"] not in items), None)
    if stray: sys.exit(f"{stray}: not a question of the {split} split of seeds {all_seeds}")
    return round_points(traces, items), traces, items


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+"); ap.add_argument("--seeds", default="0")
    ap.add_argument("--split", default="test"); ap.add_argument("--size", default="small")
    ap.add_argument("--rescore", default="", help="a calibration file, or 'shipped'")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--pooled", action="store_true",
                    help="one run folder holding the seeds' questions under seed-prefixed ids (reveal-nb figures)")
    ap.add_argument("--with-pooled", default="", help="a pooled run folder to add to runs of one seed each")
    ap.add_argument("--pooled-seeds", default="0,1,2", help="the seeds of --with-pooled")
    a = ap.parse_args(argv)
    cfg = with_overrides(RevealConfig(), a.sets, source="--set")
    seeds = [int(s) for s in a.seeds.split(",")]
    if len(a.runs) != (1 if a.pooled else len(seeds)):
        sys.exit("--pooled: give one run folder" if a.pooled
                 else f"--seeds: give one seed per run folder ({len(a.runs)})")
    pooled_seeds = [int(s) for s in a.pooled_seeds.split(",")] if a.with_pooled else []
    if a.pooled and a.with_pooled: sys.exit("--pooled and --with-pooled: give one of them")
    points, traces, items = read_runs(a.runs, seeds, a.pooled, a.size, a.split, a.with_pooled, pooled_seeds)
    t0 = traces[0]
    print(f"reveal-synth {a.size} {a.split}, seeds {pooled_seeds + seeds}: {len(traces)} questions, {len(points)} rounds; "
          f"backbone {t0['backbone']['model']}, readings {t0['readings']}, rubric pool "
          f"{t0['rubric_pool'].get('name')}; the run's τ = {t0['tau']}, K = {t0['max_rounds']}; "
          f"the tables use τ = {cfg.tau}\n")
    import numpy as np
    recorded = np.array([p["rho"] if p["rho"] is not None else np.nan for p in points])
    print("## ρ as the run recorded it\n")
    print(in_loop_table(points, recorded, cfg.tau).to_markdown(index=False))
    print(f"\nbeyond the type of question: {beyond_type(points, recorded)}")
    if a.rescore:
        from reveal_nb.backends.encoders import make_text_encoder
        from reveal_nb.method.readings import load_calibration, shipped_calibration_path
        from reveal_nb.method.line_reading import loop_weights
        from reveal_nb.method.rubrics import pool_for
        path = shipped_calibration_path() if a.rescore == "shipped" else Path(a.rescore)
        enc, pool = make_text_encoder(cfg), pool_for(cfg)
        cal = load_calibration(path, enc=enc)
        start = time.time()
        feats = feature_table(enc, points, pool, cal.count_threshold)
        rho = rho_values(points, feats, loop_weights(cal, "rubric", path), pool)
        print(f"\n## ρ of the line reading ({path.name}, pool {pool.name}), recomputed on the same caches "
              f"({time.time() - start:.1f} s for {len(points)} rounds)\n")
        print(in_loop_table(points, rho, cfg.tau).to_markdown(index=False))
        print(f"\nbeyond the type of question: {beyond_type(points, rho)}")
    print("\n## What the loop did\n")
    b = loop_behaviour(traces, items)
    print("| " + " | ".join(b) + " |\n|" + "---|" * len(b) + "\n| " + " | ".join(str(v) for v in b.values()) + " |")


if __name__ == "__main__":
    main()
