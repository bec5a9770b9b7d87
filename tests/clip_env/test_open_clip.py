"""Plumbing test of `OpenClipEncoder` on a tiny, randomly initialised open_clip architecture.

Runs in its own environment (`make test-clip`: torch 2.14.1 + torchvision 0.29.1 + open_clip), because
open_clip imports torchvision, which does not import beside the main environment's torch build.
Random weights carry no meaning: this checks loading from a local weights file, shapes, unit norms,
and the shared text-image space, and that a real loop run (bundled chat model and text encoder) searches
the keyframes with it -- not retrieval quality.
"""
import numpy as np
import pytest
import torch

open_clip = pytest.importorskip("open_clip")
from open_clip import factory  # noqa: E402
from reveal_nb.config import RevealInputError  # noqa: E402
from reveal_nb.backends.encoders import OpenClipEncoder, make_visual_encoder  # noqa: E402
from reveal_nb.config import RevealConfig, with_overrides  # noqa: E402

TINY = "reveal-tiny-random"
factory._MODEL_CONFIGS[TINY] = {
    "embed_dim": 32,
    "vision_cfg": {"image_size": 32, "layers": 2, "width": 64, "head_width": 32, "patch_size": 16},
    "text_cfg": {"context_length": 77, "vocab_size": 49408, "width": 64, "heads": 2, "layers": 2},
}


@pytest.fixture(scope="module")
def weights(tmp_path_factory):
    from safetensors.torch import save_file
    torch.manual_seed(0)
    model = open_clip.create_model(TINY)
    path = tmp_path_factory.mktemp("w") / "tiny.safetensors"
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(path))
    return path, model


def frames(n=3):
    rng = np.random.default_rng(0)
    return [rng.integers(0, 255, (48, 64, 3), dtype=np.uint8) for _ in range(n)]


def test_open_clip_encoder_shapes_norms_and_joint_space(weights):
    path, _ = weights
    enc = OpenClipEncoder(TINY, path)
    I, T = enc.encode_images(frames()), enc.encode_texts(["a man opens the door", "a red cup"])
    assert enc.joint and enc.dim == 32
    assert I.shape == (3, 32) and T.shape == (2, 32) and I.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(np.vstack([I, T]), axis=1), 1.0, atol=1e-5)
    assert (T @ I.T).shape == (2, 3)


def test_open_clip_loads_the_given_weights(weights):
    path, original = weights
    enc = OpenClipEncoder(TINY, path)
    with torch.inference_mode():
        expected = original.eval().encode_text(enc.tokenizer(["a red cup"])).numpy()
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(enc.encode_texts(["a red cup"]), expected, atol=1e-5)


def test_open_clip_factory_and_missing_weights(weights, tmp_path):
    path, _ = weights
    enc = make_visual_encoder(with_overrides(RevealConfig(), {"visual_encoder": f"open_clip:{TINY}:{path}"}))
    assert isinstance(enc, OpenClipEncoder)
    with pytest.raises(RevealInputError, match="does not exist"):
        OpenClipEncoder(TINY, tmp_path / "missing.safetensors")



@pytest.mark.slow
def test_loop_searches_keyframes_with_open_clip(weights, synth, tmp_path):
    """A real loop run on reveal-synth tiny (the bundled chat model and text encoder) with the open_clip model as
    the joint encoder: the memory keeps a keyframe index, the loop searches it with the planner's queries, and its
    hits reach the evidence the answerer reads and the trace."""
    import json
    from reveal_nb.data.benchmarks import load_reveal_synth
    from reveal_nb.backends.encoders import make_text_encoder
    from reveal_nb.method.loop import (joint_encoder, memory_config, memory_levels, run_loop,
        start_run, visual_candidates)
    from reveal_nb.memory.build import build_memory
    from reveal_nb.backends.roles import make_llm
    from reveal_nb.method.record import trace_of
    from reveal_nb.method.rubrics import pool_for
    path, _ = weights
    # M_base (one round, fixed chunks, L1 only) keeps this to seconds; the channel is the same in every variant.
    # Four segments per query and channel, of the video's ten, leave the keyframe channel segments of its own to add.
    cfg = with_overrides(RevealConfig(), {"variant": "m_base", "top_k_l1": 4,
                                          "visual_encoder": f"open_clip:{TINY}:{path}"})
    items = load_reveal_synth(synth, "test")
    llm, enc = make_llm(cfg), make_text_encoder(cfg)
    it = items[0]
    # its own memory root: the weights file's path is part of the memory's key, so a shared cache would only fill up
    mem = build_memory(it.video_path, memory_config(cfg), captions=it.captions_path, subtitles=it.subtitles_path,
                       llm=llm, text_encoder=enc, root=tmp_path / "memory", progress=False,
                       levels=memory_levels(cfg))
    l1 = {x["id"] for x in mem.items if x["level"] == 1}
    assert mem.meta["visual_channel"] and mem.meta["visual_encoder"] == f"visual:open_clip:{TINY}:{path.name}"
    assert mem.visual is not None and mem.visual.ntotal == len(l1) and mem.visual.d == 32
    runs = run_loop([start_run(x, mem, cfg, enc.dim) for x in items if x.video_id == it.video_id],
                    llm, enc, pool_for(cfg), cfg)
    assert len(runs) == 2 and isinstance(joint_encoder(cfg), OpenClipEncoder)   # loaded from the config
    for r in runs:
        t = json.loads(json.dumps(trace_of(r, cfg, llm)))                          # a trace is plain JSON
        assert t["answer"] in t["options"] and t["n_rounds"] == 1 and t["stop"] == "single_round"
        searched = t["rounds"][0]["action"]["queries"]
        # a keyframe hit that the text channel did not find enters as its L1 segment, with `visual: <query>` as source
        seen = [a for a in t["rounds"][0]["admitted"] if a["source"].startswith("visual: ")]
        assert seen, f"{t['qid']}: no keyframe hit was admitted"
        keyframe_hits = {h["id"] for h in visual_candidates(r.mem, searched, cfg)}
        for a in seen:
            assert a["id"] in l1 and a["level"] == 1 and a["id"] in keyframe_hits
            assert a["source"].removeprefix("visual: ") in searched and set(a["found_by"]) <= set(searched)
        # and stays in the final evidence, which the answerer read
        assert {(a["id"], a["source"]) for a in seen} <= {(e["id"], e["source"]) for e in t["final_evidence"]}
        assert all(e["text"] in r.om.evidence_text() for e in t["final_evidence"] if e["source"].startswith("visual: "))
