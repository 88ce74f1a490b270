"""The paper's MS-COCO experiment (Zhao & Chang, 2020, Sec. 4.2), as reported: not run offline.

The second task of the paper is object classification on MS-COCO images with a gender label
taken from the captions (a ResNet-50 pre-trained on ImageNet, the model of Wang et al., 2019).
Neither the images nor the pretrained ResNet-50 are available offline, so the book shows the
paper's numbers (:func:`mscoco_table`) and says it could not test them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

__all__ = ["NOT_TESTABLE", "mscoco_table"]

#: The status of every row of :func:`mscoco_table`.
NOT_TESTABLE = "not testable offline: no MS-COCO images, no pretrained ResNet-50"


def mscoco_table(paper: Mapping[str, Any]) -> pd.DataFrame:
    """The paper's MS-COCO numbers (``load_reported("zhao2020logan")``), one row per quantity.

    What a run would need (the ``full`` profile, if a user has the data): no image pipeline,
    only arrays the LOGAN estimator already takes. For each object with more than 100 test
    images, the image features as an ``(n, d)`` array from any image encoder (the paper: the
    ResNet-50's features; any encoder's pooled features will do, the choice to be stated beside
    the results), the object's true and predicted presence per image (``y_true``, ``y_pred``)
    and the image's gender attribute from its captions (``group``: male / female, images
    without one left out). Then, per object, :class:`~nlpbias.studies.logan.estimator.LOGAN`
    and K-Means (``lam=0``) fitted on those rows give the per-object largest gap, BCR, BIR and
    inertia ratio (:func:`~nlpbias.studies.logan.summaries.compare_with_kmeans`); the rows
    below are the count of objects with a gap of at least 5 points under each method and the
    averages over the objects.

    Returns
    -------
    pandas.DataFrame
        Index ``quantity``; columns ``Global``, ``K-Means``, ``LOGAN`` (as reported; "" where
        the paper gives no number for that method) and ``status``
        (:data:`NOT_TESTABLE`). ``attrs["setting"]`` describes the experiment.

    Examples
    --------
    >>> from nlpbias.data.reported import load_reported
    >>> t = mscoco_table(load_reported("zhao2020logan"))
    >>> t.loc["objects with a gap >= 5 points (of 26)", ["Global", "K-Means", "LOGAN"]].tolist()
    ['14', '19', '21']
    """
    if "mscoco" not in paper:
        raise ValueError(
            "paper has no 'mscoco' entry; pass load_reported('zhao2020logan') from a checkout "
            "whose data/reported/zhao2020logan.yaml has it"
        )
    m = paper["mscoco"]

    def num(x: Any, digits: int) -> str:
        return f"{float(x):.{digits}f}"

    n_obj = int(m["n_objects"])
    gap = m["objects_with_5pt_gap"]
    rows = {
        f"objects with a gap >= 5 points (of {n_obj})": {k: str(int(v)) for k, v in gap.items()},
        "inertia ratio, LOGAN ÷ K-Means (mean over objects)": {
            "K-Means": "1.000",
            "LOGAN": num(m["inertia_ratio"], 3),
        },
        "BCR (%, mean over objects)": {k: num(v, 1) for k, v in m["BCR"].items()},
        "BIR (%, mean over objects)": {k: num(v, 1) for k, v in m["BIR"].items()},
        "classifier mAP, dev / test (%)": {
            "Global": f"{num(m['mAP']['dev'], 1)} / {num(m['mAP']['test'], 1)}"
        },
    }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out = out.reindex(columns=["Global", "K-Means", "LOGAN"]).fillna("")
    out["status"] = NOT_TESTABLE
    out.index.name = "quantity"
    img = m["images"]
    out.attrs["setting"] = (
        f"MS-COCO images with a gender label from the captions ({img['train']:,} train, "
        f"{img['dev']:,} dev, {img['test']:,} test); ResNet-50 object classifier (person "
        f"excluded); the {n_obj} objects with more than 100 test images"
    )
    return out
