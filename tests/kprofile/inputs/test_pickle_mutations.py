"""Random byte mutations of valid pickles decode to a frame or are refused cleanly.

Every case runs in a child process (tests/pickle_worker.py, under memory and CPU
limits), so a segfault or a hang fails the test instead of the test run. A seeded batch
covers a few hundred mutations in one process; the hypothesis test keeps one worker
alive across examples (restarting it after a crash, so the failing example can shrink)
with 25 examples by default and 400 when HYPOTHESIS_PROFILE=ci (the batch then has
2000 mutations instead of 240).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hostile_pickles
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TESTS = Path(__file__).parents[2]
FIXTURES = TESTS.parent / "fixtures"
SEEDS = {
    "generated": hostile_pickles.VALID,
    "generated-tz": hostile_pickles.VALID_TZ,
    "pandas3-bare": (
        FIXTURES / "pickles/pandas3.1-numpy2.4/bare_protocol5.pkl"
    ).read_bytes(),
    "pandas2.0-p2": (
        FIXTURES / "pickles/pandas2.0-numpy1.24/dtypes_protocol2.pkl"
    ).read_bytes(),
    "pandas2.3-p0": (
        FIXTURES / "pickles/pandas2.3-numpy1.26/dtypes_protocol0.pkl"
    ).read_bytes(),
    "kbench-p4": (FIXTURES / "pandas2/kbench_protocol4.pkl").read_bytes(),
}
RAN = ("os.", "subprocess", "exec", "import", "pickle.find_class", "ctypes")
settings.register_profile(
    "pickle-mutations",
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "pickle-mutations-ci",
    parent=settings.get_profile("pickle-mutations"),
    max_examples=400,
)
PROFILE = settings.get_profile(
    "pickle-mutations-ci"
    if os.environ.get("HYPOTHESIS_PROFILE") == "ci"
    else "pickle-mutations"
)

BATCH = 2000 if os.environ.get("HYPOTHESIS_PROFILE") == "ci" else 240
Mutation = tuple[str, int, int, bytes]


def mutate(data: bytes, mutations: list[Mutation]) -> bytes:
    """Apply (kind, position, size, new bytes) edits: flip, set, insert, delete, cut."""
    out = bytearray(data)
    for kind, position, size, extra in mutations:
        at = position % (len(out) + 1)
        if kind == "flip" and at < len(out):
            out[at] ^= 1 << (size % 8)
        elif kind == "set" and at < len(out):
            out[at] = extra[0]
        elif kind == "insert":
            out[at:at] = extra
        elif kind == "delete":
            del out[at : at + size]
        elif kind == "cut":
            del out[at:]
    return bytes(out)


def random_mutations(rng: random.Random) -> list[Mutation]:
    kinds = ("flip", "set", "insert", "delete", "cut")
    return [
        (
            rng.choice(kinds),
            rng.randrange(1 << 20),
            rng.randrange(1, 17),
            rng.randbytes(rng.randrange(1, 9)),
        )
        for _ in range(rng.choice((1, 1, 1, 2, 3)))
    ]


def check(answer: dict[str, Any]) -> None:
    assert answer["outcome"] in ("loaded", "refused"), answer
    if answer["outcome"] == "refused":
        assert answer["message"].startswith(f"Invalid pkl [{answer['path']}]: "), answer
        assert "MemoryError" not in answer["message"], answer
    ran = [e for e in answer["events"] if e[0].startswith(RAN)]
    assert ran == [], answer


class Worker:
    """One pickle_worker process, restarted after it dies."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None

    def ask(self, path: Path) -> dict[str, Any]:
        if self.process is None or self.process.poll() is not None:
            env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
            self.process = subprocess.Popen(
                [sys.executable, str(TESTS / "pickle_worker.py")],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
            )  # fmt: skip
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(f"{path}\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            code = self.process.wait()
            raise AssertionError(f"the worker died (exit {code}) on {path}")
        return json.loads(line)  # type: ignore[no-any-return]

    def close(self) -> None:
        if self.process is not None and self.process.stdin:
            self.process.stdin.close()
            self.process.wait(timeout=60)


@pytest.fixture(scope="module")
def worker() -> Iterator[Worker]:
    running = Worker()
    yield running
    running.close()


@pytest.mark.slow  # a property run, or a real process under a limit
def test_a_seeded_batch_of_mutations_never_crashes(
    tmp_path: Path, worker: Worker
) -> None:
    rng = random.Random(20250304)
    paths = []
    for number in range(BATCH):
        name = rng.choice(sorted(SEEDS))
        path = tmp_path / f"{number:03d}-{name}.pkl"
        path.write_bytes(mutate(SEEDS[name], random_mutations(rng)))
        paths.append(path)
    outcomes = set()
    for path in paths:
        answer = worker.ask(path)
        check(answer)
        outcomes.add(answer["outcome"])
    assert outcomes == {"loaded", "refused"}  # the batch exercises both paths


mutations = st.lists(
    st.tuples(
        st.sampled_from(("flip", "set", "insert", "delete", "cut")),
        st.integers(0, 1 << 20),
        st.integers(1, 16),
        st.binary(min_size=1, max_size=8),
    ),
    min_size=1,
    max_size=4,
)


@settings(PROFILE)
@given(seed=st.sampled_from(sorted(SEEDS)), edits=mutations)
def test_any_mutation_decodes_or_is_refused_cleanly(
    tmp_path: Path, worker: Worker, seed: str, edits: list[Mutation]
) -> None:
    path = tmp_path / "mutated.pkl"
    path.write_bytes(mutate(SEEDS[seed], edits))
    check(worker.ask(path))
