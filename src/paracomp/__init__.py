"""paracomp: regenerate the results tables of five papers on paraphrastic and compositional embeddings."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("paracomp")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+source"
