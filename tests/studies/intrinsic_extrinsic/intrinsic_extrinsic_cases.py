"""A fake scores frame for the correlation and paper-table tests (imported as
``intrinsic_extrinsic_cases``)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def fake_scores(rng: np.random.Generator) -> pd.DataFrame:
    """A coref family whose extracted-set WEAT tracks the extrinsic gap, generic WEAT does not."""
    rows = []
    for modset in ("extracted", "weat"):
        for k in range(8):
            bias = rng.normal()
            row = {
                "method": "balance",
                "modset": modset,
                "family": "coref",
                "algorithm": "word2vec",
                "id": f"{modset}{k}",
            }
            row["intrinsic:extracted:weat"] = bias
            row["intrinsic:extracted:rnsb"] = rng.normal()
            for w in ("weat6", "weat7", "weat8"):
                row[f"intrinsic:{w}:weat"] = rng.normal()
                row[f"intrinsic:{w}:rnsb"] = rng.normal()
            for v in ("type1", "type2"):
                for m in ("precision", "recall", "f1"):
                    row[f"extrinsic:{v}_{m}"] = 2 * bias + 0.01 * rng.normal()
            rows.append(row)
    orig = dict(rows[0], method="original", modset=np.nan, id="orig")
    return pd.DataFrame([orig, *rows])
