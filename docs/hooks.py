"""mkdocs hooks: the papers' pages in the nav (one per paper of the list), and the pages generated
from the code (paracomp.reference.site) added to the site."""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from paracomp.papers import PAPERS
from paracomp.reference.site import generated


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    for section in config.nav or []:
        if isinstance(section, dict) and "Papers" in section:
            section["Papers"] = [{paper: f"papers/{paper}.md"} for paper in PAPERS]
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    root = Path(config.config_file_path).parent
    for path, content in generated(root, Path(config.docs_dir)).items():
        files.append(File.generated(config, path, content=content))
    return files
