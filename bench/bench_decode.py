"""Where a decoding step of the bundled model goes on this CPU: prints a Markdown table.

    .venv/bin/python bench/bench_decode.py [--steps 30]

For the bundled SmolLM2-135M (fp32 after dequantizing the GGUF) it measures one prefill and the mean
time of a decoding step, by prompt length and rows per batch, with two torch threads and with one, and
for two weight formats the in-process backend could use instead of fp32 (bfloat16; int8 dynamic
quantization of the linear layers). For each alternative it prints whether the greedy tokens and the
next-token log-probabilities stay those of fp32. Every configuration runs in its own process, so the
thread count and the weights are set before torch starts. Run it on an idle machine.
"""
import argparse, json, os, subprocess, sys

CHILD = r'''
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import torch
from reveal_nb.config import RevealConfig
from reveal_nb.backends.transformers_backend import TransformersBackend
weights, steps = sys.argv[1], int(sys.argv[2])
llm = TransformersBackend(RevealConfig(reply_cache=False))
if weights == "bf16": llm.model = llm.model.to(torch.bfloat16)
if weights == "int8": llm.model = torch.ao.quantization.quantize_dynamic(llm.model, {torch.nn.Linear}, dtype=torch.qint8)
llm.model.generation_config.eos_token_id = [-1]          # never stop early: every row decodes `steps` tokens
text = "Describe what a careful cook does in the kitchen before breakfast, step by step. "
out = []
for words, rows in ((1, 1), (1, 4), (12, 1), (12, 4)):
    prompt = llm._prompt_ids([{"role": "user", "content": text * words}])
    enc = dict(input_ids=torch.tensor([prompt] * rows), attention_mask=torch.ones(rows, len(prompt), dtype=torch.long))
    with torch.inference_mode():
        llm._decode(enc, 2, 0.0)                           # warm-up
        t0 = time.perf_counter(); llm._decode(enc, 1, 0.0); prefill = time.perf_counter() - t0
        t0 = time.perf_counter(); toks = llm._decode(enc, steps + 1, 0.0); total = time.perf_counter() - t0
        logp = llm.model(input_ids=torch.tensor([prompt])).logits[0, -1].float().log_softmax(-1)
    out.append(dict(prompt_tokens=len(prompt), rows=rows, prefill_s=prefill, step_ms=(total - prefill) / steps * 1000,
                    tokens=toks[0], logp=logp.tolist()))
print("RESULT" + json.dumps(out))
'''


def run(weights, threads, steps):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    res = subprocess.run([sys.executable, "-c", CHILD, weights, str(steps)], capture_output=True, text=True, env=env)
    if res.returncode: sys.exit(f"{weights}/{threads} threads failed:\n{res.stderr[-3000:]}")
    return json.loads(next(l for l in res.stdout.splitlines() if l.startswith("RESULT"))[6:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=30, help="decoding steps timed per configuration")
    a = ap.parse_args()
    ref = run("fp32", 2, a.steps)
    rows = [("fp32", 2, ref), ("fp32", 1, run("fp32", 1, a.steps)), ("bf16", 2, run("bf16", 2, a.steps)), ("int8", 2, run("int8", 2, a.steps))]
    print("| weights | threads | prompt tokens | rows | prefill s | ms per decoding step | greedy tokens as fp32 | max abs Δ log-prob (top 20) |")
    print("|---|---|---|---|---|---|---|---|")
    for weights, threads, res in rows:
        for r, base in zip(res, ref):
            top = sorted(range(len(base["logp"])), key=lambda i: -base["logp"][i])[:20]
            delta = max(abs(r["logp"][i] - base["logp"][i]) for i in top)
            print(f"| {weights} | {threads} | {r['prompt_tokens']} | {r['rows']} | {r['prefill_s']:.2f} | {r['step_ms']:.1f} | "
                  f"{'yes' if r['tokens'] == base['tokens'] else 'no'} | {delta:.3f} |")


if __name__ == "__main__":
    main()
