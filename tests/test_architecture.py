"""The shape of the tree: no import cycles, imports at the top (a lazy import only for
start-up time, with its reason), layers that import one way, no top-level ``hooks``.

Read from the source with ``ast``: nothing is imported, so the checks see every module,
including ones a test run never loads.
"""

from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "tuning_codegen": PROJECT / "hooks" / "tuning_codegen",
    "kprofile": PROJECT / "kprofile",
}
# The lazy imports of the project's own modules outside the mode modules, each the
# (importing module, imported module) and why the import waits (start-up time only).
LAZY_OUTSIDE_MODES = {
    ("tuning_codegen.cli", "tuning_codegen.command"): "click and the pipeline",
    ("kprofile.cli", "kprofile.run"): "pandas and the rest, once checked installed",
    ("kprofile.core.cover_split", "kprofile.core.cover_solver"): "HiGHS's stack",
    ("kprofile.core.portfolio", "kprofile.core.portfolio_solver"): "HiGHS's stack",
    ("kprofile.inputs.csvfile", "kprofile.inputs.csvscan"): "a CSV input",
    ("kprofile.inputs.load", "kprofile.inputs.specyaml"): "a YAML input",
    ("kprofile.inputs.load", "tuning_codegen.manifest"): "a YAML input (PyYAML)",
    ("kprofile.prepare", "kprofile.core.runs"): "--combine, repeated runs",
    ("kprofile.prepare", "kprofile.core.query"): "--query",
    ("kprofile.prepare", "kprofile.inputs.specroles"): "--spec",
    ("kprofile.inputs.specroles", "tuning_codegen.manifest"): "--spec (PyYAML)",
    ("kprofile.run", "kprofile.sinks.output"): "-o",
    ("kprofile.run", "kprofile.sinks.update"): "--update",
    ("kprofile.run", "kprofile.sinks.rerun"): "--rerun",
    ("kprofile.sinks.update", "kprofile.sinks.keep"): "--keep-within",
    ("kprofile.run", "kprofile.sinks.pictures"): "--plot, --report",
    ("kprofile.run", "kprofile.sinks.derived"): "--out-dir, --plot, --report",
}


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # the project module imported
    line: int
    lazy: bool  # inside a function
    typing_only: bool  # under ``if TYPE_CHECKING:``
    reason: str  # the comment on the import's first line


