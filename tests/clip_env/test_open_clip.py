"""Plumbing test of `OpenClipEncoder` on a tiny, randomly initialised open_clip architecture.

Runs in its own environment (`make test-clip`: torch 2.14.1 + torchvision 0.29.1 + open_clip), because
open_clip imports torchvision, which does not import beside the main environment's torch build.
Random weights carry no meaning: this checks loading from a local weights file, shapes, unit norms,
and the shared text-image space -- not retrieval quality.
"""
import numpy as np
import pytest
import torch

open_clip = pytest.importorskip("open_clip")
from open_clip import factory  # noqa: E402
from reveal_nb.core import RevealInputError  # noqa: E402
from reveal_nb.encoders import OpenClipEncoder, make_visual_encoder  # noqa: E402
from reveal_nb.core import RevealConfig, with_overrides  # noqa: E402

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
