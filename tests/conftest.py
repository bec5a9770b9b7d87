"""Shared test set-up: offline model hubs, repository paths."""
import os, signal, subprocess, sys, time
from pathlib import Path
import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[1]
CLI = [str(Path(sys.executable).parent / "reveal-nb")]


def kill_when(args, ready, limit=900):
    "Start the CLI and SIGKILL it as soon as ready() is true; True if it was killed (False: it finished first)."
    p = subprocess.Popen(CLI + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.time()
    while p.poll() is None and time.time() - t0 < limit:
        if ready(): p.send_signal(signal.SIGKILL); p.wait(); return True
        time.sleep(0.02)
    p.wait(); return False


@pytest.fixture(scope="module")
def synth(tmp_path_factory):
    "reveal-synth `tiny`, generated once per test module that reads it (a module that changes it makes its own)."
    from reveal_nb.synth.dataset import generate
    root = tmp_path_factory.mktemp("synth")
    generate(root, "tiny", progress=False)
    return root

# The vLLM and open_clip tests run in their own environments (`make test` runs them there);
# elsewhere they are not collected.
import importlib.util as _util

collect_ignore = [name for name, module in (("vllm_env", "vllm"), ("clip_env", "open_clip")) if _util.find_spec(module) is None]
# tests/manual holds checks that need what the project does not install (`make check-gguf-parts` runs them)
if os.environ.get("REVEAL_NB_MANUAL") != "1": collect_ignore.append("manual")

# Parallel workers (pytest-xdist, `make test` runs two) each get an equal share of the cores as torch threads,
# set here before any test imports torch; notebook kernels and CLI subprocesses inherit it.
_workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
if _workers > 1:
    _threads = str(max(1, (os.cpu_count() or 1) // _workers))
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, _threads)

# The tests that take minutes start first, so that the workers finish together (longest first). Tests of one
# xdist_group stay together: pytest tears a module's fixtures down when the next test is from another module.
# A test that reuses another's cached work (chapter 03f reuses the construction test's memory) is deliberately not listed.
LONGEST_FIRST = ["test_notebook_runs[03c_verifier]", "test_build_writes_a_pool_the_loop_runs_with",
                 "test_every_report_writes_its_files", "test_notebook_runs[07a_evaluate]",
                 "test_ray_executor_gives_the_local_traces", "test_notebook_runs[02b_memory_build]", "test_notebook_runs[09b_models]"]


def _group(item):
    mark = item.get_closest_marker("xdist_group")
    return (mark.args[0] if mark.args else mark.kwargs["name"]) if mark else item.nodeid


def pytest_collection_modifyitems(config, items):
    groups, rank, first = [_group(item) for item in items], {}, {}
    for i, (item, g) in enumerate(zip(items, groups)):
        first.setdefault(g, i)
        if item.name in LONGEST_FIRST: rank[g] = min(rank.get(g, len(LONGEST_FIRST)), LONGEST_FIRST.index(item.name))
    order = sorted(range(len(items)), key=lambda i: (rank.get(groups[i], len(LONGEST_FIRST)), first[groups[i]], i))
    items[:] = [items[i] for i in order]


def pytest_runtest_setup(item):
    "Under `--dist loadgroup`, xdist must have tagged every grouped test, or the group's fixtures run on both workers."
    if getattr(item.config.option, "loadgroup", False) and item.get_closest_marker("xdist_group") and "@" not in item.nodeid:
        pytest.fail(f"pytest-xdist did not tag this test with its xdist_group (pytest {pytest.__version__}), so the group's "
                    "shared fixtures would run on both workers; pyproject.toml pins the pytest that xdist supports", pytrace=False)
