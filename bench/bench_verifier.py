"""Verifier and answerer readings on reveal-synth: prints a Markdown table.

    .venv/bin/python bench/bench_verifier.py [--videos 6] [--seconds 600] [--readings generate,expected,option_likelihood]

For reveal-synth questions that have both decisive (E+) and misleading (E-) evidence intervals, the
evidence text of each side is what L1 narratives would say there (narration + quoted speech; no video is
rendered). Each verifier reading scores rho with E+ and with E-; the table gives the AUROC of rho (E+ vs
E-; 0.5 = no signal), mean rho, and the share called sufficient (rho >= tau) on each side. Each answer
reading picks an option with E+, with E- and with no evidence; the table gives its accuracy (chance is
the mean of 1 / number of options). Criteria come from verifier call 1 with the same model.
"""
import argparse, os, sys, time
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
import numpy as np
from reveal_nb.core import RevealConfig, with_overrides
from reveal_nb.models import make_llm
from reveal_nb.rubrics import pool_for
from reveal_nb.verifier import auroc, parse_selection, select_request, synth_pairs, verify_batch
from reveal_nb.loop import answer_batch, start_run
from reveal_nb.benchmarks import QAItem


class _Evidence:
    "Holds a fixed evidence text where the answerer expects an online memory."
    def __init__(self, text): self.text = text
    def evidence_text(self): return self.text


def answer_accuracy(llm, pairs, side, cfg):
    runs = []
    for i, p in enumerate(pairs):
        r = start_run(QAItem("reveal-synth", f"p{i}", "v", p["question"], p["options"], p["answer"], [p["type"]]), None, cfg, 4)
        r.om = _Evidence(p[side] if side else "")
        runs.append(r)
    answer_batch(runs, llm, cfg)
    return float(np.mean([r.answer["letter"] == p["answer"] for r, p in zip(runs, pairs)]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--videos", type=int, default=6); ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--limit", type=int, default=0, help="use only the first N pairs (0 = all)")
    ap.add_argument("--readings", default="generate,expected,option_likelihood")
    ap.add_argument("--answer-readings", default="generate,option_likelihood")
    a = ap.parse_args(argv)
    cfg = RevealConfig(reply_cache=False)
    pairs = synth_pairs(a.videos, a.seconds, cfg)
    if a.limit: pairs = pairs[:a.limit]
    llm, pool = make_llm(cfg), pool_for(cfg)
    chance = float(np.mean([1 / len(p["options"]) for p in pairs]))
    t0 = time.time()
    sel = [parse_selection(r, pool)[0] for r in llm.chat_batch([select_request(p["question"], p["options"], pool, cfg) for p in pairs], strict=False)]
    picked = {}
    for names in sel:
        for n in names: picked[n] = picked.get(n, 0) + 1
    print(f"\n{len(pairs)} reveal-synth pairs from {a.videos} simulated {a.seconds:.0f}-s videos; types "
          f"{dict(sorted({t: sum(p['type'] == t for p in pairs) for t in {p['type'] for p in pairs}}.items()))}")
    print(f"backbone {llm.model_name} ({llm.name}); call 1 selected (criterion: questions): {dict(sorted(picked.items(), key=lambda x: -x[1]))} [{time.time() - t0:.0f} s]\n")
    print("| verifier reading | AUROC rho (E+ vs E-) | mean rho E+ | mean rho E- | sufficient E+ | sufficient E- | seconds |")
    print("|---|---|---|---|---|---|---|")
    for reading in a.readings.split(","):
        c, t0, rho = with_overrides(cfg, {"verifier_reading": reading}), time.time(), {}
        for side in ("positive", "negative"):
            jobs = [dict(question=p["question"], options=p["options"], criteria=s, evidence=p[side]) for p, s in zip(pairs, sel)]
            rho[side] = np.array([v["rho"] for v in verify_batch(llm, jobs, pool, c)])
        print(f"| {reading} | {auroc(rho['positive'], rho['negative']):.3f} | {rho['positive'].mean():.3f} | {rho['negative'].mean():.3f} | "
              f"{(rho['positive'] >= cfg.tau).mean():.2f} | {(rho['negative'] >= cfg.tau).mean():.2f} | {time.time() - t0:.0f} |")
    print(f"\n| answer reading | accuracy with E+ | with E- | with no evidence | seconds |  (chance {chance:.3f}, n = {len(pairs)})")
    print("|---|---|---|---|---|")
    for reading in a.answer_readings.split(","):
        c, t0 = with_overrides(cfg, {"answer_reading": reading}), time.time()
        accs = [answer_accuracy(llm, pairs, side, c) for side in ("positive", "negative", None)]
        print(f"| {reading} | {accs[0]:.3f} | {accs[1]:.3f} | {accs[2]:.3f} | {time.time() - t0:.0f} |")


if __name__ == "__main__":
    sys.exit(main())
