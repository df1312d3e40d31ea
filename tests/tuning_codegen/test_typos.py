"""A warning for a key that looks like a typo of a placeholder.

It fires on a key the entry writes itself, used by no placeholder, close to one the
entry does not set (left to a merge key, or missing); it stays silent on the tables
the project ships and on tables shaped as Modular's real ones are (the keys
``name``, ``dtype``, ``AUTOTUNING_MODE``, ``TUNE_GRID_DIM_X`` ... no placeholder uses).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import BIN, PROJECT, Hooked, env_for, local_hook

from tuning_codegen.typos import close_name

TOOL = str(BIN / "tuning-codegen")


def codegen(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TOOL, "--manifest", "m.yaml", "--snippet", "s.snippet", "--target", "t.mojo",
         "--begin-marker", "BEGIN-T", "--end-marker", "END-T", *extra],
        cwd=folder, capture_output=True, text=True, check=False,
    )  # fmt: skip


@pytest.fixture
def table(tmp_path: Path) -> Path:
    (tmp_path / "s.snippet").write_text(
        "Cfg(M=[@M], cluster=[@CLUSTER], stages=[@NUM_STAGES])\n"
    )
    (tmp_path / "t.mojo").write_text("# BEGIN-T\n# END-T\n")
    return tmp_path


DEFAULTS = "defaults: &defaults\n  CLUSTER: 1\n  NUM_STAGES: 4\nparams:\n"


@pytest.mark.parametrize(
    ("entry", "key", "meant"),
    [
        ("  CLUSTR: 2\n", "CLUSTR", "CLUSTER"),  # a letter left out
        ("  CLUSTRE: 2\n", "CLUSTRE", "CLUSTER"),  # two letters swapped
        ("  cluster: 2\n", "cluster", "CLUSTER"),  # case
        ("  NUM_STAGE: 3\n", "NUM_STAGE", "NUM_STAGES"),
        ("  NUM_STGES_: 3\n", "NUM_STGES_", "NUM_STAGES"),  # two edits
    ],
)
def test_a_typo_under_a_merge_key_warns_at_its_line(
    table: Path, entry: str, key: str, meant: str
) -> None:
    (table / "m.yaml").write_text(f"{DEFAULTS}- <<: *defaults\n  M: 1\n{entry}")
    warning = (
        f"m.yaml:7: warning: key '{key}' is used by no placeholder; "
        f"did you mean '{meant}'?\n"
    )
    done = codegen(table)  # the default renders, as the reference renders it
    assert (done.returncode, done.stderr) == (0, warning)
    assert "Cfg(M=1, cluster=1, stages=4)," in (table / "t.mojo").read_text()
    done = codegen(table, "--check")  # exit codes unchanged: fresh is 0
    assert (done.returncode, done.stdout, done.stderr) == (0, "", warning)


def test_a_typo_of_a_missing_placeholder_is_a_hint_in_the_error(table: Path) -> None:
    (table / "m.yaml").write_text("params:\n- M: 1\n  NUM_STAGES: 2\n  CLUSTR: 2\n")
    done = codegen(table)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "m.yaml:2: error: params[0]: Missing snippet parameters: CLUSTER; key "
        "'CLUSTR' (line 4) is used by no placeholder: did you mean 'CLUSTER'?\n"
    )


@pytest.mark.parametrize(
    "entry",
    [
        "  CLUSTR: 2\n  CLUSTER: 2\n",  # the entry sets CLUSTER itself
        "  N: 2\n",  # a one-letter key is no BN left half written
        "  name: bench\n  dtype: bf16\n  AUTOTUNING_MODE: true\n",
        "  _template: null\n",
    ],
)
def test_keys_that_are_not_typos_stay_silent(table: Path, entry: str) -> None:
    (table / "s.snippet").write_text("Cfg([@M], [@BN], [@CLUSTER], [@NUM_STAGES])\n")
    (table / "m.yaml").write_text(
        DEFAULTS.replace("  CLUSTER: 1\n", "  CLUSTER: 1\n  BN: 8\n")
        + f"- <<: *defaults\n  M: 1\n{entry}"
    )
    done = codegen(table)
    assert (done.returncode, done.stderr) == (0, "")


def test_the_shipped_tables_are_silent(tmp_path: Path) -> None:
    """fixtures/codegen (three tables, both anchor styles) and the walkthrough's
    table, as the docs run it."""
    codegen_dir = tmp_path / "codegen"
    shutil.copytree(PROJECT / "fixtures" / "codegen", codegen_dir)
    check = subprocess.run([TOOL, "--config", ".tuning-codegen.yaml", "--check"],
                           cwd=codegen_dir, capture_output=True, text=True)  # fmt: skip
    assert (check.returncode, check.stderr) == (0, "")
    walk = tmp_path / "walk"
    shutil.copytree(PROJECT / "fixtures" / "walkthrough", walk)
    done = subprocess.run([TOOL, "--check", "--config", ".tuning-codegen.yaml"], cwd=walk,
                          capture_output=True, text=True)  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")


# Shaped as Modular's tables are (max/kernels/src/linalg/matmul/gpu/...): the anchors,
# the keys and the placeholders of their snippets, a few entries each.
SM90_SNIPPET = """\
TuningConfigSM90(
    M=[@M], N=[@N], K=[@K],
    mma_shape=IndexList[3](64, [@TUNE_WGMMA_N], mma_k),
    block_tile_shape=Index(64 * [@TUNE_NUM_CONSUMER], [@TUNE_WGMMA_N], BK),
    cluster_shape=Index([@TUNE_CLUSTER_DIM_X], [@TUNE_CLUSTER_DIM_Y], 1),
    num_pipeline_stages=[@TUNE_NUM_PIPELINE_STAGES],
    partitioned_multicast=[@TUNE_PARTITIONED_MULTICAST],
    GRID
    schedule=MatmulSchedule([@TUNE_SCHEDULE_TYPE]),
    splits=OptionalReg[Int]([@TUNE_SPLITS]) if [@TUNE_IS_SPLITK] else None,
DISPATCH)
"""
GRID = "grid_shape=Index([@TUNE_GRID_DIM_X], H100.sm_count // [@TUNE_GRID_DIM_X]),"
SM90_ENTRY = """\
  TUNE_CLUSTER_DIM_X: 1
  TUNE_CLUSTER_DIM_Y: 1
  TUNE_NUM_PIPELINE_STAGES: 8
  TUNE_NUM_CONSUMER: 1
  TUNE_PARTITIONED_MULTICAST: false
  TUNE_WGMMA_N: 128
