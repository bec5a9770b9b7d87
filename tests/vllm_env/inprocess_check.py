"""Build `VLLMBackend` (in-process vllm.LLM) on the bundled model, make a free and a structured call,
and write what came back to the JSON file named on the command line. Used by test_vllm_backends.py."""
import json, sys
from dataclasses import asdict

if __name__ == "__main__":  # vLLM starts worker processes: the guard is required
    from reveal_nb.config import RevealConfig, with_overrides
    from reveal_nb.backends.served import VLLMBackend
    from test_vllm_backends import QUERIES
    cfg = with_overrides(RevealConfig(), {"llm_backend": "vllm", "vllm_gpu_memory_utilization": 0.3, "vllm_max_model_len": 2048, "reply_cache": False})
    # Without torch.compile: on 2 CPU cores compiling took about 260 s of this engine's 290-s start (eager: about 30 s).
    # float32: vLLM's CPU default (bfloat16) has no bf16 arithmetic on an AVX2-only CPU such as this one.
    llm = VLLMBackend(cfg, enforce_eager=True, dtype="float32")
    free = llm.chat("What is the capital of France? Answer in one word.", role="answerer", max_new_tokens=16)
    structured = llm.chat("Write search queries to find where the red cup is. Reply as JSON.", role="planner",
                          schema=QUERIES, max_new_tokens=150)
    with open(sys.argv[1], "w") as fh:
        json.dump(dict(free=asdict(free), structured=asdict(structured), totals=llm.ledger.totals(),
                       load_seconds=llm.load_seconds), fh)
