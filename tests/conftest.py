"""Shared test set-up: offline model hubs, repository paths."""
import os
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[1]

# The vLLM and open_clip tests run in their own environments (`make test` runs them there);
# elsewhere they are not collected.
import importlib.util as _util

collect_ignore = [name for name, module in (("vllm_env", "vllm"), ("clip_env", "open_clip")) if _util.find_spec(module) is None]
