"""Reports pooled over several reveal-synth seeds: each seed generated beside the root, questions kept apart."""
from reveal_nb.config import RevealInputError
from reveal_nb.report.notebooks import report_items
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


def test_one_seed_other_than_the_configs_is_used_and_a_wrong_folder_refused(tmp_path):
    root = tmp_path / "reveal-synth-tiny"
    three = report_items("reveal-synth", root, size="tiny", seeds=[3])
    assert (tmp_path / "reveal-synth-tiny-seed3" / "manifest.json").exists() and not root.exists()
    assert all("reveal-synth-tiny-seed3" in it.video_path and not it.qid.startswith("seed") for it in three)
    # ROOT holds seed 0; a config of seed 1 with --seeds 0,1 would put seed 1 in ROOT: refused before generating
    report_items("reveal-synth", root, size="tiny")
    from reveal_nb.config import RevealConfig, with_overrides
    with pytest.raises(RevealInputError, match="holds reveal-synth seed 0"):
        report_items("reveal-synth", root, size="tiny", cfg=with_overrides(RevealConfig(), {"seed": 1}), seeds=[0, 1])
    assert not (tmp_path / "reveal-synth-tiny-seed0").exists()
