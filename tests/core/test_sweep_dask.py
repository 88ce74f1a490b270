"""A study's sweep on a Dask LocalCluster of 2 workers gives what the local process pool gives.

The sweep is the retraining check of the perturbation chapter (seeds × sets of removed
documents, one GloVe fit per task), on a small corpus with a planted association.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.core.sweep import local_cluster
from nlpbias.metrics.query import Query
from nlpbias.studies.perturbation.glove import build_vocabulary, encode_corpus
from nlpbias.studies.perturbation.retraining import retrain_removals

distributed = pytest.importorskip("distributed")

QUERY = Query(
    targets={"science": ["math", "physics"], "arts": ["poetry", "art"]},
    attributes={"male": ["he", "man"], "female": ["she", "woman"]},
    name="toy",
)
SETS = {"first": [0, 1], "even": list(range(0, 30, 2)), "one": [7]}


@pytest.fixture(scope="module")
def corpus():
    rng = np.random.default_rng(3)
    words = ["math", "physics", "poetry", "art", "he", "man", "she", "woman", "the", "of", "a"]
    docs = [list(rng.choice(words, size=15)) for _ in range(40)]
    return encode_corpus(docs, build_vocabulary(docs, min_count=1, max_size=None))


def sweep(corpus, executor) -> pd.DataFrame:
    out = retrain_removals(
        corpus, QUERY, SETS, glove={"vector_size": 4, "epochs": 5}, seeds=[0, 1], window=3,
        executor=executor, n_jobs=2, show_progress=False, max_missing=0.2, random_state=0,
    )  # fmt: skip
    return out.drop(columns="fit_seconds")


def test_local_cluster_of_two_workers_matches_the_process_pool(corpus, monkeypatch) -> None:
    local = sweep(corpus, "process")
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")  # as an earlier Dask cluster leaves it
    with local_cluster(2) as cluster, distributed.Client(cluster) as client:
        on_client = sweep(corpus, client)  # the client object itself
        active = sweep(corpus, "dask")  # executor="dask" finds the active client
        assert len(client.scheduler_info()["workers"]) == 2
        # Dask's default MALLOC_TRIM_THRESHOLD_ slows the GloVe fits ~4x: local_cluster drops it
        trims = client.run(lambda: __import__("os").environ.get("MALLOC_TRIM_THRESHOLD_"))
        assert set(trims.values()) == {None}
    assert len(local) == len(SETS) * 2 and local["actual"].abs().gt(0).all()
    pd.testing.assert_frame_equal(on_client, local, check_exact=True)
    pd.testing.assert_frame_equal(active, local, check_exact=True)
