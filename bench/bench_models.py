"""Model benchmarks for the default CPU backends: prints a Markdown table.

    make bench            # or: .venv/bin/python bench/bench_models.py [--repeats 3] [--new-tokens 64]

Measures: bundled-model load time (cold = dequantize the GGUF into an empty cache; cached = reload the
safetensors copy), generation throughput single and batched (batch 8), the cost of JSON-schema
(xgrammar-constrained) decoding against free generation, continuation scoring (prompt run once vs a
full pass per candidate), and text-embedding throughput.
Numbers depend on the machine and on what else runs on it; run it on an idle machine. Runs that are
compared (free vs schema, fast vs naive scoring) alternate, so background load hits both alike.
"""
import argparse, os, statistics, sys, tempfile, time
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from reveal_nb.config import RevealConfig, with_overrides
from reveal_nb.backends.models import ChatRequest, ScoreRequest
from reveal_nb.backends.transformers_backend import TransformersBackend
from reveal_nb.backends.model_folders import resolve_model_path
from reveal_nb.backends.encoders import TextEncoder

TOPICS = ["a kitchen", "a garden", "a railway station", "a library", "a market", "a beach", "a workshop", "a museum"]
FREE = "Describe {} in detail, as a long paragraph."
SCHEMA = {"type": "object", "additionalProperties": False, "required": ["events"],
          "properties": {"events": {"type": "array", "minItems": 1, "maxItems": 8,
                                    "items": {"type": "string", "maxLength": 80}}}}
STRUCTURED = "List the things that happen in {}, as JSON: {{\"events\": [...]}}."


def timed(fn, repeats):
    "Median wall time of `fn()` over `repeats` runs, and the last result."
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter(); out = fn(); times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def tokens_per_second(llm, prompts, schema, new_tokens, repeats):
    reqs = [ChatRequest([{"role": "user", "content": p}], "other", schema, max_new_tokens=new_tokens) for p in prompts]
    dt, res = timed(lambda: llm.chat_batch(reqs), repeats)
    toks = sum(r.completion_tokens for r in res)
    return toks / dt, toks / len(res), dt


def interleaved(fns, repeats):
    "Run each of `fns` once per repeat, alternating; per fn: median time and last result."
    times, outs = [[] for _ in fns], [None] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter(); outs[i] = fn(); times[i].append(time.perf_counter() - t0)
    return [(statistics.median(t), o) for t, o in zip(times, outs)]


def naive_score(llm, req):
    "Reference: one full forward pass over prompt + candidate per candidate."
    import torch
    p, out = llm._prompt_ids(req.messages), []
    for c in req.continuations:
        ids = llm.tokenizer(c, add_special_tokens=False)["input_ids"]
        with torch.inference_mode(): lp = llm.model(input_ids=torch.tensor([p + ids])).logits[0].float().log_softmax(-1)
        out.append(sum(lp[len(p) - 1 + k, t].item() for k, t in enumerate(ids)))
    return out


class LengthOnly:
    "Stands in for the grammar processor in a free run: no mask, each row stops at a given length (end-of-turn barred)."
    def __init__(self, lengths, eos):
        self.lengths, self.eos, self.n = lengths, sorted(eos), [0] * len(lengths)
    def done(self, row): return self.n[row] >= self.lengths[row]
    def accept(self, rows, tokens):
        for r in rows: self.n[r] += 1
    def mask(self, scores, rows):
        scores[:, self.eos] = float("-inf")
        return scores


