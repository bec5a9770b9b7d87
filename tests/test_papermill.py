"""Config overrides reach a notebook through papermill parameters, for real (papermill + a real kernel)."""
import json
import nbformat
import papermill as pm


def test_papermill_parameters_override_config(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("tau = 0.7\nmax_rounds = 3\nvariant = 'reveal'", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("import json\nfrom reveal_nb.config import config_from_parameters, config_to_dict\n"
                                  "cfg = config_from_parameters(globals())\n"
                                  f"open({str(tmp_path / 'cfg.json')!r}, 'w').write(json.dumps(config_to_dict(cfg)))"),
    ])
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python", "display_name": "python3"}
    src = tmp_path / "report.ipynb"
    nbformat.write(nb, src)
    pm.execute_notebook(str(src), str(tmp_path / "out.ipynb"), parameters={"tau": 0.85, "max_rounds": 5, "variant": "m_base"},
                        kernel_name="python3", progress_bar=False)
    cfg = json.loads((tmp_path / "cfg.json").read_text())
    assert (cfg["tau"], cfg["max_rounds"], cfg["theta"], cfg["variant"]) == (0.85, 5, 0.8, "m_base")


def test_every_report_notebook_declares_the_runs_it_reads():
    """`reveal-nb figures --jobs N` computes the runs a report declares (`variants`, `probe_rounds`) before the notebooks run;
    a notebook that asked `ensure_runs` for other variants under its config would compute them alone. So every call on
    the notebook's config passes the declared `variants`, and a notebook that declares `probe_rounds` makes its never-stopping
    run from it (the heatmap only reads the sweep tables, and checks each against the run it came from)."""
    import ast
    from reveal_nb.report.notebooks import REPORTS, declared_parameters, reports_dir
    for name in REPORTS:
        ns = declared_parameters(name, {})
        assert isinstance(ns["variants"], list), name
        nb = nbformat.read(reports_dir() / f"{name}.ipynb", as_version=4)
        for cell in nb.cells:
            if cell.cell_type != "code" or "parameters" in cell.metadata.get("tags", []): continue
            for node in ast.walk(ast.parse(cell.source)):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "ensure_runs" and ast.unparse(node.args[1]) == "rep.cfg":
                    assert ast.unparse(node.args[2]) == "variants", f"{name}: ensure_runs on rep.cfg must read the declared variants"
                if "probe_rounds" in ns and isinstance(node, ast.Call) and getattr(node.func, "id", None) == "probe_config":
                    assert ast.unparse(node.args[1]) == "probe_rounds", f"{name}: the never-stopping run must use the declared probe_rounds"
