"""Sentences that say what a profile does are checked against that profile's parameters.

Issue 27: a sentence about one profile's run, typed by hand, is true on the profile it was
written for and can silently become false when ``notebooks/profiles.yml`` changes ("300 d on
`paper`" stood in intrinsic vs extrinsic's table while `paper` trained 100-d embeddings). What a
run *found* is generated from the run; what a sentence may still say about a profile is how the
run is *made* (which data, which model, how many seeds), and that is fixed by the parameters
papermill injects: the notebook's parameters cell overridden by the profile's entries. So:

- every sentence (or table row) of a chapter that names the `paper` profile is registered in
  :data:`CLAIMS` with a check of those parameters, or with the reason it states nothing a profile
  could change;
- every check holds, on the resolved parameters of each profile it names;
- every registered fragment still occurs in its chapter (no stale entries);
- the table of ``book/scale.md`` (what `paper` and `full` run) states only numbers of those
  profiles' parameters.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from nlpbias.book import runner
from nlpbias.book.parameters import parameter_specs

ROOT = Path(__file__).resolve().parents[2]


@cache
def params(chapter: str, profile: str) -> dict[str, Any]:
    """What papermill runs ``chapter`` with on ``profile``: the notebook's defaults, overridden."""
    specs = parameter_specs(runner.notebook_path(ROOT, chapter))
    out = {name: spec.default for name, spec in specs.items()}
    out.update(runner.resolve_parameters(ROOT, chapter, profile))
    return out


def _has(profiles: tuple[str, ...], check: Callable[[dict[str, Any]], bool]):
    return lambda chapter: all(check(params(chapter, p)) for p in profiles)


def data_home(*profiles: str, value: bool = True):
    return _has(profiles, lambda p: p["use_data_home"] is value)


NOT_A_CLAIM = "names the profile without saying what its run does"

