"""A model per role: one bundled model for everything against the bundled model planning and summarising
with a larger packaged model reading (verifier and answerer). Prints a Markdown table.

    .venv/bin/python bench/bench_roles.py [--per-type 6] [--seeds 0,1,2] [--reader bundled:qwen2.5-coder-0.5b-instruct]
        --calibration runs/readings/calibration-qwen2.5-0.5b.json [--runs runs/bench-roles] [--variant reveal]

Both pairings answer the same reveal-synth small test questions (the first `--per-type` of each type over the
pooled seeds) with the same memories (summarised by the bundled model in both, so built once). The reader's
likelihood readings need a calibration fitted for it (`reveal-nb readings calibrate --set llm_model=READER`).
Runs are resumable (one run folder per pairing under `--runs`). Model-seconds by role are the run's scored cost
(`scores.json`, `cost_per_question`): cached replies count at the latency they took when they were computed, so
the table reports what each role costs, not what this rerun happened to recompute. Run it on an idle machine for
the times.
"""
import argparse, collections, json, os, sys
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
from reveal_nb.core import paired_by_question
from reveal_nb.config import with_overrides
from reveal_nb.report.analysis import Models, ensure_runs, trace_accuracy
from reveal_nb.report.notebooks import parse_seeds, report_config, report_items

ROLES = ("planner", "verifier", "answerer")


def pick(items, per_type):
    "The first `per_type` questions of each type, in the items' order."
    seen, out = collections.Counter(), []
    for it in items:
        t = (it.qtypes or ["?"])[0]
        if seen[t] < per_type: seen[t] += 1; out.append(it)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-type", type=int, default=6)
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--root", default="data/reveal-synth-small")
    ap.add_argument("--reader", default="bundled:qwen2.5-coder-0.5b-instruct")
    ap.add_argument("--calibration", required=True, help="the reader's readings calibration (JSON)")
    ap.add_argument("--runs", default="runs/bench-roles")
    ap.add_argument("--variant", default="reveal")
    a = ap.parse_args(argv)
    if not os.path.isfile(a.calibration):
        sys.exit(f"{a.calibration}: no such calibration; fit one with "
                 f"reveal-nb readings calibrate --set llm_model={a.reader} --out {a.calibration}")
    base = report_config([])
    items = pick(report_items("reveal-synth", a.root, size="small", cfg=base, seeds=parse_seeds(a.seeds)),
                 a.per_type)
    pairings = {
        "(a) one model": base,
        "(b) 135M plans and summarises, reader reads": with_overrides(base, {
            "verifier_model": a.reader, "answerer_model": a.reader, "readings_calibration": a.calibration}),
    }
    runs = {}
    for name, cfg in pairings.items():
        print(f"{name}: {len(items)} questions", file=sys.stderr, flush=True)
        runs[name] = ensure_runs(items, cfg, [a.variant], a.runs, Models(cfg))[a.variant]
    print(f"\nreveal-synth small test, seeds {a.seeds}, {a.per_type} per type: n = {len(items)}; "
          f"variant {a.variant}; starter pool; likelihood readings\n")
    print("| pairing | models (planner / verifier / answerer) | accuracy [95% CI] | "
          + " | ".join(f"{r} s/q" for r in ROLES) + " | total s/q |")
    print("|---|---|---|" + "---|" * (len(ROLES) + 1))
    for name, run in runs.items():
        acc, cost = trace_accuracy(run.traces), run.scores["cost_per_question"]
        roles = run.traces[0]["backbone"].get("roles", {})
        who = " / ".join(os.path.basename(str(roles.get(r, run.traces[0]["backbone"]["model"]))) for r in ROLES)
        secs = {r: cost.get(r, {}).get("latency_s", 0.0) for r in ROLES}
        print(f"| {name} | {who} | {acc['accuracy']:.3f} [{acc['ci_low']:.3f}, {acc['ci_high']:.3f}]"
              + (" (near chance)" if acc["near_chance"] else "") + " | "
              + " | ".join(f"{secs[r]:.1f}" for r in ROLES)
              + f" | {sum(c['latency_s'] for c in cost.values()):.1f} |")
    (a_run, b_run) = runs.values()
    d = paired_by_question(*({t["qid"]: t["correct"] for t in r.traces} for r in (b_run, a_run)))
    print(f"\n(b) − (a): {d['difference']:+.3f} [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}], "
          f"right only in (b) {d['only_a']}, only in (a) {d['only_b']}, McNemar p = {d['mcnemar_p']:.3f}; "
          f"chance {trace_accuracy(a_run.traces)['chance']:.2f}")
    print(json.dumps({n: str(r.dir) for n, r in runs.items()}), file=sys.stderr)


if __name__ == "__main__":
    main()
