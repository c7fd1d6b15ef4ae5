"""Hand-checked records (tests/records/) written from the rule book and the record format
alone, independently of the engine: ``verify`` must print exactly what each
``.expected.json`` says.

Messages are free text, so an expected message ``"*"`` only asks for a non-empty one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backalley.record import verify

RECORDS = Path(__file__).parent / "records"
CASES = sorted(p for p in RECORDS.glob("*.json") if not p.name.endswith(".expected.json"))


def _masked(output: dict) -> dict:
    """The output with the error message replaced by ``"*"`` once checked non-empty."""
    output = json.loads(json.dumps(output))
    error = output.get("error")
    if error is not None:
        assert isinstance(error.get("message"), str) and error["message"].strip()
        error["message"] = "*"
    return output


def test_there_are_enough_golden_records():
    assert len(CASES) >= 15


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_verify_matches_the_hand_checked_output(path: Path):
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    verdict = verify(path.read_bytes())
    assert verdict.exit_code == expected["exit"]
    assert _masked(verdict.output) == expected["output"]