#: (chapter, a fragment of the sentence, check) — the check takes the chapter's name and reads
#: :func:`params`; a string instead says why the sentence needs none.
CLAIMS: list[tuple[str, str, Callable[[str], bool] | str]] = [
    # data
    ("data", "(profiles `paper`, `full`) the tables are computed on the real datasets",
     data_home("paper", "full")),
    ("data", "`paper`, `full`: Davidson et al. tweets, a subset of the Wikipedia Talk comments",
     lambda c: data_home("paper", "full")(c) and data_home("smoke", "demo", value=False)(c)),
    # intrinsic
    ("intrinsic", "On `demo` and `paper` the base embedding is the pretrained GloVe 6B 50-d",
     lambda c: all(params(c, p)["base_embedding"] == "glove-6b-50d" for p in ("demo", "paper"))
     and all("wiki_summaries" in params(c, p)["train_corpora"] for p in ("demo", "paper"))
     and "gutenberg:1" in params(c, "paper")["train_corpora"]),
    ("intrinsic", "on `demo` and `paper` the book uses the 6-billion-token",
     lambda c: all(params(c, p)["base_embedding"] == "glove-6b-50d" for p in ("demo", "paper"))),
    ("intrinsic", "On `demo` and `paper` the differences that matter most are the embedding (50",
     lambda c: all(params(c, p)["base_embedding"] == "glove-6b-50d" for p in ("demo", "paper"))),
    ("intrinsic", "Which tests are excluded on the Gutenberg embedding (profile `paper`)",
     lambda c: any(t.startswith("gutenberg") for t in params(c, "paper")["train_corpora"])),
    # intrinsic vs extrinsic
    ("intrinsic_extrinsic", "On `paper` and `full`, embeddings are trained with gensim on two",
     lambda c: all({"coref", "hsd_gender", "hsd_race"} <= set(params(c, p)["families"])
                   for p in ("paper", "full"))),
    ("intrinsic_extrinsic", "The hate-speech families need the data home and run on `paper` only",
     lambda c: all(not any(f.startswith("hsd") for f in params(c, p)["families"])
                   for p in ("smoke", "demo"))
     and any(f.startswith("hsd") for f in params(c, "paper")["families"])),
    ("intrinsic_extrinsic", "| | Katô & Miyao (2024) | this book (`paper` profile) |", NOT_A_CLAIM),
    ("intrinsic_extrinsic", "SGNS and fastText, `corpus_options` (`vector_size` 100 on `paper`",
     lambda c: params(c, "paper")["corpus_options"]["vector_size"] == 100
     and params(c, "full")["corpus_options"]["vector_size"] == 300
     and set(params(c, "paper")["algorithms"]) == {"word2vec", "fasttext"}),  # SGNS = word2vec
    ("intrinsic_extrinsic", "the HSD rows of the tables (`paper` only)",
     lambda c: all(not any(f.startswith("hsd") for f in params(c, p)["families"])
                   for p in ("smoke", "demo"))),
    ("intrinsic_extrinsic", "On `paper`, the race sets have {math}`A_1` = unhateful",
     lambda c: "hsd_race" in params(c, "paper")["families"]),
    # LOGAN
    ("logan", "On `paper` and `full` a toxicity classifier built on the MiniLM encoder",
     lambda c: all(params(c, p)["classifier"] == "finetune" and params(c, p)["use_data_home"]
                   for p in ("paper", "full"))),
    # perturbation
    ("perturbation", "On `paper` the documents are **Project Gutenberg books**",
     lambda c: all(params(c, p)["source"] == "gutenberg" for p in ("paper", "full"))),
    ("perturbation", "`paper`: Project Gutenberg part 1",
     lambda c: params(c, "paper")["source"] == "gutenberg"
     and params(c, "demo")["source"] == "wiki"),
    ("perturbation", "`glove` parameter (demo: 50 d, 25 epochs, learning rate 0.2; `paper` and",
     lambda c: params(c, "demo")["glove"]
     == {"vector_size": 50, "epochs": 25, "learning_rate": 0.2}),
    ("perturbation", "profiles use learning rate 0.2 (and 25 epochs on `demo` and `paper`)",
     lambda c: all(params(c, p)["glove"]["learning_rate"] == 0.2
                   for p in ("smoke", "demo", "paper"))
     and all(params(c, p)["glove"]["epochs"] == 25 for p in ("demo", "paper"))
     and params(c, "full")["glove"]["learning_rate"] == 0.05
     and params(c, "full")["glove"]["epochs"] == 100),
    ("perturbation", "On `paper` the chapter's Gutenberg books (before 1930) stand beside the",
     lambda c: params(c, "paper")["source"] == "gutenberg"
     and params(c, "paper")["compare_source"] == "wiki"
     and params(c, "demo")["compare_source"] is None),
    ("perturbation", "On the `paper` profile, predict what happens to the top-1 % share",
     lambda c: params(c, "paper")["block_tokens"] == 1000),  # -p block_tokens=500 halves it
    # pinned AUC
    ("pinned_auc", "On `paper` and `full` the models are trained on Wikipedia Talk",
     lambda c: all(params(c, p)["use_data_home"] and params(c, p)["corpus"] == "wikipedia_talk"
                   and params(c, p)["second_domain"] == "davidson"
                   and params(c, p)["validation_fraction"] > 0 for p in ("paper", "full"))),
    ("pinned_auc", "`paper`: Wikipedia Talk comments (a subset of the Jigsaw 2018 challenge's)",
     lambda c: data_home("paper")(c) and data_home("smoke", "demo", value=False)(c)
     and params(c, "paper")["corpus"] == "wikipedia_talk"
     and params(c, "paper")["second_domain"] == "davidson"),
    ("pinned_auc", "`paper`: the same files (`train` split), the random control",
     data_home("paper")),
    ("pinned_auc", "skew scenario <pinned-in-domain-skew>` on `paper`",
     lambda c: data_home("paper")(c) and params(c, "paper")["second_domain"] == "davidson"),
    ("pinned_auc", "(`second_domain`, on `paper` the Davidson et al. tweets)",
     lambda c: params(c, "paper")["second_domain"] == "davidson"),
    ("pinned_auc", "for the Wikipedia Talk comments of `paper`'s main scenario and for the tweets",
     lambda c: params(c, "paper")["corpus"] == "wikipedia_talk"
     and params(c, "paper")["second_domain"] == "davidson"),
    ("pinned_auc", "On `paper` the pool is Wikipedia article sentences; the main scenario's",
     lambda c: data_home("paper")(c) and params(c, "paper")["corpus"] == "wikipedia_talk"),
    ("pinned_auc", "(tweets on `paper`)",
     lambda c: params(c, "paper")["second_domain"] == "davidson"),
    # scorecard
    ("scorecard", "so that a build on `paper` can show the numbers of the last `demo` run",
     NOT_A_CLAIM),
    # scoring
    ("scoring", "so on `smoke`, `demo` and `paper` the base model is the book's {term}`stand-in`",
     lambda c: all(params(c, p)["model"] == "standin" for p in ("smoke", "demo", "paper"))),
    ("scoring", "the published one is `paper`'s, in `notebooks/profiles.yml`", NOT_A_CLAIM),
    ("scoring", "`demo` for 100 small steps, so their numbers only show that the pipeline runs;",
     lambda c: params(c, "demo")["standin"]["steps"] == 100
     and params(c, "smoke")["standin"]["steps"] < 100 < params(c, "paper")["standin"]["steps"]),
    ("scoring", "On `paper` the people are Trump and Clinton",
     lambda c: params(c, "paper")["people"] == ["Trump", "Clinton"]),
    ("scoring", "(`smoke` and `demo` 2 seeds, `paper` 3, `full` 5)",
     lambda c: [len(params(c, p)["fine_tune_seeds"]) for p in ("smoke", "demo", "paper", "full")]
     == [2, 2, 3, 5]),
    ("scoring", "(plus Gutenberg paragraphs on `paper`)",
     lambda c: params(c, "paper")["gutenberg_paragraphs"] > 0
     and params(c, "demo")["gutenberg_paragraphs"] == 0),
    ("scoring", "The `paper` column holds seed 003's values", "the column, not the profile"),
    ("scoring", "and Trump and Clinton on `paper`)",
     lambda c: params(c, "paper")["people"] == ["Trump", "Clinton"]),
    ("scoring", "a verdict from two seeds (`smoke`, `demo`) is weaker than one from three",
     lambda c: [len(params(c, p)["fine_tune_seeds"]) for p in ("smoke", "demo", "paper")]
     == [2, 2, 3]),
    ("scoring", "`demo`, `paper`: the {term}`stand-in` (MiniLM encoder + a new masked-LM head",
     lambda c: params(c, "demo")["standin"]["steps"] == 100
     and params(c, "demo")["standin"]["batch_size"] == 16
     and params(c, "demo")["standin"]["max_length"] == 64
     and all(params(c, p)["model"] == "standin" for p in ("demo", "paper"))
     and params(c, "full")["model"] != "standin"),
    ("scoring", "`demo`: one SYNTHETIC planted person; `paper`: Trump and Clinton",
     lambda c: params(c, "demo")["people"] == [] and params(c, "demo")["planted"] is not None
     and params(c, "paper")["people"] == ["Trump", "Clinton"]),
    ("scoring", "`demo` 8 epochs at 2e-4 over blocks of 32 tokens",
     lambda c: (lambda d, p: (d["epochs"], d["learning_rate"], d["max_length"]) == (8, 2e-4, 32)
                and (p["epochs"], p["learning_rate"]) == (1, 5e-5))(
         params(c, "demo")["fine_tune"], params(c, "paper")["fine_tune"])),
    ("scoring", "`fine_tune_seeds` runs per person (`demo` 2, `paper` 3, `full` 5)",
     lambda c: [len(params(c, p)["fine_tune_seeds"]) for p in ("demo", "paper", "full")]
     == [2, 3, 5]),
    ("scoring", "(the `paper` column of the bias table above)", "the column, not the profile"),
    ("scoring", "On `demo` and `paper` every number above belongs to a small encoder",
     lambda c: all(params(c, p)["model"] == "standin" for p in ("demo", "paper"))),
    ("scoring", "the `paper` book was built with three stand-ins",
     "the recorded builds: tests/studies/scoring/test_scoring_builds.py reads them"),
    ("scoring", "On `paper` with the stand-in, this run is one more build of the recorded recipe",
     "what the chapter's code does on `paper` (builds_table's counts), tested with builds"),
    ("scoring", "On `demo` and `paper` the masked-LM head was trained by this book",
     lambda c: all(params(c, p)["model"] == "standin" for p in ("demo", "paper"))),
    ("scoring", "two (`demo`) or three (`paper`) fine-tuning seeds",
     lambda c: [len(params(c, p)["fine_tune_seeds"]) for p in ("demo", "paper")] == [2, 3]),
]  # fmt: skip


