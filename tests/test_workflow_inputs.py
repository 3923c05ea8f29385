"""What the rules compute their inputs and params from (paracomp.workflow), on the real
catalogue and elgohary2016's embedded settings, with a mirror of a few folders written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paracomp.data.catalog import load
from paracomp.errors import ConfigError
from paracomp.papers import PAPERS
from paracomp.registration import Registration, Registrations
from paracomp.registry import paper_settings
from paracomp.tables.claims import read_claims
from paracomp.workflow.corpus_chain import PHRASES, CorpusChain
from paracomp.workflow.models import Models
from paracomp.workflow.paper_tables import PaperTables
from paracomp.workflow.runs import Runs
from paracomp.workflow.sources import Sources, fetched_folder

PAPER = "elgohary2016"
TRAINING = {"defaults": {}, "allow_cpu_fallback": False, "grid_points": {"warn": 3, "limit": 50}}
CORPUS = {
    "bilingual": "europarl",
    "monolingual": "ppdb",
    "clean": True,
    "normalize_punct": False,
    "tokenize_jobs": 2,
    "max_phrase_length": 4,
    "pivot": "sum",
    "sharding": {"shards": 3, "partitions": 2, "pivot_partitions": 5},
}


@pytest.fixture()
def sources(tmp_path: Path) -> Sources:
    """Mirror and upstream: the mirror holds STS 2012 and GloVe 6B only."""
    for name in ("sts2012-test", "glove-6b"):
        (tmp_path / name).mkdir()
    built = {"our-vectors": ("europarl-v7-es-en",), "unbuildable": ("annotated-ppdb",)}
    return Sources(["mirror", "upstream"], tmp_path, load(PAPERS), built)


def registrations(**fields) -> Registrations:
    found = Registrations(PAPERS)
    for paper in PAPERS:
        found.register(Registration(paper, **(fields if paper == PAPER else {})))
    return found


def test_fetched_folders() -> None:
    assert fetched_folder("registry", "gensim") == "resources/packages/gensim"
    assert fetched_folder("mirror", "sts2012-test") == "resources/mirror/sts2012-test"


def test_sets_come_from_the_first_source_that_has_them(sources: Sources) -> None:
    assert sources.set_folder("sts2012") == "resources/mirror/sts2012-test"
    assert sources.set_source("simlex999") is None  # mirror lacks it, no upstream release
    assert sources.available(["sts2012", "simlex999"]) == ["sts2012"]
    assert sources.set_paths(["sts2012", "simlex999"]) == ["resources/sets/sts2012.parquet"]
    assert sources.tokenised_set_paths(["sts2012", "simlex999"]) == [
        "resources/sets/tokens/sts2012.parquet"
    ]
    assert sources.set_args(["sts2012"]) == ["sts2012=resources/sets/sts2012.parquet"]
    [reason] = sources.unavailable(["sts2012", "simlex999"])
    assert reason == (
        "simlex999=no source in mirror, upstream provides it (catalogue sources: mirror, registry)"
    )
    with pytest.raises(ValueError, match="provides evaluation set 'simlex999'"):
        sources.set_folder("simlex999")


def test_embeddings_and_datasets(sources: Sources) -> None:
    assert sources.embeddings_folder("glove-6b-50d") == "resources/mirror/glove-6b"
    assert sources.dataset_folder("europarl-v7-es-en") == "resources/upstream/europarl-v7-es-en"
    assert sources.embeddings_missing("our-vectors") is None
    assert sources.embeddings_missing("unbuildable") == (
        "unbuildable needs annotated-ppdb: no source in mirror, upstream provides it"
    )
    with pytest.raises(ValueError, match="^corpus.x needs dataset glove-6b: no source in mirror"):
        Sources(["mirror"], None, sources.catalog, {}).required_dataset("glove-6b", "corpus.x")


def test_corpus_chain_files_and_params(sources: Sources) -> None:
    chain = CorpusChain(CORPUS, sources)
    assert (chain.shards, chain.partitions, chain.pivot_partitions) == (3, 2, 5)
    europarl = "resources/upstream/europarl-v7-es-en"
    assert chain.sentence_input_args() == [
        f"{europarl}/europarl-v7.es-en.en",
        f"{europarl}/europarl-v7.es-en.es",
    ]
    assert json.loads(chain.sentence_params()) == {
        "source": "europarl",
        "clean": True,
        "normalize_punct": False,
        "jobs": 2,
    }
    assert chain.shard_files("words")[-1] == f"{PHRASES}/shards/2.words.parquet"
    assert len(chain.partition_files("pivot/best", chain.pivot_partitions)) == 5
    assert json.loads(chain.shard_params(1)) == {
        "shard": 1,
        "shards": 3,
        "partitions": 2,
        "max_length": 4,
    }
    assert chain.monolingual_step() == "ppdb" and chain.monolingual_params() == "{}"
    ppdb = "resources/upstream/ppdb-1.0-xl-phrasal"
    assert chain.monolingual_input_args() == [f"{ppdb}/ppdb-1.0-xl-phrasal"]
    pivot = CorpusChain({**CORPUS, "bilingual": "bible", "monolingual": "pivot"}, sources)
    assert pivot.sentence_input_args() == pivot.sentence_sources()
    assert pivot.monolingual_step() == "pivot-gather"
    assert pivot.monolingual_sources()[1:] == pivot.partition_files("pivot/best", 5)


@pytest.fixture()
def runs() -> Runs:
    block = paper_settings(PAPER, "default", None)
    found = registrations(
        run_data=lambda data: f"data/{data}.parquet",
        tuning_data=lambda data: f"tuning/{data}.parquet",
        run_init=lambda run: "init.parquet" if run.startswith("mono") else None,
    )
    return Runs({PAPER: block}, TRAINING, found)


def test_runs_settings_grids_and_inputs(runs: Runs) -> None:
    assert len(runs.grid_of(PAPER, "mono_jbi")) == 4  # margin × k
    assert len(runs.grid_of(PAPER, "mono_jpa")) == 4  # two grids of two samplers
    params = runs.run_params(PAPER, "biphr_jbi_1m", 7)
    assert params["epochs"] == 7 and params["objective"] == "bicvm"
    assert "data" not in params and "tune_as" not in params
    assert runs.tune_inputs(PAPER, "mono_jbi") == {
        "pairs": "tuning/mono.parquet",
        "tuning": "resources/sets/stsbenchmark.parquet",
        "init": "init.parquet",
    }
    assert runs.train_inputs(PAPER, "biphr_jbi_1m") == {
        "pairs": "data/sized-1m.parquet",
        "selected": f"results/{PAPER}/tuning/biphr_jbi.selected.json",
        "tuning": "resources/sets/stsbenchmark.parquet",
    }
    assert json.loads(runs.point(PAPER, "mono_jbi", 3))["k"] == 10
    assert runs.tuning_records(PAPER, "bisent_jbi")[-1] == (
        f"results/{PAPER}/points/bisent_jbi/3/record.json"
    )
    assert "biphr_jbi_1m" not in runs.tuned_runs(PAPER) and "biphr_jbi" in runs.tuned_runs(PAPER)


class _Scored:
    """A scored grid of one run, ``run`` (paracomp.train.grid.ScoredGrid), of two points."""

    def __init__(self, run: str):
        self.run = run

    def point_runs(self) -> list[str]:
        return [self.run]

    def point_grid(self, run: str) -> list[dict]:
        return [{"lr": 0.1}, {"lr": 0.01}]

    def point_settings(self, run: str) -> dict:
        return {"objective": "paraphrase", "epochs": 2}

    def point_replicates(self, run: str) -> None:
        return None

    def point_inputs(self, run: str, seed: int | None = None) -> dict:
        return {"pairs": "full.parquet", "sets": "scored-sets"}

    def point_score(self, run: str, point: int, folder: str) -> str:
        return f"paracomp score --run {folder}"


def test_one_point_rule_serves_tuned_and_scored_runs(runs: Runs) -> None:
    """A tuned run's point trains on the tuning data and keeps the trainer's record (its
    tuning-set r); a scored run's point trains on the full data, writes train.json and is
    scored by the paper's command."""
    block = paper_settings(PAPER, "default", None)
    found = registrations(tuning_data=lambda data: f"tuning/{data}.parquet", points=_Scored("ext"))
    both = Runs({PAPER: block}, TRAINING, found)
    assert {"ext", "mono_jbi"} <= set(both.point_runs())
    assert both.point_inputs(PAPER, "mono_jbi")["pairs"] == "tuning/mono.parquet"
    assert json.loads(both.point_settings(PAPER, "mono_jbi"))["epochs"] == block["tuning"]["epochs"]
    folder = f"results/{PAPER}/points/mono_jbi/3"
    assert both.point_record(PAPER, "mono_jbi", 3) == f"{folder}/record.json"
    assert both.point_score(PAPER, "mono_jbi", 3) == ""
    assert both.point_inputs(PAPER, "ext") == {"pairs": "full.parquet", "sets": "scored-sets"}
    assert json.loads(both.point(PAPER, "ext", 1)) == {"lr": 0.01}
    assert json.loads(both.point_settings(PAPER, "ext"))["epochs"] == 2
    assert both.point_record(PAPER, "ext", 1) == f"results/{PAPER}/points/ext/1/train.json"
    assert both.point_score(PAPER, "ext", 1) == f"--then score --run results/{PAPER}/points/ext/1"
    shell = _Scored("ext")
    shell.point_score = lambda run, point, folder: f"python score.py {folder}"  # type: ignore
    with pytest.raises(ConfigError, match="the scoring of ext is not a paracomp command"):
        Runs({PAPER: block}, TRAINING, registrations(points=shell)).point_score(PAPER, "ext", 1)
    clash = Runs({PAPER: block}, TRAINING, registrations(points=_Scored("mono_jbi")))
    with pytest.raises(ConfigError, match=r"\['mono_jbi'\] are both generic runs"):
        clash.point_runs()


