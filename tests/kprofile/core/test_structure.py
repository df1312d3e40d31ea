"""Problem sizes told from tuning parameters by a sweep's structure
(``kprofile.core.structure``), on pickles written the way kbench writes them from a
spec: each group a cartesian product, first key slowest, groups one after another,
failed points left out.

Where the structure decides, the expectation is what the spec's groups say (a key
fixed in each group and changing across them is a problem size), read from the spec
itself; where it cannot, the expectation is written out with why.
"""

from __future__ import annotations

import itertools
import pickle
import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kbench_support import kbench_frame
from support import examples

from kprofile.core.problems import problem
from kprofile.core.structure import file_structure
from kprofile.inputs.load import load_results
from kprofile.inputs.specroles import spec_roles

Groups = Sequence[Mapping[str, Any]]
TILES = {"BM": [16, 32], "BN": [32, 64]}


def kbench_rows(
    groups: Groups, fails: Callable[[dict], bool] = lambda r: False
) -> list[dict]:
    """The points of ``groups`` in kbench's order, those ``fails`` picks left out."""
    rows = []
    for group in groups:
        lists = [v if isinstance(v, list) else [v] for v in group.values()]
        for values in itertools.product(*lists):
            row = dict(zip(group, values))
            if not fails(row):
                rows.append({**row, "met (ms)": random.Random(len(rows)).random()})
    return rows


def structure_of(kb_write: Callable[..., Path], groups: Groups, **kw: Any) -> Any:
    results = load_results(str(kb_write("run.pkl", kbench_rows(groups, **kw))))
    return file_structure(results), problem([results])


def spec_sizes(groups: Groups) -> tuple[str, ...]:
    return spec_roles({"params": list(groups)}, "spec.yaml").structure.sizes


DECIDED = {
    # one group per problem, each with its own $M list
    "own M lists": [
        {"$M": [16, 64, 128], "N": 256, "K": 128, **TILES},
        {"$M": [32, 96], "N": 512, "K": 64, **TILES},
    ],
    # two problems over one $M list: N, K change only with the group
    "one M list": [
        {"$M": [16, 64, 128], "N": 256, "K": 256, **TILES},
        {"$M": [16, 64, 128], "N": 512, "K": 128, **TILES},
    ],
    # a group per shape, the problems one after another: the $M blocks nest in N's
    "a group per shape": [
        {"$M": m, "N": n, "K": k, **TILES}
        for n, k in ((4096, 4096), (8192, 2048))
        for m in (16, 64, 256)
    ],
    # names with no GEMM meaning: the structure alone
    "other names": [
        {"$M": [16, 64, 128], "P": 256, "Q": 256, **TILES, "ST": [2, 3]},
        {"$M": [16, 64, 128], "P": 512, "Q": 128, **TILES, "ST": [2, 3]},
    ],
}


@pytest.mark.parametrize("layout", list(DECIDED))
def test_the_structure_finds_what_the_spec_says(
    kb_write: Callable[..., Path], layout: str
) -> None:
    found, _ = structure_of(kb_write, DECIDED[layout])
    assert (found.sizes, found.unsure) == (spec_sizes(DECIDED[layout]), ())


def test_failed_points_do_not_make_a_tile_a_problem_size(
    kb_write: Callable[..., Path],
) -> None:
    """BM=32 fails at M=16 (kbench leaves it out): BM=16's rows run on from M=16's
    block into M=64's, as a problem size's would; but BM changes inside M=64's."""
    groups = [{"$M": [16, 64, 128], "N": 512, "K": 128, **TILES}]
    found, shape = structure_of(
        kb_write, groups, fails=lambda r: (r["$M"], r["BM"]) == (16, 32)
    )
    assert (found.sizes, found.unsure, found.constant) == ((), (), ("N", "K"))
    assert (shape.keys, shape.fixed) == (("M",), ("N", "K"))


