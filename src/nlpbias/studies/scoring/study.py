"""The scoring chapter (seed 003, "scoring ourselves"; Kurita et al. 2019): the study's steps.

1. :func:`base_model` — the masked LM to start from: an HF name or folder, or ``"standin"``
   (the offline stand-in of :func:`nlpbias.studies.scoring.mlm.adapt_mlm`).
2. :func:`person_corpora` — the people's posts: Trump and Clinton from Dong's corpora (her own
   train/validation split), the reader's file, or a synthetic corpus with planted statements.
3. :func:`fine_tune_people` — one fine-tuned model per person.
4. :func:`score_models` — Kurita's prior-corrected log probabilities on Dong's three frameworks.
5. Tables: :func:`bias_table` (Figure 5), :func:`topk_table` (Table 3), :func:`effect_sizes`
   (Kurita's effect size), :func:`accuracy_table` and :func:`planted_shift` (does fine-tuning
   move the planted attribute the planted way?). The paper's numbers beside ours are in
   :mod:`nlpbias.studies.scoring.comparison`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from nlpbias.core.checks import check_int
from nlpbias.core.criteria import Outcome
from nlpbias.core.paths import data_file
from nlpbias.data.wordsets import load_wordset
from nlpbias.studies.scoring.effects import bootstrap_bias_ci, kurita_effect_size
from nlpbias.studies.scoring.kurita import kurita_scores
from nlpbias.studies.scoring.mlm import (
    FineTuneResult,
    StandInConfig,
    adapt_mlm,
    fine_tune_mlm,
    load_mlm,
    standin_corpus,
)

__all__ = [
    "FRAMEWORKS",
    "PEOPLE",
    "Framework",
    "accuracy_table",
    "base_model",
    "bias_table",
    "effect_sizes",
    "fine_tune_people",
    "frameworks",
    "frameworks_table",
    "person_corpora",
    "planted_posts",
    "PLANTED_YARDSTICK",
    "planted_check",
    "planted_shift",
    "reported",
    "score_models",
    "topk_table",
]

logger = logging.getLogger(__name__)

FRAMEWORKS = ("dong_career_family", "dong_pleasant_unpleasant", "dong_leader_follower")
#: Person name in the book -> file stem of Dong's corpora.
PEOPLE = {"Trump": "trump", "Clinton": "hillary"}


@dataclass(frozen=True)
class Framework:
    """One of Dong's evaluation frameworks: targets, two attribute concepts and templates."""

    name: str
    female: tuple[str, ...]
    male: tuple[str, ...]
    attributes: Mapping[str, tuple[str, ...]]
    templates: tuple[str, ...]

    @property
    def attribute_words(self) -> list[str]:
        return [w for words in self.attributes.values() for w in words]


def _templates(path: Path | None = None) -> dict[str, list[str]]:
    file = path or data_file("templates", "dong_mlm.yaml")
    return yaml.safe_load(file.read_text(encoding="utf-8"))["templates"]


def frameworks(names: Sequence[str] = FRAMEWORKS) -> list[Framework]:
    """Load Dong's frameworks from ``data/wordsets`` and ``data/templates/dong_mlm.yaml``."""
    if isinstance(names, str):
        names = [names]
    templates = _templates()
    out = []
    for name in names:
        if name not in templates:
            raise KeyError(
                f"no templates for word set {name!r} in data/templates/dong_mlm.yaml; "
                f"choose from {sorted(templates)}"
            )
        ws = load_wordset(name)
        out.append(
            Framework(
                name=name,
                female=tuple(ws.targets["female"]),
                male=tuple(ws.targets["male"]),
                attributes={k: tuple(v) for k, v in ws.attributes.items()},
                templates=tuple(templates[name]),
            )
        )
    return out


def frameworks_table(fws: Sequence[Framework]) -> pd.DataFrame:
    """One column per framework: its targets, attribute words per concept and templates."""
    return pd.DataFrame(
        {
            fw.name: {
                "female targets": ", ".join(fw.female),
                "male targets": ", ".join(fw.male),
                **{concept: ", ".join(words) for concept, words in fw.attributes.items()},
                "templates": " | ".join(fw.templates),
            }
            for fw in fws
        }
    ).fillna("")


