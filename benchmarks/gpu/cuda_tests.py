"""Print the node ids of the tests marked to skip for want of CUDA (``skipif`` with the reason
"needs CUDA"), whether or not CUDA is present; runs none of them."""

import sys

import pytest


class CudaOnly:
    """Collects the CUDA tests' ids and deselects every test."""

    def __init__(self) -> None:
        self.ids: list[str] = []

    def pytest_collection_modifyitems(self, items, config) -> None:
        self.ids = [
            item.nodeid
            for item in items
            if any(m.kwargs.get("reason") == "needs CUDA" for m in item.iter_markers("skipif"))
        ]
        config.hook.pytest_deselected(items=list(items))
        items[:] = []


if __name__ == "__main__":
    plugin = CudaOnly()
    pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:xdist", "tests"], plugins=[plugin])
    if not plugin.ids:
        sys.exit("no CUDA tests collected")
    with open(sys.argv[1], "w") as out:
        out.write("\n".join(plugin.ids) + "\n")
