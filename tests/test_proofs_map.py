"""Checks of the proofs map itself: it must fail when evidence is missing, an
iff direction is unchecked, or a check cites an unknown ID (a check that cannot
fail is worthless, so each failure mode is exercised on a scratch project)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from proofs_map.__main__ import main
from proofs_map.catalog import CatalogError, load_catalog
from proofs_map.evidence import MarkerError, collect_checks

THEOREM = """
[[item]]
id = "SKIP-THM-99"
kind = "theorem"
number = "99"
title = "A scratch theorem"
section = "0"
statement = "P iff Q"
parts = ["1=>2", "2=>1"]
"""


def scratch(tmp_path: Path, catalog: str, test_source: str) -> Path:
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "scratch.toml").write_text(catalog, encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_scratch.py").write_text(textwrap.dedent(test_source), encoding="utf-8")
    return tmp_path


def run(root: Path, *args: str) -> int:
    return main(["--root", str(root), *args])


def test_both_directions_and_two_kinds_pass(tmp_path: Path) -> None:
    root = scratch(tmp_path, THEOREM, """
        import pytest
        @pytest.mark.spec("SKIP-THM-99", evidence="property", part="1=>2")
        def test_a(): ...
        @pytest.mark.spec("SKIP-THM-99", evidence="exhaustive", part="2=>1")
        def test_b(): ...
    """)
    assert run(root, "--check") == 0


def test_missing_direction_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = scratch(tmp_path, THEOREM, """
        import pytest
        @pytest.mark.spec("SKIP-THM-99", evidence="property", part="1=>2")
        def test_a(): ...
        @pytest.mark.spec("SKIP-THM-99", evidence="exhaustive", part="1=>2")
        def test_b(): ...
    """)
    assert run(root, "--check") == 1
    assert "no check for part '2=>1'" in capsys.readouterr().err


def test_single_kind_of_evidence_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = scratch(tmp_path, THEOREM, """
        import pytest
        @pytest.mark.spec("SKIP-THM-99", evidence="property", part="1=>2")
        def test_a(): ...
        @pytest.mark.spec("SKIP-THM-99", evidence="property", part="2=>1")
        def test_b(): ...
    """)
    assert run(root, "--check") == 1
    assert "needs 2 kinds" in capsys.readouterr().err


def test_unchecked_theorem_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = scratch(tmp_path, THEOREM, "def test_nothing(): ...\n")
    assert run(root, "--check") == 1
    assert "without any executable check" in capsys.readouterr().err


def test_unknown_id_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = scratch(tmp_path, "", """
        import pytest
        @pytest.mark.spec("SKIP-THM-404", evidence="example")
        def test_a(): ...
    """)
    assert run(root, "--check") == 1
    assert "unknown ID SKIP-THM-404" in capsys.readouterr().err


def test_marker_without_evidence_kind_is_rejected(tmp_path: Path) -> None:
    root = scratch(tmp_path, THEOREM, """
        import pytest
        @pytest.mark.spec("SKIP-THM-99")
        def test_a(): ...
    """)
    with pytest.raises(MarkerError):
        collect_checks(root)


def test_duplicate_id_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text(THEOREM + THEOREM, encoding="utf-8")
    with pytest.raises(CatalogError, match="duplicate"):
        load_catalog(tmp_path)


def test_json_output_has_the_documented_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = scratch(tmp_path, THEOREM, """
        import pytest
        class TestGroup:
            @pytest.mark.spec("SKIP-THM-99", evidence="example", part="1=>2")
            def test_a(self): ...
    """)
    assert run(root, "--json") == 0
    (entry,) = json.loads(capsys.readouterr().out)
    assert entry["id"] == "SKIP-THM-99" and entry["kind"] == "theorem"
    assert entry["evidence"] == ["example"] and entry["status"] == "missing-evidence"
    assert entry["checks"][0]["location"] == "tests/test_scratch.py::TestGroup::test_a"


def test_the_project_catalog_passes_its_own_check() -> None:
    assert main(["--check"]) == 0


def definition(spec_id: str) -> str:
    return f"""
[[item]]
id = "{spec_id}"
kind = "definition"
number = "98"
title = "A scratch definition"
section = "0"
statement = "Let x be."
"""


def test_a_check_citing_another_papers_area_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Under tests/<paper>/ only that paper's catalog; elsewhere one paper per check."""
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "skip.toml").write_text(definition("SKIP-DEF-98"), encoding="utf-8")
    (tmp_path / "spec" / "stream.toml").write_text(definition("STREAM-DEF-98"), encoding="utf-8")
    (tmp_path / "tests" / "skip").mkdir(parents=True)
    own = 'import pytest\n@pytest.mark.spec("SKIP-DEF-98", evidence="example")\ndef test_own(): ...\n'
    (tmp_path / "tests" / "skip" / "test_own.py").write_text(own, encoding="utf-8")
    (tmp_path / "tests" / "test_one_paper.py").write_text(own.replace("own", "one"), encoding="utf-8")
    assert run(tmp_path, "--check") == 0
    foreign = 'import pytest\n@pytest.mark.spec("STREAM-DEF-98", evidence="example")\ndef test_foreign(): ...\n'
    (tmp_path / "tests" / "skip" / "test_foreign.py").write_text(foreign, encoding="utf-8")
    assert run(tmp_path, "--check") == 1
    assert "tests/skip/test_foreign.py::test_foreign: cites items of another paper's area (stream.toml)" in (
        capsys.readouterr().err)
    (tmp_path / "tests" / "skip" / "test_foreign.py").unlink()
    mixed = ('import pytest\n@pytest.mark.spec("SKIP-DEF-98", "STREAM-DEF-98", evidence="example")\n'
             'def test_mixed(): ...\n')
    (tmp_path / "tests" / "test_mixed.py").write_text(mixed, encoding="utf-8")
    assert run(tmp_path, "--check") == 1
    assert "tests/test_mixed.py::test_mixed: cites items of 2 papers' areas" in capsys.readouterr().err


BAD_REFERENCES = """
[[item]]
id = "SKIP-DEF-98"
kind = "definition"
number = "98"
title = "A scratch definition that points nowhere"
section = "0"
statement = "x"
reference = ["reference.reduce.no_such_function", "no_such_package.thing"]

[[item]]
id = "SKIP-THM-97"
kind = "lemma"
number = "97"
title = "A lemma with a theorem's ID"
section = "0"
statement = "x"
reference = ["reference.reduce.fold"]
"""


def test_unresolved_references_and_wrong_kind_tokens_fail(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    root = scratch(tmp_path, BAD_REFERENCES, """
        import pytest
        @pytest.mark.spec("SKIP-THM-97", evidence="example")
        def test_a(): ...
        @pytest.mark.spec("SKIP-THM-97", evidence="property")
        def test_b(): ...
        """)
    assert run(root, "--check") == 1
    err = capsys.readouterr().err
    assert "SKIP-DEF-98: reference 'reference.reduce.no_such_function' does not resolve" in err
    assert "SKIP-DEF-98: reference 'no_such_package.thing' does not resolve" in err
    assert "SKIP-THM-97: kind 'lemma' wants the ID token 'LEM', not 'THM'" in err