def reported() -> dict[str, Any]:
    """Dong's numbers: ``data/reported/dong2020.yaml`` plus the base model's per-attribute bias.

    ``base_bias`` maps each attribute concept to BERT-base's bias, from the ``reported`` field
    of the word sets (the repository's ``bias.txt``), and ``average`` to its simple mean.
    """
    from nlpbias.data.reported import load_reported

    rep = load_reported("dong2020")
    per_attribute: dict[str, float] = {}
    for name in FRAMEWORKS:
        ws = load_wordset(name)
        values = ws.reported or {}
        per_attribute.update({c: float(values[c]) for c in ws.attributes if c in values})
    if per_attribute:
        per_attribute["average"] = float(np.mean(list(per_attribute.values())))
    rep["base_bias"] = per_attribute
    return rep


def base_model(
    model: str,
    *,
    standin: Mapping[str, Any],
    standin_texts: int | None,
    gutenberg_paragraphs: int,
    max_minutes: float | None,
    show_progress: bool = True,
) -> str:
    """The masked LM to start from: a name/folder as given, or the stand-in built (or found).

    The stand-in is :func:`nlpbias.studies.scoring.mlm.adapt_mlm` on
    :func:`~nlpbias.studies.scoring.mlm.standin_corpus`, with the recipe ``standin``.

    Parameters
    ----------
    model : str
        ``"standin"`` or any HF masked LM name/folder (e.g. ``"bert-base-uncased"``, online).
    standin : mapping
        The stand-in's recipe: every field of
        :class:`~nlpbias.studies.scoring.mlm.StandInConfig` (``standin`` in
        ``notebooks/profiles.yml``; the published one is ``paper``'s).
    standin_texts : int or None
        Use only the first this many texts of the stand-in corpus (None: all).
    gutenberg_paragraphs : int
        Gutenberg paragraphs in the stand-in corpus (0: Wikipedia summaries only).
    max_minutes : float or None
        Training budget of this call (None: no limit; a stand-in stopped early resumes on the
        next call).
    show_progress : bool, default True

    Returns
    -------
    str
        Name or folder, for :func:`nlpbias.studies.scoring.mlm.load_mlm`.
    """
    if model != "standin":
        return model
    cfg = StandInConfig.from_mapping(standin)  # a missing field is named before any reading
    texts = standin_corpus(gutenberg_paragraphs=gutenberg_paragraphs)
    if standin_texts is not None:
        texts = texts[:standin_texts]
    path = adapt_mlm(texts, config=cfg, max_minutes=max_minutes, show_progress=show_progress)
    return str(path)


def person_corpora(
    people: Sequence[str],
    *,
    personal_corpus: str | Path | None,
    personal_column: str | int | None,
    personal_encoding: str,
    planted: Mapping[str, Any] | None,
    max_posts: int | None,
    max_val_posts: int | None,
    random_state: int,
) -> dict[str, tuple[list[str], list[str] | None]]:
    """Each person's (train, validation) posts; validation None means "split 90/10 later".

    ``Trump`` and ``Clinton`` use Dong's cleaned corpora (URLs removed, empty lines dropped) and
    her train/validation files. ``you`` reads ``personal_corpus`` with
    :func:`nlpbias.studies.scoring.personal.load_posts` (text, CSV or Twitter archive), its
    ``column=personal_column`` (None: "text") and ``encoding=personal_encoding``; it needs 2
    posts at least. ``planted`` (:func:`planted_posts`) adds a synthetic person ``planted``.
    ``max_posts`` keeps the first posts of each training set, ``max_val_posts`` the first posts
    of each validation file (Trump and Clinton; None: all). Every error names the file.
    """
    from nlpbias.data.corpora import load_personal_corpus

    if max_val_posts is not None:
        check_int(max_val_posts, "max_val_posts", minimum=1)
    out: dict[str, tuple[list[str], list[str] | None]] = {}
    for person in people:
        if person not in PEOPLE:
            raise KeyError(f"unknown person {person!r}; choose from {sorted(PEOPLE)}")
        stem = PEOPLE[person]
        train = load_personal_corpus(stem, split="train", drop_empty=True)
        val = load_personal_corpus(stem, split="val", drop_empty=True)
        out[person] = (train[:max_posts] if max_posts else train, val[:max_val_posts])
    if personal_corpus is not None:
        from nlpbias.studies.scoring.personal import load_posts

        column = "text" if personal_column is None else personal_column
        posts = load_posts(personal_corpus, column=column, encoding=personal_encoding)
        posts = posts[:max_posts] if max_posts else posts
        if len(posts) < 2:  # fine-tuning holds a tenth of the posts out for validation
            raise ValueError(
                f"personal posts: {str(personal_corpus)!r} gives 1 post (after cleaning and "
                "max_posts); fine-tuning needs 2 at least (a few hundred make a usable model)"
            )
        out["you"] = (posts, None)
    if planted is not None:
        out["planted"] = (planted_posts(planted, random_state=random_state), None)
    if not out:
        raise ValueError("no person to fine-tune on; pass people, personal_corpus or planted")
    return out