"""
SM90 = f"""\
name: bench_matmul
file: $KERNEL_BENCHMARKS_ROOT/gpu/linalg/bench_matmul.mojo
common: &common
- name: bench_matmul
  AUTOTUNING_MODE: true
  TUNE_SPLITS: 2
custom: &custom
- name: bench_matmul
  AUTOTUNING_MODE: true
  TUNE_SPLITS: 2
  _template: custom
  TUNE_GRID_DIM_X: 1
  TUNE_IS_SPLITK: false
  TUNE_SCHEDULE_TYPE: 0
params:
- <<: *common
{SM90_ENTRY}  TUNE_GRID_DIM_X: 132
  TUNE_LARGE_GEMM_SHAPE: false
  TUNE_IS_SPLITK: false
  TUNE_SCHEDULE_TYPE: 3
  M: 1
  K: 2560
  N: 5120
- <<: *custom
{SM90_ENTRY}  DISPATCH_GROUP: 1
  M: 3072
  K: 5376
  N: 8192
- <<: *custom
  _template: custom_grid
{SM90_ENTRY}  DISPATCH_GROUP: 4
  TUNE_GRID_DIM_X: 16
  TUNE_SCHEDULE_TYPE: 2
  M: 3072
  K: 5376
  N: 43008
"""
SM100_SNIPPET = """\
TuningConfigSM100(
    M=[@M], N=[@N], K=[@K],
    block_tile_shape=Index([@TUNE_BM], [@TUNE_BN], bk),
    cluster_shape=Index([@TUNE_CLUSTER_DIM_X], [@TUNE_CLUSTER_DIM_Y], 1),
    block_swizzle_size=[@TUNE_BLOCK_SWIZZLE_SIZE],
    rasterize_order=RasterOrder([@TUNE_RASTER_ORDER]),
)
"""
SM100_RANGED = SM100_SNIPPET.replace("    M=[@M],", "    M=[@M], M_end=[@M_END],")
SM100 = """\
common: &common
- name: bench_matmul
  AUTOTUNING_MODE: true
  TUNE_CLUSTER_DIM_Z: 1
  TUNE_RASTER_ORDER: 1
  dtype: DType.float8_e4m3fn
