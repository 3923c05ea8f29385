"""Seed replicates: runs expanded from the config (k and list forms, run > paper > training),
a cell over seeds (mean, sd, the interval over seeds and test pairs, a collapsed seed left out
and named) and the noise source findings name, on small hand-made evaluations."""

import json

import numpy as np
import pandas as pd
import pytest

from paracomp.cli import main
from paracomp.errors import ConfigError
from paracomp.eval.bootstrap import interval
from paracomp.registry import paper_settings, schema_path
from paracomp.settings import check, config_schema, load, part
from paracomp.tables.claims import Claim
from paracomp.tables.findings import findings
from paracomp.tables.replicates import read_replicates
from paracomp.tables.seeds import collapsed, combine
from paracomp.tables.verdicts import CellReplicates, dominant_noise, margin
from paracomp.train.replicates import expand, expand_blocks, replicate_name, split_replicate

RUN = {"data": "mono", "objective": "bicvm"}


def test_k_seeds_count_up_from_the_runs_own_and_share_its_tuning():
    out, groups = expand({"a": {**RUN, "replicates": 3}}, {}, {}, 1)
    assert groups == {"a": {1: "a", 2: "a_seed2", 3: "a_seed3"}}
    assert out["a"] == RUN
    assert out["a_seed3"] == {**RUN, "seed": 3, "tune_as": "a"}


def test_a_list_gives_exactly_its_seeds():
    runs = {"a": {**RUN, "seed": 5, "tune_as": "b", "replicates": [5, 9]}, "b": RUN}
    out, groups = expand(runs, {}, {}, 1)
    assert groups == {"a": {5: "a", 9: "a_seed9"}} and out["a_seed9"]["tune_as"] == "b"
    out, groups = expand({"a": {**RUN, "replicates": [2, 3]}}, {}, {}, 1)
    assert groups == {"a": {2: "a_seed2", 3: "a_seed3"}} and out["a"] == RUN


def test_run_over_paper_over_training_and_one_seed_is_none():
    runs = {"a": {**RUN, "replicates": 2}, "b": RUN}
    _, groups = expand(runs, {"replicates": 3}, {"replicates": [7, 8]}, 1)
    assert list(groups["a"]) == [1, 2] and list(groups["b"]) == [1, 2, 3]
    _, groups = expand({"b": RUN}, {}, {"replicates": [7, 8]}, 1)
    assert list(groups["b"]) == [7, 8]
    out, groups = expand({"b": RUN}, {"replicates": 1}, {"replicates": 3}, 1)
    assert groups == {} and out == {"b": RUN}


def test_a_replicate_named_as_a_configured_run_is_refused():
    with pytest.raises(ConfigError, match="'a_seed2' is also a configured run"):
        expand({"a": {**RUN, "replicates": 2}, "a_seed2": RUN}, {}, {}, 1)


def test_split_replicate_inverts_replicate_name():
    assert split_replicate(replicate_name("rnn-phrases", 3, 1)) == ("rnn-phrases", 3)
    assert split_replicate(replicate_name("a_seed", 12, 1)) == ("a_seed", 12)
    assert split_replicate("rnn-phrases") == ("rnn-phrases", None)
    assert split_replicate("a_seedless") == ("a_seedless", None)


def test_blocks_expand_in_place_from_training_defaults_seed():
    blocks = {"p": {"runs": {"a": RUN}, "replicates": 2}, "q": {"tables": {}}}
    groups = expand_blocks(blocks, {"defaults": {"seed": 10}})
    assert groups == {"p": {"a": {10: "a", 11: "a_seed11"}}}
    assert blocks["p"]["runs"]["a_seed11"]["seed"] == 11 and blocks["q"] == {"tables": {}}


def test_schemas_take_replicates_at_three_levels_and_refuse_bad_ones():
    training = part(config_schema(), "training")
    check({"defaults": {}, "replicates": [1, 2]}, training, "training")
    for bad in (0, [1, 1], "3"):
        with pytest.raises(ConfigError, match="replicates"):
            check({"defaults": {}, "replicates": bad}, training, "training")
    path = schema_path("elgohary2016")
    block = paper_settings(
        "elgohary2016", override={"replicates": 2, "runs": {"mono_jbi": {"replicates": [4, 5]}}}
    )
    check(block, load(path), "papers.elgohary2016", path)
    block["runs"]["mono_jbi"]["replicates"] = 0
    with pytest.raises(ConfigError, match="mono_jbi.replicates"):
        check(block, load(path), "papers.elgohary2016", path)