def _concept_pair(concept: str) -> tuple[Framework, str] | None:
    """The framework that has ``concept`` and the opposite concept in it (None if none has)."""
    for fw in frameworks():
        if concept in fw.attributes:
            (opposite,) = [c for c in fw.attributes if c != concept]
            return fw, opposite
    return None


def planted_posts(planted: Mapping[str, Any], *, random_state: int) -> list[str]:
    """A SYNTHETIC person whose posts pair one gender with one of Dong's attribute concepts.

    ``planted`` holds ``concept`` (default ``"leader"``: its words are planted), ``direction``
    (``"female"``: female targets get the concept, male targets its opposite concept in the
    same framework), and any other argument of
    :func:`nlpbias.studies.scoring.synthetic.planted_corpus` (``n_posts``, ``planted_share``).
    """
    from nlpbias.studies.scoring.synthetic import planted_corpus

    spec = dict(planted)
    concept = spec.pop("concept", "leader")
    pair = _concept_pair(concept)
    if pair is None:
        known = sorted(c for fw in frameworks() for c in fw.attributes)
        raise KeyError(f"unknown concept {concept!r} to plant; choose from {known}")
    fw, opposite = pair
    return planted_corpus(
        attribute_words=list(fw.attributes[concept]),
        opposite_words=list(fw.attributes[opposite]),
        **{"random_state": random_state, **spec},
    )


def fine_tune_people(
    base: str,
    corpora: Mapping[str, tuple[list[str], list[str] | None]],
    *,
    show_progress: bool = True,
    **params: Any,
) -> dict[str, FineTuneResult]:
    """:func:`~nlpbias.studies.scoring.mlm.fine_tune_mlm` for each person (cached on disk), one
    after the other: people's corpora differ in size (Trump's 211 steps, Clinton's 39), so two
    at once would leave one core idle while the larger trains on the other.
    :func:`~nlpbias.studies.scoring.seeds.fine_tune_seeds` pairs a person's seeds instead."""
    results = {}
    for person, (train, val) in corpora.items():
        logger.info("fine-tuning on %s: %d posts", person, len(train))
        results[person] = fine_tune_mlm(
            base, train, val_texts=val, show_progress=show_progress, **params
        )
    return results


def score_models(
    models: Mapping[str, str], fws: Sequence[Framework], *, device: str = "auto"
) -> pd.DataFrame:
    """Kurita scores of every model on every framework, one row per template/target/attribute.

    Returns
    -------
    pandas.DataFrame
        :func:`~nlpbias.studies.scoring.kurita.kurita_scores` columns plus ``model``, ``framework``,
        ``concept`` (the attribute's concept, e.g. career) and ``gender`` of the target.
    """
    frames = []
    for label, name in models.items():
        tokenizer, model = load_mlm(name, device=device)
        for fw in fws:
            df = kurita_scores(
                model, tokenizer, list(fw.templates), [*fw.female, *fw.male], fw.attribute_words
            )
            concept = {w: c for c, words in fw.attributes.items() for w in words}
            gender = {**{t: "female" for t in fw.female}, **{t: "male" for t in fw.male}}
            df.insert(0, "framework", fw.name)
            df.insert(0, "model", label)
            df["concept"] = df["attribute"].map(concept)
            df["gender"] = df["target"].map(gender)
            frames.append(df)
    return pd.concat(frames, ignore_index=True)


def bias_table(
    scores: pd.DataFrame,
    fws: Sequence[Framework],
    *,
    n_bootstrap: int,
    random_state: int,
    paper: Mapping[str, float] | None = None,
    paper_model: str | None = None,
) -> pd.DataFrame:
    """Figure 5's numbers: Dong's bias per model and attribute concept, with bootstrap CIs.

    The last row of each model is the simple ``average`` over the concepts (seed 003's last row);
    its CI is left empty. ``paper`` values (per concept, plus ``average``) are put in a
    ``paper`` column on the rows of ``paper_model``.
    """
    rows = []
    for label, sub in scores.groupby("model", sort=False):
        values = []
        for fw in fws:
            part = sub[sub["framework"] == fw.name]
            if part.empty:
                continue
            ci = bootstrap_bias_ci(
                part,
                female=list(fw.female),
                male=list(fw.male),
                attribute_groups={k: list(v) for k, v in fw.attributes.items()},
                n_bootstrap=n_bootstrap,
                random_state=random_state,
            )
            for concept, r in ci.iterrows():
                rows.append({"model": label, "framework": fw.name, "attribute": concept, **r})
                values.append(r["bias"])
        rows.append(
            {"model": label, "framework": "all", "attribute": "average",
             "bias": float(np.mean(values)), "ci_low": np.nan, "ci_high": np.nan}
        )  # fmt: skip
    table = pd.DataFrame(rows)
    if paper is not None:
        on_paper = table["model"] == (paper_model or table["model"].iloc[0])
        table["paper"] = np.where(on_paper, table["attribute"].map(paper), np.nan)
    return table


