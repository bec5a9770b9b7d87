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


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (`make test` runs two workers), a module's tests stay on one worker so its module-scoped
    fixtures (a built memory, a reference run) are made once; the notebooks, which share nothing, spread out one by one."""
    import pytest
    for item in items:
        if item.path.name != "test_notebooks.py":
            item.add_marker(pytest.mark.xdist_group(item.path.stem))