params:
- <<: *common
  TUNE_BM: 64
  TUNE_BN: 64
  TUNE_CLUSTER_DIM_X: 2
  TUNE_CLUSTER_DIM_Y: 1
  TUNE_BLOCK_SWIZZLE_SIZE: 2
  M: 150
  K: 16384
  N: 2304
- <<: *common
  _template: ranged
  M: 7000
  M_END: 7000 + 32
  N: 43008
  K: 5376
  TUNE_BM: 128
  TUNE_BN: 256
  TUNE_CLUSTER_DIM_X: 2
  TUNE_CLUSTER_DIM_Y: 1
  TUNE_BLOCK_SWIZZLE_SIZE: 0
"""
BF16_SNIPPET = """\
TuningConfigSM100(
    M=[@M], M_end=[@M_END], N=[@N], K=[@K],
    mma_shape=Index([@MMA_M], [@MMA_N], [@MMA_K]),
    cta_group=[@CTA_GROUP],
    cluster_shape=Index([@CLUSTER_X], [@CLUSTER_Y], [@CLUSTER_Z]),
    swapAB=[@SWAP_AB], k_group_size=[@K_GROUP_SIZE],
    num_clc_pipeline_stages=[@NUM_CLC_PIPELINE_STAGES],
    num_pipeline_stages=[@NUM_PIPELINE_STAGES],
)
"""
BF16 = """\
defaults: &defaults
  MMA_K: 16
  CTA_GROUP: 2
  CLUSTER_Z: 1
  SWAP_AB: false
  K_GROUP_SIZE: 1
  NUM_CLC_PIPELINE_STAGES: 2
  NUM_PIPELINE_STAGES: 0
params:
- <<: *defaults
  M: 256
  M_END: 320
  N: 20480
  K: 5376
  MMA_M: 128
  MMA_N: 224
  CLUSTER_X: 2
  CLUSTER_Y: 1
- <<: *defaults
  M: 32
  M_END: 33
  N: 1536
  K: 1536
  MMA_M: 64
  MMA_N: 8
  CTA_GROUP: 1
  CLUSTER_X: 2
  CLUSTER_Y: 4
  SWAP_AB: true
  K_GROUP_SIZE: 4
  NUM_CLC_PIPELINE_STAGES: 0
