"""The method does not know its test data: no method module imports a synthetic-benchmark module.

Read from the modules' source with `ast`, so the check sees lazy imports inside functions too.
"""
import ast
from conftest import ROOT

METHOD_MODULES = ("planner", "verifier", "answerer", "readings", "loop", "memory", "offline", "online", "rubrics", "segment", "video", "clips", "encoders", "models", "model_folders")


def _imported(path) -> set[str]:
    """Every module name a file imports, relative imports resolved against the package; a name imported
    from the package itself (`from . import synth`, `from reveal_nb import synth`) counts as a module."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import): out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(p for p in ("reveal_nb" if node.level else "", node.module or "") if p)
            out.add(base)
            if base == "reveal_nb": out |= {f"reveal_nb.{a.name}" for a in node.names}
    return out


def test_method_modules_do_not_import_synthetic_data():
    leaks = {m: sorted(n for n in _imported(ROOT / "reveal_nb" / f"{m}.py") if n.split(".")[-1].startswith("synth"))
             for m in METHOD_MODULES}
    assert not any(leaks.values()), f"method modules importing reveal-synth: { {m: v for m, v in leaks.items() if v} }"


def test_the_check_sees_a_lazy_import(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("def f():\n    from reveal_nb.synth_questions import is_sufficient\n    from .synth import generate\n"
                 "    from . import synth_truth\n    from reveal_nb import synth_audit\n    import reveal_nb.synth_world\n")
    assert {"reveal_nb.synth_questions", "reveal_nb.synth", "reveal_nb.synth_truth", "reveal_nb.synth_audit",
            "reveal_nb.synth_world"} <= _imported(p)


def test_notebook_and_module_names_agree():
    "nbs/NN[a-z]_NAME.ipynb exports reveal_nb/NAME.py, so a reader finds one from the other."
    import json, re
    for p in sorted((ROOT / "nbs").glob("[0-9]*.ipynb")):
        first = "".join(json.loads(p.read_text())["cells"][0]["source"])
        m = re.search(r"#\| default_exp (\w+)", first)
        assert m, f"{p.name}: no default_exp in its first cell"
        assert re.sub(r"^\d+[a-z]?_", "", p.stem) == m.group(1), f"{p.name} exports {m.group(1)}.py"


def test_no_module_is_a_warehouse():
    "Each module has one job; a module past about 400 lines has grown a second one (the generated index aside)."
    big = {p.name: n for p in (ROOT / "reveal_nb").glob("*.py") if p.name != "_modidx.py"
           for n in [len(p.read_text().splitlines())] if n > 420}
    assert not big, f"modules over 420 lines: {big}"


def test_notebook_code_wraps_at_100_characters():
    "The chapters' code lines wrap at 100 characters, so a reader on a code host never scrolls sideways."
    import json
    long = [(p.name, line[:60]) for p in sorted((ROOT / "nbs").rglob("*.ipynb")) if ".ipynb_checkpoints" not in str(p)
            for c in json.loads(p.read_text())["cells"] if c["cell_type"] == "code"
            for line in "".join(c["source"]).splitlines() if len(line) > 100]
    assert not long, f"{len(long)} code lines over 100 characters, first: {long[:3]}"


def test_no_module_imports_what_it_does_not_use():
    "No unused imports (ruff's F401): a name re-exported by name is imported from the module that defines it instead."
    import subprocess, sys
    from pathlib import Path
    ruff = Path(sys.executable).parent / "ruff"
    res = subprocess.run([str(ruff), "check", "--select", "F401", "--exclude", "reveal_nb/_modidx.py",
                          "--output-format", "concise", "reveal_nb/"], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, f"unused imports (fix them in the notebooks):\n{res.stdout[-3000:]}"


def _module_graph(folder=ROOT / "reveal_nb") -> dict:
    "Which package modules each module imports, lazy imports inside functions included."
    mods = {p.stem for p in folder.glob("*.py") if p.stem not in ("_modidx", "__init__")}
    graph = {}
    for m in mods:
        names = _imported(folder / f"{m}.py")
        graph[m] = {n.split(".")[1] for n in names if n.startswith("reveal_nb.") and n.split(".")[1] in mods} - {m}
    return graph


def _cycles(graph: dict) -> list:
    "Every cycle a depth-first walk of the import graph meets, as lists of module names."
    state, cycles = {}, []
    def visit(m, path):
        state[m] = "open"
        for d in sorted(graph[m]):
            if state.get(d) == "open": cycles.append(path[path.index(d):] + [d])
            elif d not in state: visit(d, path + [d])
        state[m] = "done"
    for m in sorted(graph):
        if m not in state: visit(m, [m])
    return cycles


def test_no_import_cycles():
    "The modules import each other one way: no cycle, not even through an import inside a function."
    cycles = _cycles(_module_graph())
    assert not cycles, f"import cycles: {[' -> '.join(c) for c in cycles]}"


def test_the_cycle_check_sees_a_lazy_cycle(tmp_path):
    "A made-up cycle through an import inside a function is found."
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("from .b import x\n"); b.write_text("def f():\n    from reveal_nb.a import y\n")
    assert _cycles(_module_graph(tmp_path)) == [["a", "b", "a"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