def test_stacks_cover_the_grid(runs: Runs) -> None:
    stacks = runs.stacks_of(PAPER, "mono_jbi")
    assert sorted(i for stack in stacks for i in stack) == [0, 1, 2, 3]
    last = len(stacks) - 1
    assert runs.stack_records_of_point(PAPER, "mono_jbi", stacks[-1][0]).endswith(
        f"mono_jbi/stack{last}/records"
    )
    assert set(json.loads(runs.stack_points(PAPER, "mono_jbi", last))) == {
        str(i) for i in stacks[-1]
    }


def test_run_checks_warn_on_large_grids_and_refuse_bad_runs(runs: Runs) -> None:
    warnings = runs.check(PAPER)
    assert any("mono_jbi: a grid of 4 points" in w for w in warnings)
    assert not any("biphr_jbi_1m" in w for w in warnings)  # tuned as another: no grid
    block = paper_settings(PAPER, "default", None)
    block["runs"]["mono_jbi"]["tune_as"] = "nowhere"
    bad = Runs({PAPER: block}, TRAINING, runs.registrations)
    with pytest.raises(ValueError, match="mono_jbi: tune_as 'nowhere' is not a run"):
        bad.check(PAPER)


def test_a_paper_without_registered_data_is_named(runs: Runs) -> None:
    bare = Runs(runs.blocks, TRAINING, registrations())
    with pytest.raises(ValueError, match=f"{PAPER} has generic runs but registers no run_data"):
        bare.train_inputs(PAPER, "mono_jbi")
    with pytest.raises(ValueError, match=f"{PAPER} registers no scored grid points"):
        bare.scored_grid(PAPER)
    assert bare.scored_runs() == []