def same_shape_free(llm, reqs, lengths):
    "The structured batch through the backend's own path (padding, shared prefix), each row running exactly its JSON reply's length, no mask."
    from reveal_nb.backends import models
    real, eos = models.GrammarLogitsProcessor, [e for e in llm._eos_ids() if e is not None]
    models.GrammarLogitsProcessor = lambda grammars, pad_id: LengthOnly(lengths, eos)
    try: return llm._generate_group(reqs, True, reqs[0].max_new_tokens, 0.0, llm.cfg.seed)
    finally: models.GrammarLogitsProcessor = real


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--sentences", type=int, default=1000)
    a = ap.parse_args(argv)
    rows = []

    with tempfile.TemporaryDirectory() as d:
        cold_cfg = with_overrides(RevealConfig(reply_cache=False), {"cache_dir": d})
        t0 = time.perf_counter(); path = resolve_model_path(cold_cfg.llm_model, cold_cfg); cold = time.perf_counter() - t0
        t0 = time.perf_counter(); TransformersBackend(cold_cfg); first_backend = time.perf_counter() - t0
    rows.append(("load", "dequantize GGUF into an empty cache", f"{cold:.1f} s"))
    cfg = RevealConfig(reply_cache=False)
    resolve_model_path(cfg.llm_model, cfg)
    load_t, llm = timed(lambda: TransformersBackend(cfg), a.repeats)
    rows.append(("load", "backend from the cached safetensors copy (incl. GGUF hash check)", f"{load_t:.2f} s"))
    rows.append(("load", "model weights alone from the cached copy", f"{llm.load_seconds:.2f} s"))

    n = a.new_tokens
    for label, prompts in (("single", TOPICS[:1]), ("batch 8", TOPICS)):
        tps, per, dt = tokens_per_second(llm, [FREE.format(t) for t in prompts], None, n, a.repeats)
        rows.append(("generate", f"free text, {label} (≤{n} new tokens each)", f"{tps:.1f} tok/s ({per:.0f} tok/req, {dt:.2f} s)"))
    no_retry = with_overrides(cfg, {"structured_retries": 0})
    def first_attempt(reqs):
        llm.cfg = no_retry
        try: return llm.chat_batch(reqs, strict=False)
        finally: llm.cfg = cfg
    for label, prompts in (("single", TOPICS[:1]), ("batch 8", TOPICS)):
        free, schema = ([ChatRequest([{"role": "user", "content": STRUCTURED.format(t)}], "other", sch, max_new_tokens=n) for t in prompts]
                        for sch in (None, SCHEMA))
        runs = interleaved([lambda: llm.chat_batch(free), lambda: llm.chat_batch(schema), lambda: first_attempt(schema)], a.repeats)
        (free_tps, _), (tps, sres), (tps1, res1) = [(sum(r.completion_tokens for r in res) / dt, res) for dt, res in runs]
        per, retries = sum(r.completion_tokens for r in sres) / len(sres), sum(r.attempts - 1 for r in sres)
        rows.append(("structured", f"JSON schema (xgrammar), {label}", f"{tps:.1f} tok/s ({per:.0f} tok/req incl. {retries} retries, {runs[1][0]:.2f} s)"))
        rows.append(("structured", f"same prompts without the schema, {label}", f"{free_tps:.1f} tok/s; schema costs {100 * (free_tps / tps - 1):+.0f}% per token"))
        rows.append(("structured", f"JSON schema, first attempt only (no retries), {label}",
                     f"{tps1:.1f} tok/s ({sum(not r.ok for r in res1)} cut off by the cap); {100 * (free_tps / tps1 - 1):+.0f}% per token"))
        lengths = [r.completion_tokens for r in sres]
        if all(r.attempts == 1 for r in sres):    # a retry restarts from the prompt, which one pass of our loop cannot mirror
            (shape_t, shape_raws), (schema_t, _) = interleaved([lambda: same_shape_free(llm, schema, lengths), lambda: llm.chat_batch(schema)], a.repeats)
            assert [r.completion_tokens for r in shape_raws] == lengths, ([r.completion_tokens for r in shape_raws], lengths)
            rows.append(("structured", f"free text of the same lengths (each row runs exactly as long as its JSON reply), {label}",
                         f"{sum(lengths) / shape_t:.1f} tok/s vs {sum(lengths) / schema_t:.1f} with the schema: the grammar costs "
                         f"{100 * (schema_t / shape_t - 1):+.0f}% per token; the rest of the gap is the replies' lengths"))

    evidence = " ".join(f"At minute {i} the person in {TOPICS[i % 8]} picks up object number {i} and moves it to the left shelf." for i in range(40))
    options = ["They moved the objects to the left shelf.", "They painted the wall.", "Nothing happened.", "They left the building."]
    sreq = ScoreRequest([{"role": "user", "content": evidence + "\nWhat did the person do?"}], options, "answerer")
    (fast_t, [res]), (naive_t, ref) = interleaved([lambda: llm.score_batch([sreq]), lambda: naive_score(llm, sreq)], a.repeats)
    diff = max(abs(x - y) for x, y in zip(res.logprobs, ref))
    rows.append(("score", f"{len(options)} candidates after a {res.prompt_tokens}-token prompt: prompt once + candidates on its cache / "
                          "full pass per candidate", f"{fast_t:.2f} s / {naive_t:.2f} s (max difference {diff:.1e})"))

    enc = TextEncoder()
    sentences = [f"At minute {i % 60} the person in {TOPICS[i % 8]} picks up object number {i} and moves it to the left shelf."
                 for i in range(a.sentences)]
    enc.encode(sentences[:64])
    dt, E = timed(lambda: enc.encode(sentences), a.repeats)
    rows.append(("embed", f"all-MiniLM-L6-v2, {a.sentences} sentences, batch {enc.batch_size}", f"{len(sentences) / dt:.0f} sentences/s ({E.shape[1]}-d)"))

    import torch
    print(f"\ntorch {torch.__version__}, {torch.get_num_threads()} threads, model {path.name}\n")
    print("| stage | what | result |\n|---|---|---|")
    for r in rows: print(f"| {r[0]} | {r[1]} | {r[2]} |")


if __name__ == "__main__":
    main()
