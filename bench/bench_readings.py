"""The readings of the `likelihood` family against issue 21's targets, on reveal-synth: prints Markdown tables.

    .venv/bin/python bench/bench_readings.py [--per-type 20] [--calibration FILE] [--records runs/readings]

Measures (or reads back: the records under --records make a rerun instant) the reveal-synth test split of
seeds 0-2 under four conditions (E+, no evidence, E-, E+ u E-) with the configured backbone and encoder,
reads every answer and verifier reading from the records (chapter 04a), and prints each target next to
what was measured, with its 95% interval. The calibration is the shipped one unless --calibration names
another (fit one with `reveal-nb readings calibrate`).
"""
import argparse, os, sys, time
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
import numpy as np
from reveal_nb.config import RevealConfig, with_overrides
from reveal_nb.backends.roles import make_llm
from reveal_nb.backends.encoders import make_text_encoder
from reveal_nb.method.rubrics import pool_for
from reveal_nb.method.readings import load_calibration, shipped_calibration_path
from reveal_nb.studies.reading_study import (answer_table, measure, records_path, selection_table,
    study_questions, verifier_table)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-type", type=int, default=20); ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--calibration", default=""); ap.add_argument("--records", default="runs/readings")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE")
    a = ap.parse_args(argv)
    cfg = with_overrides(RevealConfig(), a.sets, source="--set")
    seeds = tuple(int(s) for s in a.seeds.split(","))
    llm, enc, pool = make_llm(cfg), make_text_encoder(cfg), pool_for(cfg)
    cal_path = a.calibration or cfg.readings_calibration or shipped_calibration_path()
    cal = load_calibration(cal_path, llm, enc)
    qs = study_questions("test", a.per_type, seeds)
    t0 = time.time()
    recs = measure(llm, enc, qs, progress=True, path=records_path(a.records, llm, enc, "test", "small", seeds))
    print(f"\nreveal-synth small, test split, seeds {list(seeds)}: n = {len(recs)} questions, {len({r['type'] for r in recs})} types; "
          f"backbone {llm.model_name}, encoder {enc.spec}, calibration {cal_path} (fitted on {cal.provenance.get('dev_questions')} dev questions); "
          f"measured or read back in {time.time() - t0:.0f} s\n")
    ans, ver, sel = answer_table(recs, cal), verifier_table(recs, cal, cfg.tau), selection_table(qs, pool, cfg)
    ver_t = verifier_table(recs, cal, cfg.tau, by_type=True)
    ot = ans[ans.reading == "option_text"].iloc[0]
    gm = ver[ver.score == "gain_match"].iloc[0]
    gm_t = ver_t[ver_t.score == "gain_match"]
    form = sel[(sel.selection == "question_form") & (sel.type == "all")].iloc[0]
    secs = np.mean([r["seconds"]["plain"] for r in recs]) / 4
    rows = [("answerer, E+ (oracle)", "≥ 0.75", ot["O"], ot["O 95%"], ot["O"] >= 0.75),
            ("answerer, no evidence", f"≤ chance + 0.07 = {ot['chance'] + 0.07:.2f}", ot["N"], ot["N 95%"], ot["N"] <= ot["chance"] + 0.07),
            ("answerer, E− (misleading)", "≤ 0.35", ot["M"], ot["M 95%"], ot["M"] <= 0.35),
            ("verifier AUROC ρ, E+ vs E−, pooled", "≥ 0.75", gm["AUROC O>M"], gm["O>M 95%"], gm["AUROC O>M"] >= 0.75),
            ("verifier AUROC ρ, E+ vs E−, worst type", "≥ 0.6", gm_t["AUROC O>M"].min(), gm_t.loc[gm_t["AUROC O>M"].idxmin(), "type"], gm_t["AUROC O>M"].min() >= 0.6),
            ("verifier AUROC ρ, E+∪E− vs E− (length control)", "(reported)", gm["AUROC U>M"], gm["U>M 95%"], None),
            ("judged sufficient at τ, E+", "≥ 0.60", gm["sufficient O"], "", gm["sufficient O"] >= 0.6),
            ("judged sufficient at τ, E−", "≤ 0.20", gm["sufficient M"], "", gm["sufficient M"] <= 0.2),
            ("call 1 criteria fit the question's type", "≥ 0.90", form["fit"], form["95%"], form["fit"] >= 0.9),
            ("model-seconds per reading of one evidence set", "(reported)", round(secs, 3), "", None)]
    print("| target | goal | measured | 95% interval (or worst type) | met |\n|---|---|---|---|---|")
    for name, goal, got, ci, ok in rows:
        print(f"| {name} | {goal} | {got} | {ci} | {'' if ok is None else ('yes' if ok else 'NO')} |")
    print("\n" + ans.drop(columns=[c for c in ans.columns if c.endswith("95%")]).to_markdown(index=False))
    print("\n" + ver_t[ver_t.score.isin(["gain_match", "best gain alone", "best match alone"])][["score", "type", "n", "AUROC O>M", "AUROC U>M", "sufficient O", "sufficient M"]].to_markdown(index=False))


if __name__ == "__main__":
    sys.exit(main())
