"""Tests for nlpbias.studies.scoring.seed_verdicts (the chapter's statements under the rule)."""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest
from scoring_seed_planted import planted_long as _long

from nlpbias.studies.scoring import seed_verdicts as mod
from nlpbias.studies.scoring import study
from nlpbias.studies.scoring.seed_verdicts import SHARED_SHIFT, planted_seed_shift, seed_statements
from nlpbias.studies.scoring.seeds import seed_spread_table


@pytest.fixture(scope="module")
def fws() -> list[study.Framework]:
    return study.frameworks()


def test_doctests() -> None:
    assert doctest.testmod(mod, raise_on_error=False).failed == 0


# ----------------------------------------------------------------------------- statements
def test_seed_statements_follow_the_rule() -> None:
    text = seed_statements(seed_spread_table(_long()))
    lines = text.splitlines()
    assert lines == [
        "Under the rule, over 3 fine-tuning seeds (0, 1, 2):",
        "- **Trump**'s model is, beyond the seed spread, more pro-male than the base model on "
        "career (mean Δ −0.330, range 0.060) and the average (−0.210, 0.020). On family, the "
        "difference is not larger than the seed-to-seed spread: it does not count.",
        "- **Clinton**'s model is, beyond the seed spread, more pro-female than the base model "
        "on family (mean Δ 0.310, range 0.020). On career and the average, the differences are "
        "not larger than the seed-to-seed spread: they do not count.",
    ]
    none = _long().assign(difference=lambda d: d["difference"] * np.where(d["seed"] == 1, -1, 1))
    assert "- **Trump**'s model differs from the base model on no concept." in seed_statements(
        seed_spread_table(none)
    )


def test_seed_statements_with_one_seed_claim_nothing() -> None:
    text = seed_statements(seed_spread_table(_long(seeds=(0,))))
    assert "no person effect is claimed" in text and "fine_tune_seeds" in text


# ----------------------------------------------------------------------------- planted check
def _planted(leader: list[float], follower: list[float]) -> pd.DataFrame:
    rows = []
    for s, (lead, fol) in enumerate(zip(leader, follower, strict=True)):
        for concept, base, d in (("leader", -0.2, lead), ("follower", -0.1, fol)):
            rows.append({"person": "planted", "seed": s, "concept": concept, "bias": base + d,
                         "base": base, "difference": d})  # fmt: skip
    return pd.DataFrame(rows)


def test_planted_seed_shift_applies_the_rule_to_the_association() -> None:
    out = planted_seed_shift(_planted([0.3, 0.35], [-0.1, -0.12]), {"concept": "leader"})
    assert out.columns.tolist() == ["seed", "leader", "follower", "leader − follower"]
    np.testing.assert_allclose(out["leader − follower"], [0.4, 0.47])
    small = planted_seed_shift(_planted([0.003, 0.004], [0.0, 0.0]), {"concept": "leader"})
    assert "moved by 0.0030 and 0.0040: mean 0.0035, range 0.0010;" in small.attrs["verdict"]
    assert out.attrs["counts"] is True and out.attrs["as_planted"] is True
    assert out.attrs["verdict"] == (
        "Over the seeds (0, 1) the association leader − follower moved by 0.400 and 0.470: "
        "mean 0.435, range 0.070; under the rule the shift counts, in the planted direction."
    )
    male = planted_seed_shift(
        _planted([0.3, 0.35], [-0.1, -0.12]), {"concept": "leader", "direction": "male"}
    )
    assert male.attrs["counts"] is True and male.attrs["as_planted"] is False
    assert male.attrs["verdict"].endswith("counts, against the planted one.")
    # one seed moves it the other way: within the spread, whatever the mean
    mixed = planted_seed_shift(_planted([0.3, -0.2], [-0.1, 0.1]), {"concept": "leader"})
    assert mixed.attrs["counts"] is False
    assert mixed.attrs["verdict"].endswith("does not count (it is within the seed spread).")
    one = planted_seed_shift(_planted([0.3], [-0.1]), {"concept": "leader"})
    assert one.attrs["counts"] is None and one.attrs["verdict"].endswith("so no verdict.")


def test_planted_seed_shift_needs_the_person(one_line) -> None:
    with pytest.raises(KeyError, match="no rows for person 'you'") as err:
        planted_seed_shift(_planted([0.3], [-0.1]), {}, person="you")
    one_line(err)


def test_seed_statements_name_a_shift_shared_by_a_concept_and_its_opposite(fws) -> None:
    table = seed_spread_table(_long())
    # Trump: career counts, family does not; Clinton: family counts, career does not
    assert "moved together" not in seed_statements(table, fws)
    both = _long().assign(
        difference=lambda d: np.where(
            d["concept"] == "family", -0.5 - 0.01 * d["seed"], d["difference"]
        )
    )
    lines = seed_statements(seed_spread_table(both), fws).splitlines()
    assert lines[1].endswith(
        "The pair career/family (more pro-male) moved together: a shared shift."
    )
    assert "moved together" not in lines[2]  # Clinton's career does not count
    assert lines[-2:] == ["", SHARED_SHIFT]
    assert "moved together" not in seed_statements(seed_spread_table(both))  # no fws, no pairs
