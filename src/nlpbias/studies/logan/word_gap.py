"""The accuracy gap between two groups on the texts that contain one word.

The LOGAN paper opens with it: the gap between black and white groups is 4.8 % on all comments
but 19 % on the comments containing "racist" (Zhao & Chang, 2020, Sec. 1). A word picks one
hand-chosen local region; LOGAN's clusters look for such regions without a word list.
:func:`word_gap` measures one word, :func:`word_gap_table` every attribute of the chapter's data.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from nlpbias.data.identity import term_mask
from nlpbias.studies.logan.group_metrics import check_group_data, group_metrics

__all__ = ["word_gap", "word_gap_table"]


def word_gap(
    texts: Any,
    *,
    y_true: Any,
    y_pred: Any,
    group: Any,
    word: str,
    groups: tuple[Any, Any] | None = None,
) -> dict[str, Any]:
    """Accuracy of each group on the texts containing ``word`` (whole word, any case).

    Parameters
    ----------
    texts : sequence of str
        One text per row of ``y_true``, ``y_pred`` and ``group``.
    y_true, y_pred : array-like
        True and predicted labels.
    group : array-like
        Two group values (rows of other groups: drop them first).
    word : str
        Matched as a whole word, case-insensitively (``"racist"`` matches ``"Racist!"``, not
        ``"racists"``); a multi-word term is allowed.
    groups : (A1, A2), optional
        Fixes the sign of the gap ``A1 - A2`` (default: the two values in sorted order).

    Returns
    -------
    dict
        ``word, n_texts`` (texts containing it), ``n_a1, n_a2, acc_a1, acc_a2`` (accuracy in %),
        ``gap_pts`` (``acc_a1 - acc_a2``), ``abs_gap_pts`` and ``groups``.

    Raises
    ------
    ValueError
        When no text contains ``word``, or none of one group does.

    Examples
    --------
    >>> texts = ["so Racist!", "racist", "racists", "hello", "a racist take"]
    >>> r = word_gap(texts, y_true=[1, 1, 1, 0, 0], y_pred=[1, 0, 0, 0, 0],
    ...              group=["a", "b", "a", "b", "b"], word="racist")
    >>> r["n_texts"], r["n_a1"], r["n_a2"], r["acc_a1"], r["acc_a2"], r["gap_pts"]
    (3, 1, 2, 100.0, 50.0, 50.0)
    """
    if not isinstance(word, str) or not word.strip():
        raise ValueError(f"word must be a non-empty string, got {word!r}")
    texts = list(texts)
    data = check_group_data(y_true, y_pred, group, metric="accuracy", groups=groups)
    if len(texts) != len(data.gcode):
        raise ValueError(
            f"texts has {len(texts)} rows but y_true has {len(data.gcode)}; pass one text per row"
        )
    bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
    if bad:
        raise ValueError(
            f"texts has {len(bad)} non-string values (first at row {bad[0]}); fix them"
        )
    hit = term_mask(texts, [word])[word].to_numpy(bool)
    if not hit.any():
        raise ValueError(
            f"no text contains {word!r} as a whole word (case-insensitive) among {len(texts):,} "
            "texts; pick a word these texts use"
        )
    sub = data._replace(gcode=data.gcode[hit], correct=data.correct[hit])
    metric, size = group_metrics(np.zeros(int(hit.sum()), dtype=np.int64), sub, 1)
    empty = [g for g, n in zip(data.groups, size[0], strict=True) if n == 0]
    if empty:
        raise ValueError(
            f"none of the {int(hit.sum()):,} texts containing {word!r} is in group {empty[0]!r}; "
            "the gap needs both groups: pick another word or use more data"
        )
    acc = 100 * metric[0]
    return {
        "word": word,
        "n_texts": int(hit.sum()),
        "n_a1": int(size[0, 0]),
        "n_a2": int(size[0, 1]),
        "acc_a1": float(acc[0]),
        "acc_a2": float(acc[1]),
        "gap_pts": float(acc[0] - acc[1]),
        "abs_gap_pts": float(abs(acc[0] - acc[1])),
        "groups": data.groups,
    }


#: The numbers :func:`word_gap` returns (columns of :func:`word_gap_table`).
_GAP_KEYS = ("n_texts", "n_a1", "n_a2", "acc_a1", "acc_a2", "gap_pts", "abs_gap_pts")


def word_gap_table(data: Any, *, word: str) -> pd.DataFrame:
    """:func:`word_gap` for every attribute of the chapter's data, beside its global gap.

    Parameters
    ----------
    data : LoganData
        The chapter's rows (:func:`nlpbias.studies.logan.study.load_logan_data`); they need
        texts (the synthetic stand-in has none).

    Returns
    -------
    pandas.DataFrame
        Index ``attribute``; the keys of :func:`word_gap` (NaN where the word gives no gap),
        ``global_gap_pts`` (accuracy gap over all rows of the attribute) and ``note`` (why a
        row has no gap: the message of :func:`word_gap`, ``""`` otherwise).
    """
    if data.texts is None:
        raise ValueError("these rows have no texts (the synthetic stand-in); use real data")
    rows = {}
    for attr in data.groups:
        sub = data.subset(attr)
        pair = data.pairs[attr]
        fit = {"y_true": sub["y_true"], "group": sub["group"], "groups": pair}
        every = check_group_data(sub["y_true"], sub["y_pred_or_score"], sub["group"],
                                 metric="accuracy", groups=pair)  # fmt: skip
        acc, _ = group_metrics(np.zeros(len(every.gcode), dtype=np.int64), every, 1)
        gap = 100 * float(acc[0, 0] - acc[0, 1])
        row: dict[str, Any] = {"word": word, "groups": pair, "global_gap_pts": gap, "note": ""}
        try:
            row.update(word_gap(sub["texts"], y_pred=sub["y_pred_or_score"], word=word, **fit))
        except ValueError as err:
            row["note"] = str(err)
        rows[attr] = row
    out = pd.DataFrame.from_dict(rows, orient="index")
    for column in _GAP_KEYS:  # NaN where no attribute gave a gap, never a missing column
        if column not in out:
            out[column] = np.nan
    out.index.name = "attribute"
    return out