def test_rows_out_of_kbench_order_are_read_in_mesh_order(
    kb_write: Callable[..., Path],
) -> None:
    """A pickle whose merged_df is not sorted (kbench's workers finish out of
    order): the rows are read by mesh_idx."""
    rows = kbench_rows(DECIDED["other names"])
    path = kb_write("run.pkl", rows)
    payload = pickle.loads(path.read_bytes())
    payload["merged_df"] = payload["merged_df"].sample(frac=1, random_state=3)
    path.write_bytes(pickle.dumps(payload))
    assert file_structure(load_results(str(path))).sizes == ("P", "Q")


UNDECIDED = [
    # groups per shape sorted by M: N, K change inside an M's block, as a slowest
    # tile would; without a GEMM's names the results cannot tell
    (
        [{"$M": m, "P": p, "Q": q, **TILES} for m in (16, 64) for p, q in ((1, 2), (3, 4))],
        ((), ("P", "Q")),
    ),
    # a rule that ties two tiles together (BM == BN) looks the same: unsure, never
    # merged, and said
    (
        [{"$M": [16, 64], "N": 256, "K": 128, "BM": [16, 32], "BN": [16, 32],
          "ST": [2, 3]}],
        ((), ("BM", "BN")),
    ),
]  # fmt: skip


@pytest.mark.parametrize(("groups", "expected"), UNDECIDED)
def test_what_the_structure_cannot_tell_is_unsure(
    kb_write: Callable[..., Path], groups: Groups, expected: tuple[Any, Any]
) -> None:
    fails = (lambda r: r["BM"] != r["BN"]) if "ST" in groups[0] else (lambda r: False)
    found, shape = structure_of(kb_write, groups, fails=fails)
    assert (found.sizes, found.unsure) == expected
    assert set(expected[1]) <= set(shape.keys)  # taken as part of the problem


def test_gemm_names_settle_what_the_structure_cannot(
    kb_write: Callable[..., Path],
) -> None:
    groups = [
        {"$M": m, "N": n, "K": k, **TILES}
        for m in (16, 64)
        for n, k in ((4096, 4096), (8192, 2048))
    ]
    found, _ = structure_of(kb_write, groups)
    assert (found.sizes, found.unsure) == (("N", "K"), ())


def test_a_one_problem_sweep_holds_its_sizes_fixed(
    kb_write: Callable[..., Path],
) -> None:
    found, shape = structure_of(
        kb_write, [{"$M": [16, 64], "N": 256, "K": 128, **TILES}]
    )
    assert (found.sizes, shape.keys, shape.fixed) == ((), ("M",), ("N", "K"))


@st.composite
def problem_specs(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Specs of two to four problems, a group each: $M first (a list), two sizes
    with no GEMM names (fixed in the group; the first one of its own in each
    problem, the second any), then two to three tiles, lists of one to three
    values. (Problems that share both a first size and the $M list look, without a
    GEMM name to go by, like tiles swept under the runtime values: ``UNDECIDED``.)"""
    count = draw(st.integers(2, 4))
    firsts = draw(st.lists(st.integers(1, 9), min_size=count, max_size=count,
                           unique=True))  # fmt: skip
    seconds = draw(st.lists(st.integers(1, 9), min_size=count, max_size=count))
    sizes = list(zip(firsts, seconds))
    tiles = {
        f"T{i}": draw(st.lists(st.integers(1, 4), min_size=1, max_size=3, unique=True))
        for i in range(draw(st.integers(2, 3)))
    }
    tiles["T0"] = tiles["T0"] + [99] if len(tiles["T0"]) == 1 else tiles["T0"]
    ms = st.lists(st.integers(1, 6), min_size=2, max_size=4, unique=True)
    return [{"$M": draw(ms), "P": p, "Q": q, **tiles} for p, q in sizes]


@settings(max_examples=examples(40), deadline=None)
@given(groups=problem_specs())
def test_the_structure_agrees_with_the_spec_on_any_per_problem_spec(
    tmp_path_factory: pytest.TempPathFactory, groups: list[dict[str, Any]]
) -> None:
    path = tmp_path_factory.mktemp("spec") / "run.csv"  # kbench's CSV: its order
    kbench_frame(kbench_rows(groups)).drop(columns="mesh_idx").to_csv(path, index=False)
    found = file_structure(load_results(str(path)))
    expected = spec_sizes(groups)
    assert set(found.sizes) | set(found.unsure) == set(expected)
