"""The REVEAL loop end to end through the OpenAI-compatible backend, against the real `vllm serve` of this suite.

The loop itself runs in the main environment (its memory needs decord, FAISS and sentence-transformers,
which the vLLM environment does not carry); every chat call of it goes over HTTP to the vLLM server.
The client process gets one torch thread so that it never competes with the server for the two cores.
"""
import json, os, subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAIN_CLI = ROOT / ".venv" / "bin" / "reveal-nb"


def test_reveal_loop_against_vllm_serve(vllm_server, tmp_path):
    assert MAIN_CLI.exists(), "the main environment (.venv) is built by `make test` before this suite"
    cmd = [str(MAIN_CLI), "demo", "--size", "tiny", "--limit", "1", "--variants", "reveal",
           "--data", str(tmp_path / "synth"), "--out", str(tmp_path / "run"),
           "--set", "llm_backend=openai", "--set", f"llm_base_url={vllm_server}", "--set", f"memory_dir={tmp_path / 'memory'}", "--set", "reply_cache=false"]
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", HF_HUB_OFFLINE="1")
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=3000, env=env, cwd=tmp_path)
    print(res.stdout[-3000:])
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-5000:]
    traces = [json.loads(l) for l in (tmp_path / "run" / "reveal" / "traces.jsonl").read_text().splitlines()]
    assert len(traces) == 1   # one question of the tiny test split: every call of it goes to the server
    for t in traces:
        # a server cannot score likelihoods, so `auto` generates in every role (chapter 03b)
        assert t["backbone"]["backend"] == "openai" and t["readings"] == dict(family="generate", selection="generate", verifier="generate",
                                                                            stop="generate", answer="generate",
                                                                            planner="generate")
        assert 1 <= t["n_rounds"] <= 3 and t["answer"] in t["options"]
        assert {c["role"] for c in t["calls"]} >= {"planner", "verifier", "answerer"}
        for r in t["rounds"]:
            v = r["verdict"]
            assert set(v["scores"]) == set(t["options"]) and all(set(row) == set(v["criteria"]) for row in v["scores"].values())
            assert v["sufficient"] == (v["rho"] >= t["tau"] - 1e-9)
    show = subprocess.run([str(MAIN_CLI), "trace", "show", str(tmp_path / "run" / "reveal" / "traces.jsonl"), traces[0]["qid"]],
                          capture_output=True, text=True, env=env)
    assert show.returncode == 0 and "Round 0" in show.stdout and "Answer:" in show.stdout