BOOT = np.random.default_rng(0).normal(0.6, 0.02, 1000)


def test_identical_seeds_give_the_test_pair_interval():
    found = combine("m", [1, 2, 3], [0.6] * 3, [BOOT] * 3, [""] * 3)
    assert found.value == pytest.approx(0.6) and found.sd == 0.0 and len(found.values) == 3
    assert np.array_equal(found.boot, BOOT) and interval(found.boot) == interval(BOOT)
    assert found.note == "mean over 3 seeds (1, 2, 3)"


def test_disagreeing_seeds_widen_the_interval():
    boots = [BOOT + shift for shift in (-0.05, 0.0, 0.05)]
    found = combine("m", [1, 2, 3], [0.55, 0.6, 0.65], boots, [""] * 3)
    assert found.sd == pytest.approx(0.05)
    low, high = interval(found.boot)
    base_low, base_high = interval(BOOT)
    assert high - low > 1.5 * (base_high - base_low)
    assert low < base_low - 0.03 and high > base_high + 0.03
    share = [np.mean(found.boot == b) for b in boots]  # resample b takes one seed's value b
    assert sum(share) == pytest.approx(1.0) and min(share) > 0.25


def test_a_collapsed_seed_is_left_out_and_named():
    assert collapsed([0.6, 0.58, 0.62]) == [False] * 3
    assert collapsed([0.6, 0.45, 0.62, None, float("nan")]) == [False, True, False, True, True]
    found = combine("m", [1, 2, 3], [0.61, 0.6, 0.05], [BOOT] * 3, [""] * 3)
    assert found.value == pytest.approx(0.605) and found.values == (0.61, 0.6)
    assert found.note == "mean over 2 seeds (1, 2); seed 3 collapsed (0.05 vs median 0.6): left out"
    diverged = combine(
        "m", [1, 2, 3], [0.61, None, 0.6], [BOOT, None, BOOT], ["", "correlation undefined", ""]
    )
    assert "seed 2 collapsed (correlation undefined" in diverged.note and diverged.boot is not None
    empty = combine("m", [1, 2], [None, None], [None, None], ["no pairs of x", "no pairs of x"])
    assert empty.value is None and empty.note == "no pairs of x"  # missing data: no collapse


def test_margin_is_the_distance_from_flipping():
    claim = Claim("c", "", "", "[t|r|a] > [t|r|b] and [t|r|c] < [t|r|d]")
    assert margin(claim.tree, [3.0, 1.0, 5.0, 5.5]) == pytest.approx(0.5)
    assert margin(Claim("c", "", "", "[t|r|a] > [t|r|b] or [t|r|a] > 9").tree, [3.0, 1.0]) == 2.0


def _cells(seeds_a, seeds_b, test_sd):
    rng = np.random.default_rng(1)
    tests = [mean + rng.normal(0, test_sd, 1000) for mean in (0.6, 0.5)]
    return {
        ("t", "r", name, ""): CellReplicates(test, ("s/x/test",), np.asarray(seeds), test)
        for name, seeds, test in zip("ab", (seeds_a, seeds_b), tests, strict=True)
    }


def test_the_dominant_noise_source_is_named():
    claim = Claim("c", "", "", "[t|r|a] > [t|r|b]")
    values = {("t", "r", "a", ""): 0.6, ("t", "r", "b", ""): 0.5}
    seedy = dominant_noise(claim, values, _cells([0.5, 0.7, 0.6], [0.5, 0.52, 0.48], 0.005))
    assert seedy.startswith("seeds dominate (margin sd over 3 seeds")
    testy = dominant_noise(claim, values, _cells([0.6, 0.601, 0.599], [0.5, 0.5, 0.5], 0.05))
    assert testy.startswith("test pairs dominate")
    unseeded = {c: CellReplicates(r.values, r.sets) for c, r in _cells([0.6], [0.5], 0.01).items()}
    assert dominant_noise(claim, values, unseeded) == ""


