"""The vLLM paths, for real: `vllm serve` driven through `OpenAIBackend`, and `vllm.LLM` in-process.

Run with `make test-vllm` (its own environment with vLLM's CPU build). Nothing here is mocked.
"""
import json, os, subprocess, sys, time
from pathlib import Path
import pytest
from reveal_nb.config import RevealConfig, with_overrides
from reveal_nb.backends.models import ChatRequest
from reveal_nb.backends.served import OpenAIBackend

QUERIES = {"type": "object", "additionalProperties": False, "required": ["queries"],
           "properties": {"queries": {"type": "array", "minItems": 2, "maxItems": 4, "items": {"type": "string", "maxLength": 60}}}}


def test_openai_backend_against_vllm_serve(vllm_server):
    llm = OpenAIBackend(with_overrides(RevealConfig(), {"llm_backend": "openai", "llm_base_url": vllm_server, "reply_cache": False}))
    free = llm.chat("What is the capital of France? Answer in one word.", role="answerer", max_new_tokens=16)
    assert "paris" in free.text.lower()
    assert free.prompt_tokens > 10 and 0 < free.completion_tokens <= 16
    reqs = [ChatRequest([{"role": "user", "content": f"Write search queries to find: {q}. Reply as JSON."}], "planner", QUERIES,
                        max_new_tokens=150) for q in ("where the cup is", "who opened the door", "the colour of the car")]
    results = llm.chat_batch(reqs)
    for r in results:
        assert r.ok and 2 <= len(r.parsed["queries"]) <= 4 and all(len(q) <= 60 for q in r.parsed["queries"])
    totals = llm.ledger.totals()
    assert totals["planner"]["calls"] == 3 and totals["answerer"]["calls"] == 1
    assert totals["planner"]["completion_tokens"] > 0


def test_vllm_inprocess_backend(model_dir, tmp_path):
    "vllm.LLM starts worker processes, so it is built in a script with a __main__ guard, run as a subprocess."
    script = Path(__file__).with_name("inprocess_check.py")
    out = tmp_path / "result.json"
    res = subprocess.run([sys.executable, str(script), str(out)], capture_output=True, text=True, timeout=1200,
                         env=dict(os.environ, VLLM_CPU_KVCACHE_SPACE="1"))
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-5000:]
    got = json.loads(out.read_text())
    assert "paris" in got["free"]["text"].lower() and got["free"]["completion_tokens"] > 0
    assert 2 <= len(got["structured"]["parsed"]["queries"]) <= 4
    assert got["totals"]["planner"]["calls"] == 1
    print(f"\nvllm.LLM load {got['load_seconds']:.1f}s")
