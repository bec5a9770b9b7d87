"""Questions per hour of `evaluate` on the default (reveal-synth, bundled models, full REVEAL): this process
against a local Ray instance with N workers (one model and `--threads` torch threads each). Memories are
built first, so only the loop is timed. Prints a table.

    python bench/bench_eval.py --size tiny --workers 2
"""
import argparse, os, tempfile, time
from pathlib import Path
os.environ.setdefault("HF_HUB_OFFLINE", "1")
from reveal_nb.config import RevealConfig, with_overrides
from reveal_nb.synth.dataset import generate
from reveal_nb.data.benchmarks import load_reveal_synth
from reveal_nb.runs.evaluate import evaluate, ray_executor
from reveal_nb.backends.roles import make_llm
from reveal_nb.backends.encoders import make_text_encoder
from reveal_nb.runs.traces import unit_memory

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--size", default="tiny"); ap.add_argument("--workers", type=int, default=2); ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--question-batch", type=int, default=1, help="questions per unit (small units give the workers something to share)")
a = ap.parse_args()
work = Path(tempfile.mkdtemp())
generate(work / a.size, a.size, progress=False)
items = load_reveal_synth(work / a.size, "dev") + load_reveal_synth(work / a.size, "test")
cfg = with_overrides(RevealConfig(reply_cache=False), {"question_batch": a.question_batch})
llm, enc = make_llm(cfg), make_text_encoder(cfg)
for it in items: unit_memory(it, cfg, llm, enc)   # memories built (or loaded) before timing
rows = []
t = time.time(); s = evaluate(items, cfg, work / "local", llm=llm, enc=enc, progress=False); rows.append(("this process", time.time() - t, s))
t = time.time(); s = evaluate(items, cfg, work / "ray", executor=ray_executor(workers=a.workers, threads=a.threads), progress=False)
rows.append((f"Ray, {a.workers} workers x {a.threads} thread(s)", time.time() - t, s))
print(f"reveal-synth {a.size} dev+test, n = {len(items)}, backbone SmolLM2-135M, variant reveal, question_batch {a.question_batch}")
print(f"| executor | wall s | questions/hour | accuracy |\n|---|---|---|---|")
for name, sec, s in rows: print(f"| {name} | {sec:.0f} | {3600 * len(items) / sec:.0f} | {s['official']['accuracy']:.3f} |")