def _units(text: str) -> list[str]:
    """Table rows, and the sentences of everything else, with whitespace collapsed."""
    rows, rest = [], []
    for line in text.splitlines():
        (rows if line.lstrip().startswith("|") else rest).append(line)
    flat = " ".join(" ".join(rest).split())
    return [" ".join(r.split()) for r in rows] + re.split(r"(?<=[.!?])\s+(?=[A-Z*`(\-{])", flat)


@cache
def chapter_units(chapter: str) -> tuple[str, ...]:
    nb = json.loads(runner.notebook_path(ROOT, chapter).read_text(encoding="utf-8"))
    return tuple(
        unit
        for cell in nb["cells"]
        if cell["cell_type"] == "markdown"
        for unit in _units("".join(cell["source"]))
    )


def test_every_sentence_that_names_the_paper_profile_is_registered() -> None:
    missing = []
    for chapter in runner.chapters(ROOT):
        fragments = [f for c, f, _ in CLAIMS if c == chapter]
        for unit in chapter_units(chapter):
            if "`paper`" in unit and not any(f in unit for f in fragments):
                missing.append(f"{chapter}: {unit[:160]}")
    assert not missing, (
        "sentences about the `paper` profile with no check in CLAIMS (add one that reads the "
        "profile's parameters, or generate the sentence from the run):\n" + "\n".join(missing)
    )


