"""The generated pages of the docs site, by their path in the site (``docs/hooks.py`` adds
them when ``mkdocs build`` runs): the README as the home page, one page per paper from its
README, and the reference of config keys, commands and targets."""

from __future__ import annotations

from pathlib import Path

from paracomp.papers import PAPERS
from paracomp.reference import commands, pages, schema, targets

TABLE_SCHEMA = "src/paracomp/tables/table.schema.yaml"
RUN_SCHEMA = "src/paracomp/run_config.schema.yaml"
CONFIGS = {
    "the embedded default": (),
    "the published settings": ("config.yaml", "config/published.yaml"),
}
"""The settings the targets page lists the named targets under, and their config files."""


def paper_readme(paper: str) -> str:
    return f"src/paracomp/papers/{paper}/README.md"


def schema_files() -> dict[str, tuple[str, str]]:
    """Every user-facing schema: its file -> (its section's title, the prefix of its keys)."""
    files = {
        "src/paracomp/config.schema.yaml": ("Workflow config", ""),
        RUN_SCHEMA: ("Run settings", ""),
        TABLE_SCHEMA: ("Paper tables", "papers.<paper>.tables"),
    }
    for paper in PAPERS:
        files[f"src/paracomp/papers/{paper}/config.schema.yaml"] = (
            f"papers.{paper}",
            f"papers.{paper}",
        )
    return files


def generated(root: Path, docs: Path) -> dict[str, str]:
    """Every generated page: site path -> markdown. ``docs`` is the site's source folder (its
    markdown files are the pages a README links to)."""
    out = readme_pages(root, docs)
    out["reference/config.md"] = config_page(root)
    out["reference/cli.md"] = cli_page()
    out["reference/targets.md"] = targets_page(root)
    return out


def readme_pages(root: Path, docs: Path) -> dict[str, str]:
    """The README as the home page and each paper's README as its page, their relative links
    pointed at the site's pages (``docs``'s markdown files and these)."""
    links = {
        (docs / page).relative_to(root).as_posix(): page.as_posix()
        for page in (p.relative_to(docs) for p in docs.rglob("*.md"))
    }
    sources = {"README.md": "index.md"} | {paper_readme(p): f"papers/{p}.md" for p in PAPERS}
    links |= sources
    return {
        page: pages.relink((root / source).read_text(), source, page, links)
        for source, page in sources.items()
    }


def config_page(root: Path) -> str:
    files = schema_files()
    anchors = {"../../tables/table.schema.yaml": "#" + _anchor(files[TABLE_SCHEMA][0])}
    out = [
        "# Config keys",
        "",
        "Generated from the JSON schemas the workflow validates its config against when it "
        "builds the DAG; each section names its file. A `<name>` stands for a key of your "
        "choice, `[]` for an item of a list.",
        "",
    ]
    for path, (title, prefix) in files.items():
        top = schema.load(root / path).get("description", "")
        under = f" Its keys are under `{prefix}`." if prefix else ""
        out += [f"## {title}", "", f"`{path}`: {top}.{under}", ""]
        out.append(schema.markdown(schema.keys(root / path, prefix), anchors))
    return "\n".join(out)


def cli_page() -> str:
    from paracomp.cli import build_parser

    found = commands.commands(build_parser())
    intro = [
        "# The `paracomp` command",
        "",
        "Generated from its argparse parser (`src/paracomp/cli/`, each paper's `cli.py`). The "
        "rules call these commands; `paracomp <command> --help` prints the same.",
        "",
    ]
    return "\n".join(intro) + commands.markdown(found)


def targets_page(root: Path) -> str:
    read = {label: targets.read(root, files) for label, files in CONFIGS.items()}
    intro = [
        "# Snakemake targets",
        "",
        "Read by Snakemake from the `Snakefile` (no job is run): each named target with the files "
        "it builds under the embedded default and under the published settings "
        "(`--configfile config.yaml config/published.yaml`), then every rule with the files it "
        "makes (`{wildcards}` in braces). Any of those files is a target too.",
        "",
    ]
    return "\n".join(intro) + targets.markdown(read)


def _anchor(title: str) -> str:
    """The id mkdocs gives a heading (the default ``toc`` slugify)."""
    import re

    text = re.sub(r"[^\w\s-]", "", title.lower())
    return re.sub(r"[\s-]+", "-", text).strip("-")
