"""A paper's registration (paracomp.registration): fields checked when it is made, each fault
naming the paper's rules file and the field; reads before registration refused, so no include
order is silent."""

from __future__ import annotations

import pytest

from paracomp.errors import ConfigError
from paracomp.registration import Registration, Registrations, built_embeddings


class _Grid:
    """The methods of a paracomp.train.grid.ScoredGrid, over one run of two points."""

    def point_runs(self) -> list[str]:
        return ["avg"]

    def point_grid(self, run: str) -> list[dict]:
        return [{"lr": 0.1}, {"lr": 0.01}]

    def point_settings(self, run: str) -> dict:
        return {"composer": "avg"}

    def point_replicates(self, run: str) -> None:
        return None

    def point_inputs(self, run: str, seed: int | None = None) -> dict:
        return {"pairs": "pairs.parquet"}

    def point_score(self, run: str, point: int, folder: str) -> str:
        return f"score {folder}"


def test_a_registration_is_read_once_every_paper_registered() -> None:
    registry = Registrations(["p1", "p2"])
    registry.register(
        Registration("p1", points=_Grid(), extras=["results/p1/plot.png"], custom_tables={"t1"})
    )
    assert registry["p1"].extras == ["results/p1/plot.png"]
    with pytest.raises(ConfigError, match=r"rules/papers/p2\.smk must be included first"):
        registry.point_grids()
    with pytest.raises(ConfigError, match=r"rules/papers/p2\.smk: read before it registered"):
        registry["p2"]
    registry.register(Registration("p2"))
    assert list(registry.point_grids()) == ["p1"]


def test_a_leaderboard_function_is_called_when_read() -> None:
    calls = []

    def models() -> dict:
        calls.append(1)
        return {"p1/run": {"paper": "p1", "run": "results/p1/run"}}

    registry = Registrations(["p1"])
    registry.register(Registration("p1", leaderboard=models))
    assert calls == []
    assert registry.leaderboard() == {"p1/run": {"paper": "p1", "run": "results/p1/run"}}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"run_data": "pairs.parquet"}, r"registration\.run_data: expected a function"),
        ({"points": object()}, r"registration\.points: lacks point_runs, point_grid"),
        ({"leaderboard": {"p2/run": {}}}, r"registration\.leaderboard: model 'p2/run'"),
        ({"leaderboard": {"p1/run": "x"}}, r"registration\.leaderboard: p1/run: expected a"),
        ({"custom_tables": "table1"}, r"registration\.custom_tables: expected a collection"),
    ],
)
def test_a_wrong_field_names_the_paper_and_the_field(fields: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=r"^rules/papers/p1\.smk: " + message):
        Registration("p1", **fields)


def test_unknown_papers_and_second_registrations_are_refused() -> None:
    registry = Registrations(["p1"])
    with pytest.raises(ConfigError, match=r"unknown paper 'p9'"):
        registry.register(Registration("p9"))
    registry.register(Registration("p1"))
    with pytest.raises(ConfigError, match=r"rules/papers/p1\.smk: registered twice"):
        registry.register(Registration("p1"))


def test_the_papers_declare_the_embeddings_they_build_before_any_rules_file() -> None:
    from paracomp.papers import PAPERS
    from paracomp.registry import paper_settings

    blocks = {paper: paper_settings(paper) for paper in PAPERS}
    lexical = blocks["wieting2015"]["lexical"]
    assert built_embeddings(PAPERS, blocks) == {
        "paragram-wieting2015": (lexical,),
        "paragram-wieting2015-full": (lexical,),
    }


def test_two_papers_building_one_embeddings_differently_are_named(monkeypatch) -> None:
    from types import SimpleNamespace

    from paracomp import registration

    declared = {"p1": {"vec": ["ppdb-xl"]}, "p2": {"vec": ["ppdb-s"]}, "p3": None}
    modules = {
        p: SimpleNamespace(**({"built_embeddings": lambda block, d=d: d} if d else {}))
        for p, d in declared.items()
    }
    modules["p4"] = None  # a paper of the generic rules alone: no workflow module
    monkeypatch.setattr(registration, "_workflow", modules.__getitem__)
    blocks = {p: {} for p in [*declared, "p4"]}
    assert built_embeddings(["p1", "p3", "p4"], blocks) == {"vec": ("ppdb-xl",)}
    with pytest.raises(ConfigError, match=r"'vec' are built by p1 from \['ppdb-xl'\] and by p2"):
        built_embeddings(["p1", "p2"], blocks)
