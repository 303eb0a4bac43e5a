"""Every module of the window and of search stands in its layer of the import-linter contracts
(pyproject.toml): a module left out of a layers contract may import anything, so a new one must be
placed before it is written against."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import grimp
import pytest

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def layered(container: str, contracts: list[dict]) -> set[str]:
    """The modules named in the layers of the contract whose container is ``container``."""
    [contract] = [c for c in contracts if c["type"] == "layers" and c.get("containers") == [container]]
    names = (name.strip() for layer in contract["layers"] for name in re.split(r"[|:]", layer))
    return {f"{container}.{name}" for name in names if name}


def unplaced(container: str, contracts: list[dict]) -> set[str]:
    """The modules of ``container`` (its direct children) no layer names."""
    graph = grimp.build_graph(container.split(".")[0], cache_dir=None)
    return graph.find_children(container) - layered(container, contracts)


@pytest.mark.parametrize("container", ["engram.ui", "engram.core.memory.search"])
def test_every_module_is_named_in_its_layers_contract(container):
    contracts = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]["contracts"]
    assert unplaced(container, contracts) == set()


def test_a_module_left_out_of_the_layers_is_found():
    contracts = [{"type": "layers", "containers": ["engram.ui"], "layers": ["main", "main_window | notice"]}]
    left_out = unplaced("engram.ui", contracts)
    assert "engram.ui.memories_tab" in left_out and not {"engram.ui.main", "engram.ui.notice"} & left_out
