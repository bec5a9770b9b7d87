"""Config overrides reach a notebook through papermill parameters, for real (papermill + a real kernel)."""
import json
import nbformat
import papermill as pm


def test_papermill_parameters_override_config(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("tau = 0.7\nmax_rounds = 3\nvariant = 'reveal'", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("import json\nfrom reveal_nb.core import config_from_parameters, config_to_dict\n"
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


def test_the_prefetch_plan_names_the_runs_the_report_notebooks_read():
    """`reveal-nb figures --jobs N` computes `REPORT_VARIANTS` before the notebooks run; a notebook that reads another
    variant would still work but would compute it alone, so the table must match what the notebooks ask for under their
    config (`rep.cfg`; the never-stopping runs come from `probe_config`, which the plan calls itself)."""
    import ast
    from reveal_nb.analysis import REPORT_VARIANTS, REPORTS, reports_dir
    assert set(REPORT_VARIANTS) == set(REPORTS)
    for name in REPORTS:
        nb = nbformat.read(reports_dir() / f"{name}.ipynb", as_version=4)
        asked = set()
        for cell in nb.cells:
            if cell.cell_type != "code": continue
            for node in ast.walk(ast.parse(cell.source)):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "ensure_runs" and ast.unparse(node.args[1]) == "rep.cfg":
                    asked |= set(ast.literal_eval(node.args[2]))
        assert asked == set(REPORT_VARIANTS[name]), name
