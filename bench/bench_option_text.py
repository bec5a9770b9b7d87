"""Seconds per scoring call of the option-text reading, by chat model: prints a Markdown table.

    .venv/bin/python bench/bench_option_text.py [--models SPEC,SPEC] [--per-type 1] [--threads 1]

The option-text reading (chapter 03b, `read_options`) makes two scoring calls per question: the options'
texts after the question alone (the prior) and after the evidence and the question. Here the evidence is
the ground truth's E+ ∪ E− text of reveal-synth `small` test questions (seed 0), as a loop's final cache
holds decisive lines among misleading ones. The models take turns question by question, so background
load hits them alike. Also prints how often each model's per-token gain picks the right option under E+
(without the encoder's match that the project's answerer adds).
"""
import argparse, os, statistics, time
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np
from reveal_nb.config import RevealConfig, with_overrides
from reveal_nb.method.readings import per_token, plain_request
from reveal_nb.studies.reading_study import study_questions
from reveal_nb.backends.transformers_backend import TransformersBackend

MODELS = "bundled:smollm2-135m-instruct,bundled:qwen2.5-coder-0.5b-instruct"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=MODELS)
    ap.add_argument("--per-type", type=int, default=1, help="questions of each of the eight types")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args(argv)
    import torch
    torch.set_num_threads(a.threads)
    questions = study_questions("test", per_type=a.per_type, seeds=(0,), size="small")
    llms = {}
    for spec in a.models.split(","):
        t0 = time.perf_counter()
        llms[spec] = TransformersBackend(with_overrides(RevealConfig(), {"llm_model": spec, "reply_cache": False}))
        llms[spec].loaded_in = time.perf_counter() - t0
    rows = {spec: dict(prior=[], evidence=[], tokens=[], right=0) for spec in llms}
    for q in questions:
        letters = list(q["options"])
        for spec, llm in llms.items():
            prior, shown = llm.score_batch([plain_request(q["question"], q["options"], ""),
                                            plain_request(q["question"], q["options"], q["evidence"]["U"])])
            o, = llm.score_batch([plain_request(q["question"], q["options"], q["evidence"]["O"])])
            r = rows[spec]
            r["prior"].append(prior.latency_s); r["evidence"].append(shown.latency_s)
            r["tokens"].append(shown.prompt_tokens)
            r["right"] += letters[int(np.argmax(per_token(o) - per_token(prior)))] == q["answer"]
    print(f"\n{len(questions)} reveal-synth small test questions (seed 0, {a.per_type} per type), "
          f"torch {torch.__version__}, {torch.get_num_threads()} thread(s)\n")
    print("| model | parameters | load s | s per call, question alone | s per call, with E+ ∪ E− "
          "(mean prompt tokens) | s per question (2 calls) | gain picks right under E+ |")
    print("|---|---|---|---|---|---|---|")
    for spec, r in rows.items():
        llm = llms[spec]
        n = sum(p.numel() for p in llm.model.parameters())
        p, e = statistics.mean(r["prior"]), statistics.mean(r["evidence"])
        print(f"| {spec} | {n / 1e6:.0f} M | {llm.loaded_in:.1f} | {p:.2f} | {e:.2f} "
              f"({statistics.mean(r['tokens']):.0f}) | {p + e:.2f} | {r['right']}/{len(questions)} |")


if __name__ == "__main__":
    main()