def _modules() -> dict[str, Path]:
    found = {}
    for package, root in PACKAGES.items():
        for path in sorted(root.rglob("*.py")):
            parts = (package, *path.relative_to(root).with_suffix("").parts)
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The project module ``name`` is, or lies in (``a.b.c`` -> ``a.b``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _targets(node: ast.Import | ast.ImportFrom, module: str, package: bool) -> set[str]:
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = module.split(".")[: len(module.split(".")) - node.level + package]
            base = ".".join([*parts, *([base] if base else [])])
        names = [f"{base}.{alias.name}" for alias in node.names]
    resolved = {_resolve(n) for n in names if n.split(".")[0] in PACKAGES}
    return {t for t in resolved if t is not None and t != module}


def _imports() -> list[Import]:
    out: list[Import] = []
    for module, path in MODULES.items():
        source = path.read_text(encoding="utf-8")
        walk = _Walk(module, path.name == "__init__.py", source.splitlines(), out)
        walk.visit(ast.parse(source), lazy=False, typing_only=False)
    return out


@dataclass
class _Walk:
    module: str
    package: bool
    lines: list[str]
    out: list[Import]

    def visit(self, node: ast.AST, *, lazy: bool, typing_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            guarded = typing_only or (
                isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test)
            )
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                comment = self.lines[child.lineno - 1].partition("#")[2].strip()
                for target in _targets(child, self.module, self.package):
                    self.out.append(
                        Import(
                            self.module, target, child.lineno, inner, guarded, comment
                        )
                    )
            self.visit(child, lazy=inner, typing_only=guarded)


IMPORTS = _imports()


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for imp in IMPORTS:
        if not imp.typing_only:
            graph[imp.module].add(imp.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return components


def test_the_checks_see_the_whole_tree() -> None:
    assert {"tuning_codegen.cli", "kprofile.cli", "kprofile.modes"} <= set(MODULES)
    assert any(i.target == "tuning_codegen.errors" for i in IMPORTS)


def test_no_import_cycles() -> None:
    assert _cycles() == []


def _is_mode(module: str) -> bool:
    return module.startswith("kprofile.modes.") and module != "kprofile.modes"


def test_lazy_imports_are_for_start_up_and_each_says_why() -> None:
    """The mode table imports every mode module (its rows hold their handlers), so a
    mode module imports its machinery (its analysis in ``core``, the sinks, the YAML
    readers) in the function that uses it, each line saying ``start-up:`` and when it
    is needed. Elsewhere a lazy import is one of ``LAZY_OUTSIDE_MODES``; every one
    says why on its line."""
    lazy = [i for i in IMPORTS if i.lazy]
    where = {id(i): f"{MODULES[i.module].relative_to(PROJECT)}:{i.line}" for i in lazy}
    assert [where[id(i)] for i in lazy if not i.reason] == []
    modes = [i for i in lazy if _is_mode(i.module)]
    assert [where[id(i)] for i in modes if not i.reason.startswith("start-up:")] == []
    assert [where[id(i)] for i in modes if i.target.startswith("kprofile.modes")] == []
    outside = {(i.module, i.target) for i in lazy if not _is_mode(i.module)}
    assert outside == set(LAZY_OUTSIDE_MODES)


@pytest.mark.parametrize(
    ("layer", "forbidden"),
    [
        ("tuning_codegen", "kprofile"),  # the code generator never uses the analyzer
        # what the commit holds is read below the command and the hook's run
        ("tuning_codegen.commit", "tuning_codegen.cli"),
        ("tuning_codegen.commit", "tuning_codegen.command"),
        ("tuning_codegen.commit", "tuning_codegen.run"),
        ("tuning_codegen.commit", "tuning_codegen.hookrun"),
        ("kprofile.render", "kprofile.modes"),
        ("kprofile.render", "kprofile.sinks"),
        ("kprofile.core", "kprofile.modes"),
        ("kprofile.core", "kprofile.sinks"),
        ("kprofile.inputs", "kprofile.core"),
        ("kprofile.inputs", "kprofile.modes"),
        ("kprofile.manifest", "kprofile.modes"),
        # defaults live with the analysis: the command line reads them, never the
        # reverse
        ("kprofile.core", "kprofile.options"),
        ("kprofile.core", "kprofile.clitypes"),
        ("kprofile.core", "kprofile.cli"),
        ("kprofile.inputs", "kprofile.options"),
        ("kprofile.inputs", "kprofile.clitypes"),
        ("kprofile.inputs", "kprofile.cli"),
    ],
)
def test_layers_import_one_way(layer: str, forbidden: str) -> None:
    def inside(name: str, package: str) -> bool:
        return name == package or name.startswith(package + ".")

    wrong = [
        (i.module, i.target)
        for i in IMPORTS
        if inside(i.module, layer) and inside(i.target, forbidden)
    ]
    assert wrong == []


def test_only_the_commit_package_runs_git() -> None:
    """One place reads git: ``tuning_codegen.commit`` (and ``paths``, which asks it
    for the repository's top). The child-process helper that starts git is used by
    ``commit.git`` alone; a formatter runs through ``process.exchange``."""
    git_users = {i.module for i in IMPORTS if i.target == "tuning_codegen.commit.git"}
    outside = {m for m in git_users if not m.startswith("tuning_codegen.commit.")}
    assert outside == {"tuning_codegen.paths"}
    spawners = set()
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module == "tuning_codegen.process"
            ):
                if any(alias.name == "spawn" for alias in node.names):
                    spawners.add(module)
    assert spawners == {"tuning_codegen.commit.git"}


def test_the_command_line_parses_without_the_analyzer_stack() -> None:
    """``kprofile --help`` and the check that the analysis extra is installed run
    before pandas is imported: the defaults the CLI shows come from modules that
    import none of it (``core.defaults``, ``inputs.limits``)."""
    code = (
        "import sys, kprofile.cli; "
        "print(' '.join(sorted(m.split('.')[0] for m in sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    loaded = set(done.stdout.split())
    assert not loaded & {"pandas", "numpy", "scipy", "matplotlib", "rich"}


def test_no_import_by_name_in_kprofile() -> None:
    """Routes a reader can follow: nothing in kprofile imports a module named by a
    string (``importlib.import_module``, ``__import__``); ``importlib`` appears only
    where the CLI asks whether the analysis extra is installed (``find_spec``) and
    how it was installed (``metadata``)."""
    for path in sorted((PROJECT / "kprofile").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = ast.unparse(node.func)
                assert not name.endswith(("import_module", "__import__")), path
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                )
                used = [n for n in names if n.split(".")[0] == "importlib"]
                allowed = {"importlib.util", "importlib.metadata"}
                assert not used or (path.name == "cli.py" and set(used) <= allowed)


def test_no_module_function_strings_in_kprofile() -> None:
    """No table names its handler as a ``"module:function"`` string."""
    spelled = re.compile(r"^(kprofile|tuning_codegen)(\.\w+)+:\w+$")
    for path in sorted((PROJECT / "kprofile").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        strings = [
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        ]
        assert [s for s in strings if spelled.match(s)] == [], path


def test_every_mode_and_view_row_holds_its_functions() -> None:
    """A new mode is one row and one module, a new view one row and one function:
    each mode's handler is the ``run`` of ``modes/<name>.py``, each view's builder a
    function of ``modes/views*.py`` taking a file's groups and the flag's value."""
    from kprofile.modes import MODES, VIEWS

    for mode in MODES:
        assert (mode.handler.__module__, mode.handler.__name__) == (
            f"kprofile.modes.{mode.name}",
            "run",
        )
        assert callable(mode.request) and callable(mode.given)
    assert len({m.name for m in MODES}) == len(MODES)
    for view in VIEWS:
        builder = view.builder
        assert inspect.isfunction(builder), view.flag
        assert builder.__module__.startswith("kprofile.modes.views"), view.flag
        parameters = inspect.signature(builder).parameters
        kinds = [p.kind for p in parameters.values()]
        assert kinds == [
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            inspect.Parameter.KEYWORD_ONLY,
        ], view.flag
        assert view.kind in ("shows", "rows", "config")
    assert len({v.flag for v in VIEWS}) == len(VIEWS)


MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 50


def test_modules_and_functions_are_small() -> None:
    """No module of either package over 300 lines, no function over 50 (decorators
    and docstrings included)."""
    long: list[str] = []
    for module, path in MODULES.items():
        source = path.read_text(encoding="utf-8")
        lines = len(source.splitlines())
        if lines > MAX_MODULE_LINES:
            long.append(f"{module}: {lines} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.end_lineno is not None
                size = node.end_lineno - node.lineno + 1
                if size > MAX_FUNCTION_LINES:
                    long.append(f"{module}.{node.name}: {size} lines")
    assert long == []


def test_modes_hold_no_solver() -> None:
    """The modes are handlers and sections: solvers (scipy, HiGHS) and their models
    live in core/."""
    for path in sorted((PROJECT / "kprofile" / "modes").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not any(n.split(".")[0] in ("scipy", "highspy") for n in names), path


def test_there_is_no_top_level_hooks_package() -> None:
    assert not (PROJECT / "hooks" / "__init__.py").exists()
    assert [p.name for p in (PROJECT / "hooks").iterdir() if p.suffix == ".py"] == []
