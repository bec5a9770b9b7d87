"""How the package is laid out: subpackages for the parts of the method, imports one way, names imported
from where they are defined.

The package: `core`, `config` and `cli` at the top; `backends` (models and encoders), `memory`
(video, segmentation, offline and online memory), `method` (rubrics, planner, readings, verifier,
answerer, loop, rubric construction), `studies` (the verifier measured and fitted), `synth`
(reveal-synth), `data` (benchmark loaders, manifests, clip folders), `runs` (evaluation, traces,
scoring, construction runs) and `report` (analysis, report notebooks, pages). Read from the modules'
source with `ast`, so every check sees lazy imports inside functions too.
"""
import ast, json, re
from conftest import ROOT

PACKAGE = ROOT / "reveal_nb"
# the method and what it reads (memories, models, benchmark loaders): none may know the synthetic benchmark
METHOD_PACKAGES = ("method", "memory", "backends", "data")


def _modules(folder=PACKAGE) -> dict:
    "Dotted module name (inside the package) -> file, `_modidx` and `__init__` files left out."
    return {".".join(p.relative_to(folder).with_suffix("").parts): p for p in sorted(folder.rglob("*.py"))
            if p.stem not in ("_modidx", "__init__") and "__pycache__" not in p.parts}


def _imports(path, module: str) -> list[tuple[str, str | None]]:
    """(module, name) for every import in a file, relative imports resolved against the file's package
    (`module` is its dotted name inside reveal_nb); `import x` gives (x, None)."""
    out, package = [], ["reveal_nb"] + module.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import): out += [(a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            full = ".".join(base + ([node.module] if node.module else []))
            out += [(full, a.name) for a in node.names]
    return out


def _imported(path, module: str = "m") -> set[str]:
    """Every module a file imports; a name imported from a package that is one of its modules or
    subpackages (`from .. import synth`, `from reveal_nb.synth import audit`) counts as that module."""
    known = set(_modules()) | {m.rsplit(".", 1)[0] for m in _modules() if "." in m}
    out = set()
    for full, name in _imports(path, module):
        out.add(full)
        if name and full.startswith("reveal_nb") and f"{full}.{name}".removeprefix("reveal_nb.") in known:
            out.add(f"{full}.{name}")
    return out


def test_method_packages_do_not_import_synthetic_data():
    "The method does not know its test data: no module of method, memory, backends or data imports reveal-synth."
    leaks = {m: sorted(n for n in _imported(p, m) if n.startswith("reveal_nb.synth"))
             for m, p in _modules().items() if m.split(".")[0] in METHOD_PACKAGES}
    assert not any(leaks.values()), f"modules importing reveal-synth: { {m: v for m, v in leaks.items() if v} }"


def test_the_check_sees_a_lazy_import(tmp_path):
    "Each import form, alone in a function of a method module, is seen as importing reveal-synth."
    forms = ["from reveal_nb.synth.questions import is_sufficient", "from ..synth import dataset",
             "from .. import synth", "from reveal_nb import synth", "from reveal_nb.synth import audit",
             "import reveal_nb.synth.world"]
    for i, form in enumerate(forms):
        p = tmp_path / f"m{i}.py"
        p.write_text(f"def f():\n    {form}\n")
        assert any(n.startswith("reveal_nb.synth") for n in _imported(p, "method.m")), form


def test_notebook_and_module_names_agree():
    """nbs/NN[a-z]_NAME.ipynb exports reveal_nb/<part>/NAME.py (or NAME is the dotted path with `_` for `.`,
    as in `05c_synth_questions` -> `synth.questions`), so a reader finds one from the other."""
    for p in sorted((ROOT / "nbs").glob("[0-9]*.ipynb")):
        first = "".join(json.loads(p.read_text())["cells"][0]["source"])
        m = re.search(r"#\| default_exp ([\w.]+)", first)
        assert m, f"{p.name}: no default_exp in its first cell"
        stem, path = re.sub(r"^\d+[a-z]?_", "", p.stem), m.group(1)
        assert stem in (path.split(".")[-1], path.replace(".", "_")), f"{p.name} exports {path}"


def test_chapters_are_numbered_in_reading_order():
    "The book's table of contents lists the chapters in the order of their numbers."
    toc = re.findall(r"file: (\d+[a-z]?_\w+)", (ROOT / "nbs" / "_toc.yml").read_text())
    assert toc == sorted(toc), f"chapters out of order in nbs/_toc.yml: {toc}"
    assert set(toc) == {p.stem for p in (ROOT / "nbs").glob("[0-9]*.ipynb")}


def test_notebook_code_wraps_at_100_characters():
    "The chapters' code lines wrap at 100 characters, so a reader on a code host never scrolls sideways."
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


def _defined(path) -> set[str]:
    "The names a module defines at its top level (functions, classes, assignments, also under `if`/`try`)."
    out = set()
    for node in ast.parse(path.read_text()).body:
        for n in ast.walk(node) if isinstance(node, (ast.If, ast.Try)) else [node]:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)): out.add(n.name)
            elif isinstance(n, (ast.Assign, ast.AnnAssign)):
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    out |= {e.id for e in ast.walk(t) if isinstance(e, ast.Name)}
    return out


def _foreign_imports(files) -> list[str]:
    """Imports of a package name from a module that does not define it (a shim), and imports of another
    module's private `_name`."""
    mods = _modules()
    defined = {m: _defined(p) for m, p in mods.items()}
    bad = []
    for where, path, module in files:
        for full, name in _imports(path, module):
            m = full.removeprefix("reveal_nb.")
            if not full.startswith("reveal_nb.") or m not in mods or name in (None, "*"): continue
            if name not in defined[m]: bad.append(f"{where}: {name} from {full}, which does not define it")
            elif name.startswith("_") and m != module: bad.append(f"{where}: private {name} from {full}")
    return bad


def test_names_come_from_the_module_that_defines_them():
    """No shims: every `from reveal_nb.x import name` in the package, the tests and the bench scripts names
    the module that defines it, and no module takes another's private names (join the two instead)."""
    files = [(f"reveal_nb/{m}", p, m) for m, p in _modules().items()]
    files += [(p.relative_to(ROOT).as_posix(), p, "tests.x") for p in sorted((ROOT / "tests").rglob("*.py"))]
    files += [(p.relative_to(ROOT).as_posix(), p, "bench.x") for p in sorted((ROOT / "bench").glob("*.py"))]
    bad = _foreign_imports(files)
    assert not bad, f"{len(bad)} imports not from the defining module: {bad[:5]}"


def test_the_shim_check_sees_a_re_export(tmp_path):
    p = tmp_path / "t.py"
    p.write_text("from reveal_nb.core import RevealConfig\nfrom reveal_nb.data.qa_items import refuse_duplicate_ids\n"
                 "def f():\n    from reveal_nb.method.loop import _nothing_here\n")
    bad = _foreign_imports([("t.py", p, "tests.t")])
    assert len(bad) == 2 and "RevealConfig" in bad[0] and "_nothing_here" in bad[1]


def _module_graph(folder=PACKAGE) -> dict:
    "Which package modules each module imports, lazy imports inside functions included."
    mods = _modules(folder)
    graph = {}
    for m, p in mods.items():
        names = {n.removeprefix("reveal_nb.") for n in _imported(p, m) if n.startswith("reveal_nb.")}
        graph[m] = {n for n in names if n in mods} - {m}
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