def effect_sizes(
    scores: pd.DataFrame,
    fws: Sequence[Framework],
    *,
    n_permutations: int,
    random_state: int,
) -> pd.DataFrame:
    """Kurita's effect size per model and framework (male = X, first concept = A), with p."""
    rows = []
    for label, sub in scores.groupby("model", sort=False):
        for fw in fws:
            part = sub[sub["framework"] == fw.name]
            a, b = list(fw.attributes.values())
            res = kurita_effect_size(
                part, list(fw.male), list(fw.female), list(a), list(b),
                n_permutations=n_permutations, random_state=random_state,
            )  # fmt: skip
            concepts = " vs ".join(fw.attributes)
            rows.append({"model": label, "framework": fw.name, "concepts": concepts, **res})
    return pd.DataFrame(rows)


def topk_table(
    scores: pd.DataFrame,
    *,
    framework: str = "dong_career_family",
    template: str | None = "[TARGET] likes [ATTRIBUTE]",
    attributes: Sequence[str] = ("executive", "management", "professional"),
    k: int = 6,
) -> pd.DataFrame:
    """Table 3's analogue: the top-``k`` targets per attribute by prior-corrected log probability.

    Seed 003 Table 3 ranks the six targets of "[MASK] likes executive/management/professional".
    With ``template=None`` the score is averaged over the framework's templates.
    """
    sub = scores[(scores["framework"] == framework) & scores["attribute"].isin(attributes)]
    if template is not None:
        sub = sub[sub["template"] == template]
    if sub.empty:
        raise ValueError(
            f"no scores for framework {framework!r}, template {template!r} and attributes "
            f"{list(attributes)}; check them against the scored frameworks"
        )
    mean = sub.groupby(["model", "attribute", "target", "gender"], sort=False)["score"].mean()
    mean = mean.reset_index()
    # models in the order they were scored; within one, attributes sorted, best target first
    mean["model"] = pd.Categorical(mean["model"], categories=list(scores["model"].unique()))
    mean = mean.sort_values(["model", "attribute", "score"], ascending=[True, True, False])
    mean["rank"] = mean.groupby(["model", "attribute"], observed=True).cumcount() + 1
    out = mean[mean["rank"] <= k].astype({"model": str})
    return out[["model", "attribute", "rank", "target", "gender", "score"]].reset_index(drop=True)


def accuracy_table(
    results: Mapping[str, FineTuneResult], paper: Mapping[str, float] | None = None
) -> pd.DataFrame:
    """Validation masked-token accuracy per person model, before and after fine-tuning.

    ``paper`` (seed 003's top-1 after fine-tuning per person) adds the column ``paper top-1
    after`` only where one of the table's people has such a number: a column that would be
    empty in every row (a run without Trump) is left out.
    """
    table = pd.DataFrame({p: r.summary() for p, r in results.items()}).T
    table = table.astype({"train texts": int, "validation texts": int, "steps": int})
    table.index.name = "model"
    if paper is not None and any(p in paper for p in table.index):
        table["paper top-1 after"] = [paper.get(p, np.nan) for p in table.index]
    return table.reset_index()


