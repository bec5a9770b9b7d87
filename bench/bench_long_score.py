"""Likelihood scoring after a long prompt on the bundled model: prints a Markdown table.

    .venv/bin/python bench/bench_long_score.py [--lines 150] [--repeats 3] [--threads 1] [--model SPEC]

A verifier-like pattern: the same long evidence, then one of three questions; four candidates each.
Measures the first request (the whole prompt runs), a following request that shares the evidence (only
the question runs, on the previous prompt's cache), and, once, the reference computation for the first
request (one full pass over prompt + candidate per candidate, no cache) with the largest difference
between its scores and the fast ones.
"""
import argparse, os, statistics, time
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from reveal_nb.config import RevealConfig, with_overrides
from reveal_nb.backends.models import ScoreRequest
from reveal_nb.backends.transformers_backend import TransformersBackend

ROOMS = ["the kitchen", "the garden", "the hall", "the workshop", "the garage", "the library"]
QUESTIONS = ["Where did the man put the red cup?", "What did the man do after breakfast?", "Who opened the door?"]
OPTIONS = ["On the top shelf of the kitchen.", "In the garden, under the bench.", "He gave it to his sister.",
           "Nobody touched it."]


def naive_score(llm, req):
    "Reference: one full forward pass over prompt + candidate per candidate, no cache."
    import torch
    p, out = llm._prompt_ids(req.messages), []
    for c in req.continuations:
        ids = llm.tokenizer(c, add_special_tokens=False)["input_ids"]
        with torch.inference_mode():
            lp = llm.model(input_ids=torch.tensor([p + ids]), use_cache=False).logits[0].float().log_softmax(-1)
        out.append(sum(lp[len(p) - 1 + k, t].item() for k, t in enumerate(ids)))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=118, help="evidence lines (118 make about 3,000 tokens)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--model", default=None, help="llm_model spec (default: the bundled model)")
    a = ap.parse_args(argv)
    import torch
    torch.set_num_threads(a.threads)
    cfg = RevealConfig(reply_cache=False)
    if a.model: cfg = with_overrides(cfg, {"llm_model": a.model})
    llm = TransformersBackend(cfg)
    evidence = "\n".join(f"[{i // 60:02d}:{i % 60:02d}] The man walks into {ROOMS[i % 6]} and moves object {i} "
                         f"to shelf {i % 4}." for i in range(a.lines))
    reqs = [ScoreRequest([{"role": "system", "content": "Answer from the evidence."},
                          {"role": "user", "content": f"{evidence}\nQuestion: {q}"}], OPTIONS, "verifier") for q in QUESTIONS]
    times = {"first": [], "next": []}
    for _ in range(a.repeats):
        res = llm.score_batch(reqs)
        times["first"].append(res[0].latency_s); times["next"].append(sum(r.latency_s for r in res[1:]) / (len(res) - 1))
    med = {k: statistics.median(v) for k, v in times.items()}
    t0 = time.perf_counter(); ref = naive_score(llm, reqs[0]); med["naive"] = time.perf_counter() - t0
    diff = max(abs(x - y) for x, y in zip(res[0].logprobs, ref))
    print(f"\ntorch {torch.__version__}, {torch.get_num_threads()} threads, model {llm.path.name}, "
          f"{res[0].prompt_tokens}-token prompt, {len(OPTIONS)} candidates of {min(res[0].n_tokens)}–"
          f"{max(res[0].n_tokens)} tokens, median of {a.repeats}\n")
    print("| request | seconds |\n|---|---|")
    print(f"| first (whole prompt runs once, candidates on its cache) | {med['first']:.2f} |")
    print(f"| next, same evidence (the shared start comes from the previous prompt's cache) | {med['next']:.2f} |")
    print(f"| reference for the first request: a full pass over prompt + candidate per candidate | {med['naive']:.2f} |")
    print(f"| largest difference, first request, fast vs reference (log-probability) | {diff:.1e} |")


if __name__ == "__main__":
    main()
