"""paracomp: regenerate the results tables of five papers on paraphrastic and compositional embeddings.

``__version__`` is looked up on first use (``importlib.metadata`` costs every command's
start-up a few tens of milliseconds otherwise).
"""

from functools import cache


@cache
def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("paracomp")
    except PackageNotFoundError:  # running from a source tree without installation
        return "0.0.0+source"


def __getattr__(name: str) -> str:
    if name == "__version__":
        return _version()
    raise AttributeError(f"module 'paracomp' has no attribute {name!r}")