@pytest.fixture()
def models(runs: Runs, sources: Sources) -> Models:
    pretrained = {"glove": {"embeddings": "glove-6b-50d"}, "ours": {"embeddings": "unbuildable"}}
    return Models(pretrained, runs, sources, runs.registrations)


def test_models_and_their_files(models: Models) -> None:
    board = models.leaderboard()
    assert board["ours"] == {
        "paper": "",
        "note": "unbuildable needs annotated-ppdb: no source in mirror, upstream provides it",
    }
    assert models.buildable() == ["glove"]
    assert "ours" not in models.evaluated() and f"{PAPER}/mono_jbi" in models.evaluated()
    assert models.model_of(PAPER, "mono_jbi") == f"{PAPER}/mono_jbi"
    assert models.model_of(PAPER, "glove") == "glove"
    assert models.source_args("glove") == "--embeddings resources/embeddings/glove-6b-50d.parquet"
    run = f"results/{PAPER}/runs/mono_jbi"
    assert models.source_files(f"{PAPER}/mono_jbi") == {
        "run": [f"{run}/composer.pt", f"{run}/embeddings.parquet"]
    }
    spec = json.loads(models.leaderboard_spec())
    assert spec["ours"] == {
        "paper": "",
        "eval": None,
        "note": board["ours"]["note"],
        "composition": "",
    }
    with pytest.raises(ValueError, match="model 'nope' is neither in config models"):
        models.entry("nope")


def test_a_run_written_by_a_scored_point_is_read_after_its_record(
    runs: Runs, sources: Sources
) -> None:
    folder = f"results/{PAPER}/points/a/0"
    entry = {"paper": PAPER, "run": folder, "record": f"{folder}/record.json", "fallback": "f"}
    found = registrations(leaderboard={f"{PAPER}/a": entry})
    models = Models({}, Runs(runs.blocks, TRAINING, found), sources, found)
    assert models.source_files(f"{PAPER}/a") == {"run": [f"{folder}/record.json"], "fallback": "f"}
    assert models.source_args(f"{PAPER}/a") == f"--run {folder} --fallback f"


def test_tables_read_their_models_and_claims(models: Models) -> None:
    block = models.runs.blocks[PAPER]
    block["tables"]["table9"] = {
        "columns": {"a": {"model": "mono_jbi"}, "b": {"model": "glove"}, "c": {"model": "ours"}}
    }
    claims = {PAPER: read_claims(Path("src/paracomp/papers/elgohary2016/findings.yaml"))}
    tables = PaperTables(models.runs.blocks, models, models.registrations, claims, {})
    spec = tables.spec(PAPER, "table9")
    assert spec["columns"]["c"] == {"reason": models.leaderboard()["ours"]["note"]}
    assert tables.table_models(PAPER, "table9") == [f"{PAPER}/mono_jbi", "glove"]
    assert tables.eval_args(PAPER, "table9") == [
        "glove=results/eval/glove",
        f"mono_jbi=results/eval/{PAPER}/mono_jbi",
    ]
    assert tables.stats(PAPER, "table9") == [] and tables.stats(PAPER, "table2")
    assert tables.targets(PAPER)[0] == f"results/{PAPER}/table2.csv"
    assert tables.inputs(PAPER, "table2") == [f"results/{PAPER}/stats/table2.json"]
    claimed = tables.claimed(PAPER)
    assert claimed and set(tables.replicates_files(PAPER, claimed)) == set(claimed)
    assert tables.findings_replicates_args(PAPER).startswith("--replicates ")
    with pytest.raises(ValueError, match=f"config has no papers.{PAPER}.tables.table99"):
        tables.spec(PAPER, "table99")
