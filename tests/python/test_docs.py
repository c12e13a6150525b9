"""docs/python.md's python blocks that need no torch run as written."""
import pytest

from docs_blocks import blocks, run

BLOCKS = blocks(torch=False)


def test_the_guide_has_its_examples():
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("line,code", BLOCKS, ids=[f"line{line}" for line, _ in BLOCKS])
def test_block_runs(line, code, tmp_path):
    run(line, code, tmp_path)
