"""Entry point of the description's validation command for training:
tests/conftest.py collects tests/python/test_torch_training.py and
test_torch_distributed.py in its place. This file is never imported."""
