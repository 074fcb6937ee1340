"""The engines that cannot be installed here (Feldera, Materialize, differential-dataflow): adapter
skeletons, listed on the results page with how to run them and never with results, refused in one
line without their server or toolchain. Nothing is downloaded and no server runs."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance import conform, released_engines
from conformance.adapters.subprocess_impl import SubprocessImplementation
from conformance.execute import execute
from conformance.loader import load_cases
from engines import cli, results_data, results_page

SKELETONS = {"feldera": "FELDERA_URL", "materialize": "MATERIALIZE_URL", "differential-dataflow": ""}


@pytest.fixture
def nothing_there(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No server variable set and an empty engine cache: no skeleton's requirement is present."""
    for env in SKELETONS.values():
        if env:
            monkeypatch.delenv(env, raising=False)
    monkeypatch.setenv("INCSPEC_ENGINE_CACHE", str(tmp_path / "cache"))
    return tmp_path


def test_the_three_skeletons_are_shipped_with_their_reason_requirement_and_command() -> None:
    shipped = released_engines.shipped()
    for name, env in SKELETONS.items():
        skeleton = shipped[name].skeleton
        assert skeleton is not None, name
        assert skeleton.reason and skeleton.requires and f"incspec conform --engine {name}" in skeleton.how
        assert skeleton.requires_env == env
        assert (shipped[name].folder / "README.md").is_file()
    assert all(e.skeleton is None for n, e in shipped.items() if n not in SKELETONS)


