"""reveal-synth `long` keeps its promises (chapter 05f): videos of an hour or more whose caption track is over
four times the direct baseline's budget, every type asked with E+ and E-, decisive moments over the whole
length, and, on a rendered video, at least 150 L1 segments on the default segmentation."""
import pytest
from reveal_nb.config import RevealConfig
from reveal_nb.synth.dataset import size_properties, video_specs
from reveal_nb.synth.questions import QUESTION_TYPES


@pytest.fixture(scope="module")
def long_props():
    from transformers import AutoTokenizer
    from reveal_nb.backends.model_folders import resolve_model_path
    cfg = RevealConfig()
    tok = AutoTokenizer.from_pretrained(resolve_model_path(cfg.llm_model, cfg))
    return size_properties("long", 0, count=lambda s: len(tok.encode(s, add_special_tokens=False)), cfg=cfg)


def test_long_videos_do_not_fit_the_direct_budget(long_props):
    short = [v for v in long_props["videos"] if v["duration"] < 3600]
    assert not short, f"videos under an hour: {[(v['video_id'], v['duration']) for v in short]}"
    thin = [v for v in long_props["videos"] if v["tokens"] < 4 * long_props["budget"]]
    assert not thin, f"caption tracks under 4 x {long_props['budget']} tokens: {[(v['video_id'], v['tokens']) for v in thin]}"


def test_long_asks_every_type_with_decisive_and_misleading_moments(long_props):
    for split, s in long_props["splits"].items():
        missing = [t for t in QUESTION_TYPES if not s["with_both"].get(t)]
        assert not missing, f"{split}: no question with E+ and E- of type {missing}"
        assert min(s["quarters"]) >= 0.1, f"{split}: decisive moments by quarter of the video {s['quarters']}"


@pytest.mark.slow
def test_a_long_video_has_150_segments(tmp_path):
    "One long test video really rendered and segmented at the default θ."
    from reveal_nb.backends.encoders import FrameDescriptorEncoder
    from reveal_nb.memory.segment import segment_video
    from reveal_nb.memory.video import scan_video
    from reveal_nb.synth.render import write_video
    from reveal_nb.synth.world import simulate
    cfg = RevealConfig()
    split, vid, secs, seed = next(s for s in video_specs("long", 0) if s[0] == "test")
    path = tmp_path / f"{vid}.mp4"
    write_video(simulate(vid, secs, seed), path)
    segments = segment_video(scan_video(path, cfg, FrameDescriptorEncoder()), cfg)
    assert len(segments) >= 150, f"{vid}: {len(segments)} L1 segments"
