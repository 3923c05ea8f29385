"""paracomp: regenerate the results tables of five papers on paraphrastic and compositional embeddings.

``paracomp.load_encoder(source)`` gives any trained or pretrained model's sentence encoder
(:func:`paracomp.encoders.load.load_encoder`). It and ``__version__`` are looked up on first
use (``importlib.metadata`` costs every command's start-up a few tens of milliseconds
otherwise; the encoders import numpy).
"""

from functools import cache
from typing import Any


@cache
def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("paracomp")
    except PackageNotFoundError:  # running from a source tree without installation
        return "0.0.0+source"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return _version()
    if name == "load_encoder":  # a facade: looked up by name, as the encoders import paracomp
        from importlib import import_module

        return import_module("paracomp.encoders.load").load_encoder
    raise AttributeError(f"module 'paracomp' has no attribute {name!r}")
