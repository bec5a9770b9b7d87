"""Speed of the REVEAL loop on the bundled model: prints a Markdown table.

    .venv/bin/python bench/bench_loop.py [--size mini] [--limit 18] [--variant reveal] [--set KEY=VALUE ...]

Runs the same reveal-synth test questions twice with the same memories (built first, not timed): once
with every loop step batched over all open questions (question_batch = all), once strictly one question
at a time (question_batch = 1). Reports questions per hour, LLM calls and rounds per question, and the
generation throughput of the loop's calls next to the backend's raw batch-8 generation.

For the in-process transformers backend it also splits the model's time into multi-token passes
(prompts, and the scored continuations of the likelihood readings) and one-token decoding steps, by
rows per step. Batching can only make decoding steps cheaper per row; a multi-token pass already keeps
the cores busy with one row. So "sequential seconds / batched multi-token seconds" bounds the speed-up
any batched schedule of these same passes can reach on this machine, even if decoding cost nothing.
Run it on an idle machine: another process using the cores changes every number.
"""
import argparse, collections, os, sys, tempfile, time
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
from reveal_nb.config import RevealConfig, with_overrides
from reveal_nb.backends.models import ChatRequest, usage_totals
from reveal_nb.backends.roles import make_llm
from reveal_nb.backends.encoders import make_text_encoder
from reveal_nb.synth.dataset import generate
from reveal_nb.data.benchmarks import load_reveal_synth
from reveal_nb.memory.build import build_memory
from reveal_nb.method.loop import memory_config
from reveal_nb.runs.traces import run_variant, summarize


def raw_batch8(llm, new_tokens=64):
    reqs = [ChatRequest([{"role": "user", "content": f"Describe {t} in detail."}], "other", max_new_tokens=new_tokens)
            for t in ("a kitchen", "a garden", "a station", "a library", "a market", "a beach", "a workshop", "a museum")]
    t0 = time.perf_counter(); res = llm.chat_batch(reqs); dt = time.perf_counter() - t0
    return sum(r.completion_tokens for r in res) / dt


class PassTimer:
    "Wall time of the model's forward passes, by kind: multi-token passes, and one-token steps by rows."
    def __init__(self, model):
        self.seconds, self.tokens, self.passes = collections.Counter(), collections.Counter(), collections.Counter()
        model.register_forward_pre_hook(self._start, with_kwargs=True)
        model.register_forward_hook(self._stop, with_kwargs=True)

    def _start(self, module, args, kwargs): self._t0 = time.perf_counter()

    def _stop(self, module, args, kwargs, out):
        ids = kwargs.get("input_ids", args[0] if args else None)
        rows, n = ids.shape
        kind = "multi-token passes" if n > 1 else f"decoding steps, {'1 row' if rows == 1 else '2-4 rows' if rows <= 4 else '5-8 rows' if rows <= 8 else '9+ rows'}"
        self.seconds[kind] += time.perf_counter() - self._t0; self.tokens[kind] += rows * n; self.passes[kind] += 1

    def take(self):
        out = dict(seconds=dict(self.seconds), tokens=dict(self.tokens), passes=dict(self.passes))
        self.seconds.clear(); self.tokens.clear(); self.passes.clear()
        return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="mini"); ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--variant", default="reveal"); ap.add_argument("--data", default="data/reveal-synth-mini")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE", help="override a config field (e.g. llm_batch_size=16)")
    a = ap.parse_args(argv)
    cfg = with_overrides(with_overrides(RevealConfig(reply_cache=False), {"variant": a.variant}), a.sets, source="--set")
    generate(a.data, a.size, cfg, progress=False)
    items = load_reveal_synth(a.data, "test")
    items = items[:a.limit] if a.limit else items
    llm, enc = make_llm(cfg), make_text_encoder(cfg)
    for it in items: build_memory(it.video_path, memory_config(cfg), captions=it.captions_path, subtitles=it.subtitles_path, llm=llm, text_encoder=enc, progress=False)
    raw = raw_batch8(llm)
    timer = PassTimer(llm.model) if hasattr(getattr(llm, "model", None), "register_forward_hook") else None
    rows, passes = [], []
    for label, qb in (("batched (all open questions per step)", len(items)), ("sequential (one question at a time)", 1)):
        c = with_overrides(cfg, {"question_batch": qb})
        if timer: timer.take()
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter(); traces = run_variant(items, c, d, llm=llm, enc=enc, progress=False); dt = time.perf_counter() - t0
        s, u = summarize(traces), usage_totals([x for t in traces for x in t["calls"]])
        gen = sum(v["completion_tokens"] for v in u.values())
        rows.append((label, len(items) / dt * 3600, dt, sum(s["calls_per_question"].values()), s["mean_rounds"], gen / dt, s["accuracy"]))
        if timer: passes.append(timer.take())
    import torch
    print(f"\n{len(items)} reveal-synth {a.size} test questions, variant {a.variant}, {llm.model_name} ({cfg.llm_backend}), "
          f"torch {torch.get_num_threads()} threads, llm_batch_size {cfg.llm_batch_size}; raw batch-8 generation {raw:.1f} tok/s\n")
    print("| loop | questions/hour | seconds | LLM calls/question | rounds/question | generated tok/s (loop) | accuracy |")
    print("|---|---|---|---|---|---|---|")
    for r in rows: print(f"| {r[0]} | {r[1]:.0f} | {r[2]:.0f} | {r[3]:.2f} | {r[4]:.2f} | {r[5]:.1f} | {r[6]:.3f} |")
    print(f"\nbatched / sequential: {rows[0][1] / rows[1][1]:.2f}x questions per hour")
    if not timer: return
    print("\n| where the model's time went | batched: seconds (passes, tokens) | sequential: seconds (passes, tokens) |\n|---|---|---|")
    kinds = sorted(set(passes[0]["seconds"]) | set(passes[1]["seconds"]))
    for k in kinds:
        cell = lambda p: f"{p['seconds'].get(k, 0):.1f} ({p['passes'].get(k, 0)}, {p['tokens'].get(k, 0)})"
        print(f"| {k} | {cell(passes[0])} | {cell(passes[1])} |")
    multi = passes[0]["seconds"].get("multi-token passes", 0.0)
    print(f"\nmulti-token passes: {passes[1]['seconds'].get('multi-token passes', 0) / rows[1][2]:.0%} of the sequential run's wall time; "
          f"bound on batched / sequential with these passes and free decoding: {rows[1][2] / multi:.2f}x" if multi else "")


if __name__ == "__main__":
    sys.exit(main())