"""


@pytest.mark.parametrize(
    ("manifest", "snippets"),
    [
        (SM90, {"s.snippet": SM90_SNIPPET.replace("GRID", GRID).replace("DISPATCH", ""),
                "custom.snippet": SM90_SNIPPET.replace("GRID", "grid_shape=None,")
                .replace("DISPATCH", "    dispatch_group=TuningGroup([@DISPATCH_GROUP]),\n"),
                "custom_grid.snippet": SM90_SNIPPET.replace("GRID", GRID)
                .replace("DISPATCH", "    dispatch_group=TuningGroup([@DISPATCH_GROUP]),\n")}),
        (SM100, {"s.snippet": SM100_SNIPPET, "ranged.snippet": SM100_RANGED}),
        (BF16, {"s.snippet": BF16_SNIPPET}),
    ],
    ids=["sm90-bf16", "sm100-fp8", "sm100-bf16"],
)  # fmt: skip
def test_tables_shaped_as_modulars_are_silent(
    tmp_path: Path, manifest: str, snippets: dict[str, str]
) -> None:
    (tmp_path / "m.yaml").write_text(manifest)
    (tmp_path / "t.mojo").write_text("# BEGIN-T\n# END-T\n")
    variants = []
    for name, text in snippets.items():
        (tmp_path / name).write_text(text)
        if name != "s.snippet":
            variants += ["--snippet-variant", f"{name.split('.')[0]}={name}"]
    done = codegen(tmp_path, *variants)
    assert (done.returncode, done.stderr) == (0, "")
    if "TUNE_RASTER_ORDER" in manifest:  # the same table with a typo: it warns
        typo = manifest.replace(
            "  TUNE_BM: 64\n", "  TUNE_BM: 64\n  TUNE_RASTR_ORDER: 0\n"
        )
        (tmp_path / "m.yaml").write_text(typo)
        done = codegen(tmp_path, *variants)
        assert (done.returncode, done.stderr) == (
            0,
            "m.yaml:10: warning: key 'TUNE_RASTR_ORDER' is used by no placeholder; "
            "did you mean 'TUNE_RASTER_ORDER'?\n",
        )


@pytest.mark.parametrize(
    ("key", "names", "meant"),
    [
        ("CLUSTR", ("CLUSTER", "CLUSTER_N"), "CLUSTER"),
        ("m", ("M",), "M"),
        ("BM", ("BN",), "BN"),  # two letters: one edit
        ("BKK", ("BK", "BM", "BN"), "BK"),
        ("bk", ("BK",), "BK"),
        ("K", ("BK",), None),  # a one-letter key: case only
        ("MM", ("M",), None),  # a one-letter name: case only
        ("MMA", ("MMB",), "MMB"),
        ("TILE_X", ("TILE_M", "TILE_N"), "TILE_M"),  # the first of two as close
        ("TUNE_GRID_DIM_X", ("TUNE_CLUSTER_DIM_X", "TUNE_SPLITS"), None),
        ("AUTOTUNING_MODE", ("TUNE_SPLITS",), None),
        ("dtype", ("M", "N", "K"), None),
    ],
)
def test_close_name(key: str, names: tuple[str, ...], meant: str | None) -> None:
    assert close_name(key, names) == meant


SM90 = "kernels/tuning_table_sm90_fp8.yaml"
BKK = f"{SM90}:17: warning: key 'BKK' is used by no placeholder; did you mean 'BK'?"


def two_letter_typo(repo: Any) -> None:
    """``BKK: 64`` meant as the entry's ``BK``: the defaults' ``BK: 128`` renders, so
    the region does not even change."""
    repo.edit(SM90, "  BN: 112\n", "  BN: 112\n  BKK: 64\n")


@pytest.mark.parametrize("hook", [[], ["--hook"]])
def test_a_two_letter_typo_warns_in_every_format(
    codegen_repo: Any, hook: list[str]
) -> None:
    two_letter_typo(codegen_repo)
    codegen_repo.git("add", SM90)
    for fmt in ("text", "github", "json"):
        done = subprocess.run([TOOL, *hook, "--check", "--format", fmt],
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert (done.returncode, done.stderr) == (0, BKK + "\n"), fmt
        if fmt == "text":
            assert done.stdout == ""
        elif fmt == "github":
            assert done.stdout == (
                f"::warning file={SM90},line=17,title=tuning-codegen warning::key "
                "'BKK' is used by no placeholder; did you mean 'BK'?\n"
            )
        else:
            assert json.loads(done.stdout)["warnings"] == [
                {"path": SM90, "line": 17, "message": BKK.split(": warning: ")[1]}
            ]


def test_a_two_letter_typo_warns_in_the_commit_hook(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    """Real pre-commit shows what a passing hook printed with ``verbose: true``."""
    hook = {**local_hook("tuning-codegen"), "verbose": True}
    config = {"repos": [{"repo": "local", "hooks": [hook]}]}
    codegen_repo.path(".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    codegen_repo.commit_all("pre-commit config")
    hooked = Hooked(codegen_repo, env_for(pre_commit_home))
    assert hooked.pre_commit("install").returncode == 0
    two_letter_typo(codegen_repo)
    codegen_repo.git("add", SM90)
    done = hooked.commit("BK of the first shape")
    assert done.returncode == 0, done.stdout
    assert f"\n{BKK}\n" in done.stdout
