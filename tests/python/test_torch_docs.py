"""docs/python.md's python blocks that use torch (the bridge and the
training guide: Trainer, DataLoader, a float32 network, DDP) run as written."""
import pytest

pytest.importorskip("torch")

from docs_blocks import blocks, run  # noqa: E402

BLOCKS = blocks(torch=True)


def test_torch_the_guide_has_its_examples():
    assert len(BLOCKS) >= 6


@pytest.mark.parametrize("line,code", BLOCKS, ids=[f"line{line}" for line, _ in BLOCKS])
def test_torch_block_runs(line, code, tmp_path):
    run(line, code, tmp_path)