def test_the_page_lists_the_skeletons_on_one_line_each_and_no_results() -> None:
    skeletons = results_page.skeletons()
    assert [e.name for e in skeletons] == sorted(SKELETONS)
    content = results_data.read()
    page = results_page.page(content, skeletons)
    section = page.split("## Engines not run here\n", 1)[1]
    lines = [line for line in section.splitlines() if line.startswith("- **")]
    assert len(lines) == 3
    for engine, line in zip(skeletons, lines, strict=True):
        assert engine.skeleton is not None
        assert line == results_page.skeleton_line(engine)
        assert engine.skeleton.reason in line and engine.skeleton.how in line
    assert "|" not in section  # no table: a skeleton has no results
    assert not any(f"## {name}\n" in page for name in SKELETONS)
    assert not {e["name"] for e in content["engines"]} & set(SKELETONS)
    # the page in the repository is this one (incspec engines results --page-only)
    assert (released_engines.ROOT / "docs" / "ENGINES.md").read_text(encoding="utf-8") == page


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("name", sorted(SKELETONS))
def test_running_a_skeleton_without_its_requirement_exits_with_one_line(
        name: str, nothing_there: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = "is not set" if SKELETONS[name] else "not installed"
    assert conform.main(["--engine", name, "--no-progress"]) == 2
    line = one_line(capsys.readouterr().err)
    assert line.startswith(f"incspec conform: engine {name!r} is a skeleton, not run here: it needs ")
    assert missing in line and f"engines/{name}/README.md" in line
    out, data = nothing_there / "ENGINES.md", nothing_there / "results.json"
    for command in (["results", "--engine", name], ["explore", "--engine", name]):
        assert cli.main([*command, "--out", str(out), "--data", str(data)]) == 2
        assert one_line(capsys.readouterr().err).startswith(f"incspec engines {command[0]}: engine {name!r}")
    assert not out.exists() and not data.exists()  # no entry, let alone a result


def test_a_skeleton_with_its_server_named_but_not_installed_says_so(
        nothing_there: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FELDERA_URL", "http://localhost:8080")
    engine = released_engines.shipped()["feldera"]
    assert "(not installed: run `incspec engines install feldera`)" in engine.missing()
    assert released_engines.shipped()["pydbsp"].missing() == ""  # no skeleton: never refused so


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@pytest.mark.parametrize(("name", "url"), [("feldera", "http://127.0.0.1:{port}"),
                                           ("materialize", "postgresql://materialize@127.0.0.1:{port}/materialize")])
def test_a_skeleton_adapter_refuses_in_one_line_without_its_server(name: str, url: str, nothing_there: Path) -> None:
    adapter = [sys.executable, str(released_engines.ENGINES / name / "adapter.py")]
    env = {k: v for k, v in os.environ.items() if k != SKELETONS[name]}
    absent = subprocess.run(adapter, input="", capture_output=True, text=True, env=env, timeout=30)
    assert absent.returncode == 2 and absent.stdout == ""
    assert f"({SKELETONS[name]} is not set)" in one_line(absent.stderr)
    named = url.format(port=closed_port())
    closed = subprocess.run(adapter, input="", capture_output=True, text=True, timeout=30,
                            env={**env, SKELETONS[name]: named})
    assert closed.returncode == 2 and closed.stdout == ""
    assert f"answers at {SKELETONS[name]}={named}: " in one_line(closed.stderr)


@pytest.fixture
def listening() -> Iterator[int]:
    """A local port accepting connections (standing in for the server's, which is only probed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


#: stand-ins for the clients (the adapters import them only once a server answers), each with its version
CLIENTS = {
    "feldera": ("", "0.0.0"),
    "materialize": ("""
class Error(Exception):
    pass


class Connection:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def execute(self, sql):
        assert sql == "SELECT mz_version()"
        return self

    def fetchone(self):
        return ("v0.0.0 (stand-in)",)


def connect(url):
    return Connection()
""", "v0.0.0 (stand-in)"),
}
AREAS = {"feldera": ["zset", "fixpoint"], "materialize": ["reduce", "fixpoint"]}


@pytest.mark.parametrize("name", sorted(CLIENTS))
def test_a_sql_skeleton_answers_the_handshake_and_skips_every_case(
        name: str, listening: int, nothing_there: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a server answering and its client importable (a stand-in package here), the skeleton
    speaks the protocol: its handshake validates, and every case of its areas is skipped, never
    answered with a result."""
    module = {"feldera": "feldera", "materialize": "psycopg"}[name]
    source, version = CLIENTS[name]
    client = nothing_there / "client"
    (client / module).mkdir(parents=True)
    (client / module / "__init__.py").write_text(source)
    (client / f"{module}-0.0.0.dist-info").mkdir()
    (client / f"{module}-0.0.0.dist-info" / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.0.0\n")
    monkeypatch.setenv("PYTHONPATH", str(client))
    url = {"feldera": "http://127.0.0.1:{port}", "materialize": "postgresql://materialize@127.0.0.1:{port}/db"}[name]
    monkeypatch.setenv(SKELETONS[name], url.format(port=listening))
    backend = SubprocessImplementation([sys.executable, str(released_engines.ENGINES / name / "adapter.py")],
                                       timeout=30)
    cases = [c for c in load_cases() if c.area == "fixpoint"][:3] + [c for c in load_cases() if c.area == "reduce"][:3]
    try:
        handshake, outcomes = execute(backend, cases)
    finally:
        backend.close()
    assert handshake.name == name and handshake.version == version and list(handshake.areas) == AREAS[name]
    assert handshake.configuration is not None and "skeleton" in handshake.configuration["status"]
    expected = ["skipped" if c.area in AREAS[name] else "unsupported" for c in cases]
    assert [o.status for o in outcomes] == expected
    assert all(f"{name} skeleton: the {o.case.area} mapping" in o.message for o in outcomes if o.status == "skipped")


def test_the_engines_command_lists_skeletons_with_what_they_miss_and_install_all_leaves_them_out(
        nothing_there: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["list"]) == 0
    listed = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    for name in SKELETONS:
        assert f"skeleton: engine {name!r} is a skeleton, not run here" in listed[name]
    installed: list[str] = []
    monkeypatch.setattr(cli, "install", lambda engine: installed.append(engine.name))
    assert cli.main(["install", "--all"]) == 0
    assert installed and not set(installed) & set(SKELETONS)
    dd = released_engines.shipped()["differential-dataflow"]
    assert dd.install_commands() == [["cargo", "build", "--release", "--manifest-path",
                                      str(dd.folder / "Cargo.toml"), "--target-dir", str(dd.cache)]]
    assert dd.command() == [str(dd.cache / "release" / "incspec-differential-dataflow")] and not dd.installed()


def test_a_skeleton_that_cannot_be_installed_says_why_in_one_line(
        nothing_there: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def offline(engine: released_engines.Engine) -> None:
        raise subprocess.CalledProcessError(101, ["cargo", "build"])

    monkeypatch.setattr(cli, "install", offline)
    assert cli.main(["install", "differential-dataflow"]) == 1
    line = one_line(capsys.readouterr().err)
    assert line.startswith("incspec engines: differential-dataflow could not be installed (")
    assert "crates.io" in line


def test_the_page_is_written_again_without_running_an_engine(tmp_path: Path) -> None:
    """``incspec engines results --page-only``: the page of the recorded data and the skeletons."""
    out = tmp_path / "ENGINES.md"
    assert results_page.main(["--page-only", "--out", str(out), "--data", str(results_data.RESULTS)]) == 0
    assert out.read_text(encoding="utf-8") == (released_engines.ROOT / "docs" / "ENGINES.md").read_text(encoding="utf-8")
    assert "## Engines not run here" in out.read_text(encoding="utf-8")


def test_an_engine_that_cannot_be_installed_says_so_in_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Not a skeleton alone: an ordinary engine whose installer fails (npm offline, say) ends
    ``incspec engines install`` with exit 1 and one line, not a traceback."""
    def offline(engine: released_engines.Engine) -> None:
        raise subprocess.CalledProcessError(1, ["npm", "install"])

    monkeypatch.setattr(cli, "install", offline)
    assert cli.main(["install", "d2ts"]) == 1
    line = one_line(capsys.readouterr().err)
    assert line.startswith("incspec engines: d2ts could not be installed (") and "npm" in line, line