def _eval_folder(folder, seed, scale):
    """A model's evaluation of SICK test: 200 pairs, predictions gold + noise of ``scale``."""
    rng = np.random.default_rng(0)
    gold = rng.uniform(0, 5, 200)
    pred = gold + np.random.default_rng(seed).normal(0, scale, 200)
    folder.mkdir()
    r = float(np.corrcoef(gold, pred)[0, 1])
    pd.DataFrame([{
        "dataset": "sick2014", "subset": "sick", "split": "test", "n": 200, "n_oov": 0,
        "n_dropped": 0, "pearson": r, "spearman": r, "source": "mirror", "note": "",
    }]).to_csv(folder / "sts.csv", index=False)  # fmt: skip
    pd.DataFrame({
        "dataset": "sick2014", "subset": "sick", "split": "test", "id": map(str, range(200)),
        "gold": gold, "pred": pred, "oov": False, "dropped": False,
    }).to_parquet(folder / "pairs.parquet")  # fmt: skip
    return r


def test_a_table_over_seeds_and_its_findings(tmp_path):
    """`paracomp table --replicate`: the mean, sd and replicates over seeds, a collapsed seed
    left out; then findings on those files name the dominant noise and the collapsed seed."""
    rs = [
        _eval_folder(tmp_path / f"g{s}", s, scale) for s, scale in ((1, 1.0), (2, 1.6), (3, 40.0))
    ]
    _eval_folder(tmp_path / "h", 9, 1.3)
    spec = {"aggregation": "mean", "columns": {"glove": {"model": "g"}, "biphr_1m": {"model": "h"}}}
    out = tmp_path / "table6.csv"
    args = ["table", "elgohary2016", "table6", "--spec", json.dumps(spec), "--out", str(out)]
    args += ["--eval", f"g={tmp_path / 'g1'}", f"h={tmp_path / 'h'}", "--replicate"]
    args += [f"g:{s}={tmp_path / f'g{s}'}" for s in (1, 2, 3)]
    assert main(args) == 0
    compare = pd.read_csv(tmp_path / "table6.compare.csv").set_index(["row", "column"])
    glove, other = compare.loc[("SICK", "glove")], compare.loc[("SICK", "biphr_1m")]
    assert glove["ours"] == round(np.mean(rs[:2]), 2) and glove["replicates"] == 2
    assert glove["sd"] == round(np.std(rs[:2], ddof=1), 3)
    assert f"seed 3 collapsed ({rs[2]:.4g} vs median" in glove["note"]
    assert other["replicates"] == 1 and pd.isna(other["sd"])
    missing = compare.loc[("2012", "glove")]  # no 2012 subset in any seed: empty, no collapse
    assert pd.isna(missing["ours"]) and "collapsed" not in missing["note"]
    reps = read_replicates(tmp_path / "table6.replicates.parquet")
    assert reps.seeds == {"SICK|glove": list(rs[:2])} and list(reps.test) == ["SICK|glove"]
    claims = [Claim("c", "q", "w", "[table6|SICK|glove] > [table6|SICK|biphr_1m]")]
    row = findings(
        claims,
        {"table6": tmp_path / "table6.compare.csv"},
        {"table6": tmp_path / "table6.replicates.parquet"},
    )[0]
    assert row["holds"] == "yes" and "dominate (margin sd over 2 seeds" in row["noise"]
    assert "collapsed seeds left out: [table6|SICK|glove]: seed 3 collapsed" in row["noise"]


def test_without_replicates_the_file_has_no_seed_parts(tmp_path):
    _eval_folder(tmp_path / "g", 1, 1.0)
    spec = {"aggregation": "mean", "columns": {"glove": {"model": "g"}}}
    out = tmp_path / "table6.csv"
    args = ["table", "elgohary2016", "table6", "--spec", json.dumps(spec), "--out", str(out)]
    assert main([*args, "--eval", f"g={tmp_path / 'g'}"]) == 0
    reps = read_replicates(tmp_path / "table6.replicates.parquet")
    assert reps.seeds == {} and reps.test == {} and list(reps.values) == ["SICK|glove"]
    import pyarrow.parquet as pq

    meta = json.loads(
        pq.read_schema(tmp_path / "table6.replicates.parquet").metadata[b"paracomp.replicates"]
    )
    assert set(meta) == {"resamples", "seed", "sets"}


def test_a_replicate_without_its_seed_is_refused_in_one_line(tmp_path, capsys):
    args = [
        "table",
        "elgohary2016",
        "table6",
        "--spec",
        '{"columns": {}}',
        "--out",
        str(tmp_path / "t.csv"),
    ]
    assert main([*args, "--replicate", f"g={tmp_path}"]) != 0
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"--replicate: expected NAME:SEED=VALUE, got g={tmp_path}")
    assert len(err.splitlines()) == 1
