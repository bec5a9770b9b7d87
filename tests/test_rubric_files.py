"""A rubric pool file with a bad field fails in one line naming the file, the criterion and the field (moved from
chapter 03, which keeps one example of it)."""
import pytest
from reveal_nb.method.rubrics import RubricPool, load_pool, pool_for, save_pool
from reveal_nb.config import RevealConfig

GOOD = "name: t\nsource: learned\ncriteria:\n  - name: a\n    description: d\n    applies_to: [any]\n    weight: 1\n    scores: {1: x, 0.5: y, 0: z}\n"


@pytest.fixture
def write(tmp_path):
    def _write(text, name="rubric_pool.yaml"):
        p = tmp_path / name; p.write_text(text); return p
    return _write


def test_a_good_pool_loads(write):
    assert len(load_pool(write(GOOD))) == 1


@pytest.mark.parametrize("broken, says", [
    (GOOD.replace("weight: 1", "weight: -2"), "criteria[0] (a).weight"),
    (GOOD.replace("0: z", "0.25: z"), "criteria[0] (a).scores"),
    (GOOD.replace("[any]", "[counting, dancing]"), "(a).applies_to"),
    (GOOD.replace("    description: d\n", ""), "(a).description': missing"),
    (GOOD.replace("learned", "dreamt"), "field 'source'"),
    (GOOD + GOOD.split("criteria:\n")[1], "duplicate criterion name"),
    ("name: [unclosed", "not valid YAML"),
    (GOOD.replace("weight: 1", "weight: .inf"), "positive, finite"),            # ρ would be NaN for every option
    (GOOD.replace("0: z", "0: null"), "scores.0"),                           # not the text "None"
    (GOOD.replace("0.5: y", "0.5: [y]"), "scores.0.5"),
    ("a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n" + GOOD, "anchors and aliases"),
])
def test_a_bad_field_is_named(write, broken, says):
    with pytest.raises(Exception, match=None) as e: load_pool(write(broken))
    assert says in str(e.value) and "rubric_pool.yaml" in str(e.value)


def test_oversized_and_non_utf8_pools_are_refused(write):
    with pytest.raises(Exception, match="at most"): load_pool(write(GOOD + "#" * 1_000_001))
    p = write(""); p.write_bytes(GOOD.encode("latin-1") + "\n# caf\xe9".encode("latin-1"))
    with pytest.raises(Exception, match="not UTF-8"): load_pool(p)


def test_a_saved_pool_reads_back_with_its_provenance(write, tmp_path):
    pool = pool_for(RevealConfig())
    p = tmp_path / "copy.yaml"
    save_pool(pool, p)
    assert load_pool(p).criteria == pool.criteria
    learned = RubricPool("learned-x", "learned", pool.criteria[:2], provenance=dict(split="dev", validation_accuracy=[0.5, 0.6]))
    save_pool(learned, p)
    assert load_pool(p).provenance == learned.provenance
    p.write_text(p.read_text().replace("provenance:", "provenance: 3\nx:"))
    with pytest.raises(Exception) as e: load_pool(p)
    assert "provenance" in str(e.value)
