"""tensorcode: compile, run, differentiate and verify small numerical programs.

The Python interface lives in :mod:`tensorcode.program`.
"""
