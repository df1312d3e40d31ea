"""Helpers shared by test modules in different folders (importable: pytest's pythonpath)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

PROJECT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
HOOK_FIELDS = (
    "id",
    "name",
    "files",
    "exclude",
    "types",
    "types_or",
    "exclude_types",
    "require_serial",
    "pass_filenames",
    "args",
)


def project_hooks() -> dict[str, dict[str, Any]]:
    """The hooks this repository publishes in ``.pre-commit-hooks.yaml``, by id."""
    hooks = yaml.safe_load((PROJECT / ".pre-commit-hooks.yaml").read_text())
    return {hook["id"]: hook for hook in hooks}


def local_hook(hook_id: str) -> dict[str, Any]:
    """The published hook as a ``repo: local`` hook running this interpreter's script.

    Same id, name, file filters and flags; ``language: system`` so pre-commit does not
    build an environment, which keeps these tests fast.
    """
    hook = project_hooks()[hook_id]
    local = {key: hook[key] for key in HOOK_FIELDS if key in hook}
    program, _, arguments = hook["entry"].partition(" ")
    assert program == "tuning-codegen", hook["entry"]
    local["entry"] = f"{BIN / program} {arguments}".rstrip()
    local["language"] = "system"
    return local
