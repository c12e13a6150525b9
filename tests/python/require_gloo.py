"""`run_pytest.py --require require_gloo`: this import fails, so the ctest
entry reports SKIPPED (exit 77), when torch.distributed has no gloo backend."""
import torch.distributed as dist

if not (dist.is_available() and dist.is_gloo_available()):
    raise ImportError("torch.distributed has no gloo backend")
