"""tensorcode: compile, run, differentiate and verify small numerical programs.

The Python interface lives in :mod:`tensorcode.program`.
"""

# The package version, read by the build backend (python/pep517) for the
# wheel's metadata: the one place it is written.
__version__ = "0.1.0"