@pytest.mark.parametrize(
    ("chapter", "fragment", "check"), CLAIMS, ids=[f"{c}:{f[:40]}" for c, f, _ in CLAIMS]
)
def test_the_sentence_is_there_and_true_of_the_profiles_parameters(
    chapter: str, fragment: str, check: Callable[[str], bool] | str
) -> None:
    assert any(fragment in unit for unit in chapter_units(chapter)), (
        f"{chapter}: registered fragment not found (stale entry?): {fragment!r}"
    )
    if isinstance(check, str):
        assert check, "a sentence without a check needs its reason"
        return
    assert check(chapter), f"{chapter}: the sentence is false of the profile: {fragment!r}"


def test_the_checks_can_fail() -> None:
    """A check reads the parameters, so changing the parameters breaks it."""
    check = next(chk for c, f, chk in CLAIMS if f.startswith("SGNS and fastText"))
    paper = params("intrinsic_extrinsic", "paper")
    saved = paper["corpus_options"]
    try:
        paper["corpus_options"] = {**saved, "vector_size": 300}
        assert not check("intrinsic_extrinsic")
    finally:
        paper["corpus_options"] = saved
    assert check("intrinsic_extrinsic")


def _numbers(value: Any) -> set[float]:
    """Every number in a parameter value, with the length of every list in it."""
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, int | float):
        return {float(value)}
    if isinstance(value, str):
        return {float(x) for x in re.findall(r"\d+(?:\.\d+)?", value)}
    if isinstance(value, dict):
        return set().union(*(_numbers(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        out = {float(len(value))}
        for v in value:
            out |= _numbers(v)
        return out
    return set()


def _derived(chapter: str, profile: str) -> set[float]:
    """Numbers of book/scale.md's table that follow from the parameters without being one:
    intrinsic vs extrinsic's count of embeddings and of Attract-Repel settings."""
    if chapter != "intrinsic_extrinsic":
        return set()
    from nlpbias.studies.intrinsic_extrinsic.grid import embedding_grid

    p = params(chapter, profile)
    keys = ("families", "algorithms", "modsets", "balance_p", "attract_repel", "modes", "corpora",
            "designs")  # fmt: skip
    grid = embedding_grid(**{k: p[k] for k in keys}, neighbours=p["expansion_neighbours"])
    ar = p["attract_repel"]
    settings = len(ar["delta_sim"]) * len(ar["delta_ant"]) * len(ar["reg"])
    return {float(len(grid)), float(settings)}


def _scale_rows() -> dict[str, tuple[str, str]]:
    text = (ROOT / "book" / "scale.md").read_text(encoding="utf-8")
    section = text.split("## What `full` runs", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"\| \{ref\}`chapter-([\w-]+)` \| (.*) \| (.*) \|$", line)
        if m:
            rows[m.group(1).replace("-", "_")] = (m.group(2), m.group(3))
    return rows


def scale_table_problems() -> list[str]:
    """Numbers of book/scale.md's table that no parameter of their profile gives."""
    wrong = []
    for chapter, cells in _scale_rows().items():
        for profile, cell in zip(("paper", "full"), cells, strict=True):
            known = _numbers(params(chapter, profile)) | _derived(chapter, profile)
            prose = re.sub(r"\{\w+\}`[^`]*`|`[^`]*`", "", cell)
            for token in re.findall(r"\d[\d,]*(?:\.\d+)?", prose):
                if float(token.replace(",", "")) not in known:
                    wrong.append(f"{chapter} ({profile}): {token} in {cell[:80]!r}")
    return wrong


def test_scale_table_states_the_profiles_numbers() -> None:
    assert set(_scale_rows()) == set(runner.studies(ROOT)) - {"data"}, sorted(_scale_rows())
    wrong = scale_table_problems()
    assert not wrong, "numbers in book/scale.md's table that no parameter gives:\n" + "\n".join(
        wrong
    )


def test_the_scale_check_can_fail() -> None:
    paper = params("intrinsic", "paper")
    saved = paper["n_bootstrap"]
    try:
        paper["n_bootstrap"] = 2000
        assert any("1,000" in w for w in scale_table_problems())
    finally:
        paper["n_bootstrap"] = saved
    assert not scale_table_problems()
