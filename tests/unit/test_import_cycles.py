"""No module of the engram package is in an import circle: neither side of a circle can be read,
tested or changed alone. Imports made only for the type checker count too (a reader still has to
go round the circle), which the import-linter contracts in pyproject.toml leave out."""

from __future__ import annotations

import grimp


def import_graph(package: str):
    """Every import between ``package``'s modules, those under ``if TYPE_CHECKING:`` included (no
    cache: grimp's may answer from an older build)."""
    return grimp.build_graph(package, exclude_type_checking_imports=False, cache_dir=None)


def circles(graph) -> list[tuple[str, ...]]:
    """Each import that is part of a circle, with the way back: (importer, imported, ..., importer)."""
    found = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back:
                found.append((importer, *back))
    return found


def test_no_module_of_engram_is_in_an_import_circle():
    assert circles(import_graph("engram")) == []


def test_a_circle_is_found_also_through_an_import_for_the_type_checker(tmp_path, monkeypatch):
    package = tmp_path / "circular"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from circular.b import B\n")
    (package / "b.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                                  "    from circular.c import C\nB = 1\n")
    (package / "c.py").write_text("import circular.a\nC = 2\n")
    (package / "d.py").write_text("import circular.a\n")               # imports the circle, is not in it
    monkeypatch.syspath_prepend(str(tmp_path))

    found = circles(import_graph("circular"))
    assert {chain[0] for chain in found} == {"circular.a", "circular.b", "circular.c"}
    assert ("circular.a", "circular.b", "circular.c", "circular.a") in found
