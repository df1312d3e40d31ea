"""tuning-codegen: render tuning manifests into marked regions of source files.

This package runs on every commit, so it imports only the standard library, PyYAML
and click at start-up; GitPython is imported lazily by the one feature that needs it,
and pandas never.
"""