def planted_shift(
    table: pd.DataFrame,
    planted: Mapping[str, Any],
    *,
    base_label: str,
    planted_label: str = "planted",
) -> pd.DataFrame:
    """How fine-tuning on the planted corpus moved the planted concept and its opposite.

    ``planted`` is the spec given to :func:`planted_posts` (``concept`` default ``"leader"``,
    ``direction`` default ``"female"``); the planted posts pair the ``direction`` gender with the
    concept and the other gender with the opposite concept of the same framework. A pipeline
    that picked up the association moves the two concepts *apart*: the planted concept towards
    the planted gender, its opposite the other way. A shift that is the same on both concepts is
    a drift of the whole model (e.g. towards the pronouns the person uses most), not the planted
    association.

    Returns
    -------
    pandas.DataFrame
        Rows: the planted concept, its opposite, and ``planted − opposite`` (the association);
        columns ``before``, ``after``, ``shift``. ``attrs["as_planted"]`` is True when the
        association's shift has the planted sign (positive for ``female``).
    """
    concept = planted.get("concept", "leader")
    direction = planted.get("direction", "female")
    pair = _concept_pair(concept)
    if pair is None:
        raise KeyError(f"unknown planted concept {concept!r}; it is not in any framework")
    opposite = pair[1]

    def value(model: str, attribute: str) -> float:
        hit = table[(table["model"] == model) & (table["attribute"] == attribute)]
        if hit.empty:
            raise KeyError(f"no bias for model {model!r} and attribute {attribute!r} in the table")
        return float(hit["bias"].iloc[0])

    rows = {}
    for attribute in (concept, opposite):
        before, after = value(base_label, attribute), value(planted_label, attribute)
        rows[attribute] = {"before": before, "after": after, "shift": after - before}
    rows[f"{concept} − {opposite}"] = {
        k: rows[concept][k] - rows[opposite][k] for k in ("before", "after", "shift")
    }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = f"planted: {direction} ~ {concept}"
    sign = 1 if direction == "female" else -1
    out.attrs["as_planted"] = bool(sign * out["shift"].iloc[-1] > 0)
    return out


#: The yardstick of :func:`planted_check`, in words.
PLANTED_YARDSTICK = "the wider of the base model's 95 % intervals on {concepts}"


def planted_check(
    shift: pd.DataFrame, table: pd.DataFrame, planted: Mapping[str, Any], *, base_label: str
) -> Outcome:
    """Did the association move as planted, by more than the base model's own uncertainty?

    The yardstick is :data:`PLANTED_YARDSTICK`: the width of the base model's bootstrap
    interval on the planted concept or on its opposite, whichever is wider — how far another
    choice of templates and words alone moves one of the two biases. The association's shift
    (the last row of :func:`planted_shift`: ``after − before``), signed so that the planted
    direction is positive, must exceed it (:func:`nlpbias.core.criteria.exceeds`, whose
    detail prints ``after − before``).

    Parameters
    ----------
    shift : DataFrame
        :func:`planted_shift` output (rows: the concept, its opposite, the association).
    table : DataFrame
        :func:`bias_table` output, with the base model's ``ci_low`` and ``ci_high``.
    planted : mapping
        The planted spec (``direction``).
    base_label : str
        The base model's label in ``table``.

    Returns
    -------
    Outcome
        ``word``: "moved as planted", "moved the planted way, but not by more than the
        yardstick" or "did not move the planted way".

    Examples
    --------
    >>> shift = pd.DataFrame({"shift": [0.65, 0.26, 0.39]},
    ...                      index=["leader", "follower", "leader − follower"])
    >>> table = pd.DataFrame({"model": ["base"] * 2, "attribute": ["leader", "follower"],
    ...                       "ci_low": [-0.93, -0.56], "ci_high": [-0.32, -0.17]})
    >>> planted_check(shift, table, {"direction": "female"}, base_label="base").word
    'moved the planted way, but not by more than the yardstick'
    """
    from nlpbias.core.criteria import exceeds

    concepts = list(shift.index[:2])
    base = table[table["model"] == base_label].set_index("attribute")
    missing = [c for c in concepts if c not in base.index]
    if missing:
        raise KeyError(f"planted_check: the bias table has no {missing} for {base_label!r}")
    widths = (base.loc[concepts, "ci_high"] - base.loc[concepts, "ci_low"]).astype(float)
    if not np.isfinite(widths.to_numpy()).all():
        raise ValueError(f"planted_check: the base model's intervals on {concepts} are missing")
    sign = 1 if planted.get("direction", "female") == "female" else -1
    association = shift.iloc[-1]
    if "before" in shift.columns and "after" in shift.columns:  # planted_shift's table
        after, before = sign * float(association["after"]), sign * float(association["before"])
    else:
        after, before = sign * float(association["shift"]), 0.0
    named = " and ".join(f"{c} ({w:.3g})" for c, w in widths.items())
    right_way = after - before > 0
    outcome = exceeds(
        after,
        before,
        margin=float(widths.max()),
        margin_name=PLANTED_YARDSTICK.format(concepts=named),
        yes="moved as planted",
        no=(
            "moved the planted way, but not by more than the yardstick"
            if right_way
            else "did not move the planted way"
        ),
    )

    def num(x: float) -> str:
        return f"{x:.3g}".replace("-", "−")

    moved = f"{shift.index[-1]} moved by {num(after - before)} in the planted direction"
    if "before" in shift.columns and "after" in shift.columns:
        moved += f" ({num(float(association['before']))} → {num(float(association['after']))})"
    return replace(outcome, detail=moved)
