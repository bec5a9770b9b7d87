"""How to share the two cores between model processes: prints a Markdown table.

    .venv/bin/python bench/bench_threads.py [--repeats 1] [--with-spinning]

One unit of work is what the loop mostly does with the bundled model: a batch of 8 structured (JSON-schema)
generations on ~700-token prompts, twice, then 8 likelihood scorings. It runs as one process alone, then as
two processes at once with 1 thread each (what `make test` does with its two pytest workers), then two at once
with 2 threads each and OpenMP's passive waiting. `--with-spinning` adds two processes with 2 threads each and
OpenMP's default (spinning) wait policy, the oversubscribed case; it takes about ten minutes.
Each process times its own unit; "throughput" is units per minute of wall time for the whole configuration.
The machine's speed drifts between runs; configurations alternate when `--repeats` > 1.
"""
import argparse, json, os, subprocess, sys, tempfile, time

WORKER = r'''
import json, os, sys, time
import torch
torch.set_num_threads(int(sys.argv[1]))
from reveal_nb.config import RevealConfig
from reveal_nb.backends.models import ChatRequest, ScoreRequest
from reveal_nb.backends.transformers_backend import TransformersBackend
llm = TransformersBackend(RevealConfig(reply_cache=False))
evidence = " ".join(f"At {i * 10}s a person in a red coat walks past the kitchen counter holding a cup." for i in range(40))
schema = {"type": "object", "additionalProperties": False, "required": ["queries"],
          "properties": {"queries": {"type": "array", "minItems": 1, "maxItems": 4, "items": {"type": "string", "maxLength": 60}}}}
chats = [ChatRequest([{"role": "user", "content": evidence + f" Question {k}: what did the person hold? Give search queries as JSON."}],
                     "planner", schema, max_new_tokens=48) for k in range(8)]
scores = [ScoreRequest([{"role": "user", "content": evidence + f" Q{k}: what did the person hold?"}], [" a cup", " a book", " a phone", " a bag"])
          for k in range(8)]
t0 = time.perf_counter()
for _ in range(2): llm.chat_batch(chats, strict=False)
t1 = time.perf_counter()
llm.score_batch(scores)
print(json.dumps(dict(generate_s=t1 - t0, score_s=time.perf_counter() - t1)))
'''


def run_config(procs: int, threads: int, wait_policy: str | None) -> dict:
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
               OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    if wait_policy: env["OMP_WAIT_POLICY"] = wait_policy
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh: fh.write(WORKER)
    t0 = time.perf_counter()
    ps = [subprocess.Popen([sys.executable, fh.name, str(threads)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
          for _ in range(procs)]
    outs = [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in ps]
    wall = time.perf_counter() - t0
    os.unlink(fh.name)
    per = [o["generate_s"] + o["score_s"] for o in outs]
    return dict(wall=wall, per_process=per, throughput=procs / wall * 60)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--with-spinning", action="store_true", help="also run the oversubscribed case (about ten minutes)")
    a = ap.parse_args()
    configs = [("1 process, 2 threads", 1, 2, None), ("2 processes, 1 thread each", 2, 1, None),
               ("2 processes, 2 threads each, OMP_WAIT_POLICY=PASSIVE", 2, 2, "PASSIVE")]
    if a.with_spinning: configs.append(("2 processes, 2 threads each, spinning (default)", 2, 2, None))
    rows = {c[0]: [] for c in configs}
    for _ in range(a.repeats):
        for name, procs, threads, policy in configs:
            rows[name].append(run_config(procs, threads, policy))
            print(f"  {name}: {rows[name][-1]['wall']:.1f} s", file=sys.stderr, flush=True)
    print(f"\n{os.cpu_count()} cores; one unit = 2 x 8 structured generations + 8 scorings (SmolLM2-135M, fp32)\n")
    print("| configuration | seconds per unit, each process | wall seconds | units per minute |")
    print("|---|---|---|---|")
    for name, runs in rows.items():
        per = " / ".join(f"{s:.1f}" for r in runs for s in r["per_process"])
        wall = " / ".join(f"{r['wall']:.1f}" for r in runs)
        rate = " / ".join(f"{r['throughput']:.2f}" for r in runs)
        print(f"| {name} | {per} | {wall} | {rate} |")


if __name__ == "__main__":
    main()
