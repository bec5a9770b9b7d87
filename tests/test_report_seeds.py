"""Reports pooled over several reveal-synth seeds: each seed generated beside the root, questions kept apart."""
from reveal_nb.core import RevealInputError
from reveal_nb.reports import report_items
import pytest


def test_seeds_pool_copies_generated_beside_the_root(tmp_path):
    root = tmp_path / "reveal-synth-tiny"
    one = report_items("reveal-synth", root, size="tiny")
    both = report_items("reveal-synth", root, size="tiny", seeds=[0, 1])
    assert (tmp_path / "reveal-synth-tiny-seed1" / "manifest.json").exists()
    assert len(both) > len(one) and len({it.qid for it in both}) == len(both)
    by_seed = {s: [it for it in both if it.qid.startswith(f"seed{s}-")] for s in (0, 1)}
    assert [it.qid for it in by_seed[0]] == [f"seed0-{it.qid}" for it in one]
    assert all(it.video_id.startswith("seed1-") and "reveal-synth-tiny-seed1" in it.video_path for it in by_seed[1])
    assert report_items("reveal-synth", root, size="tiny", seeds=[0, 1], limit=1) == both[:1]
    with pytest.raises(RevealInputError, match="distinct seeds"):
        report_items("reveal-synth", root, size="tiny", seeds=[1, 1])
