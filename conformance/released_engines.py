"""The released engines whose adapters ship in ``engines/``: how each is installed and run.

Each folder of ``engines/`` holds an adapter (a program speaking the JSON-lines
protocol), its dependency list (``package.json`` for npm, ``requirements.txt``
for pip) and an ``engine.json`` naming how to run it::

    {"install": "npm" | "pip" | "cargo", "python": "3.12" (pip only, optional: the least Python version),
     "runs": {"NAME": {"command": ["node", "{folder}/adapter.mjs", "--modules", "{cache}"],
                       "expectations": "expectations.json"}}}

A *skeleton* (an engine whose server or crates the project's machines cannot install, so it has
no results) also has ``"status": "skeleton"``, ``"reason"`` (why it is not run here),
``"requires"`` (what running it needs), ``"requires_env"`` (optional: the variable naming its
server) and ``"how"`` (the commands running it where it can be installed); :meth:`Engine.missing`
is the one line refusing to run it without its requirement.

``{folder}`` is the adapter's folder, ``{cache}`` the folder the engine is
installed into (``.engines/<folder name>/`` at the repository root, git-ignored, or
under ``$INCSPEC_ENGINE_CACHE``). ``incspec conform --engine NAME`` runs an
installed engine with its known failures (:func:`command`); ``incspec engines list |
install | results``, the tooling in ``engines/`` (which the suite does not import),
installs them and writes the results page. The adapters live in the source tree, so
these commands run from a checkout of the repository.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ROOT / "engines"


class EngineNotInstalled(RuntimeError):
    pass


@dataclass(frozen=True)
class Skeleton:
    """Why a skeleton engine is not run here, what running it needs, and how to run it there."""

    reason: str
    requires: str
    how: str
    requires_env: str = ""  # the variable naming the engine's server, when it has one


@dataclass(frozen=True)
class Engine:
    """One way of running a shipped adapter (an engine may offer several configurations)."""

    name: str
    folder: Path
    installer: str  # "npm" | "pip"
    command_template: tuple[str, ...]
    expectations: Path | None
    python: tuple[int, int] | None = None  # the least Python version a pip engine's venv needs
    skeleton: Skeleton | None = None  # set when the engine is a skeleton, never run here

    @property
    def cache(self) -> Path:
        base = Path(os.environ.get("INCSPEC_ENGINE_CACHE", ROOT / ".engines"))
        return base / self.folder.name

    def command(self) -> list[str]:
        fill = {"folder": str(self.folder), "cache": str(self.cache), "python": sys.executable}
        return [part.format(**fill) for part in self.command_template]

    def installed(self) -> bool:
        if self.installer == "cargo":  # the adapter is the binary cargo builds into the cache folder
            return Path(self.command()[0]).is_file()
        marker = "node_modules" if self.installer == "npm" else "bin/python"
        return (self.cache / marker).exists()

    def missing(self) -> str:
        """For a skeleton, the one line naming what is missing to run it ("" when nothing is, or
        when the engine is no skeleton)."""
        if self.skeleton is None:
            return ""
        env = self.skeleton.requires_env
        if env and not os.environ.get(env):
            absent = f"{env} is not set"
        elif not self.installed():
            absent = f"not installed: run `incspec engines install {self.name}`"
        else:
            return ""
        return (f"engine {self.name!r} is a skeleton, not run here: it needs {self.skeleton.requires} "
                f"({absent}); see engines/{self.folder.name}/README.md")

    def install_commands(self) -> list[list[str]]:
        """The commands installing the engine's dependencies into its cache folder."""
        if self.installer == "npm":
            return [["npm", "install", "--prefix", str(self.cache), "--no-audit", "--no-fund",
                     "--no-package-lock"]]
        if self.installer == "cargo":
            return [["cargo", "build", "--release", "--manifest-path", str(self.folder / "Cargo.toml"),
                     "--target-dir", str(self.cache)]]
        python = str(self.cache / "bin" / "python")
        return [[interpreter(self.python), "-m", "venv", str(self.cache)],
                [python, "-m", "pip", "install", "--quiet", "-r", str(self.folder / "requirements.txt")]]


def interpreter(least: tuple[int, int] | None) -> str:
    """A Python interpreter of at least version ``least`` for an engine's virtual environment: this
    one when it is recent enough, else ``$INCSPEC_ENGINE_PYTHON``, else the newest ``python3.N`` on
    the PATH that runs (a pyenv shim of a version not selected does not), else one under ``pyenv
    root``."""
    if least is None or sys.version_info[:2] >= least:
        return sys.executable
    if os.environ.get("INCSPEC_ENGINE_PYTHON"):
        return os.environ["INCSPEC_ENGINE_PYTHON"]
    minors = range(least[1] + 20, least[1] - 1, -1)
    for minor in minors:
        found = shutil.which(f"python{least[0]}.{minor}")
        if found and subprocess.run([found, "-c", ""], capture_output=True).returncode == 0:
            return found
    pyenv = shutil.which("pyenv")
    if pyenv:
        root = Path(subprocess.run([pyenv, "root"], capture_output=True, text=True).stdout.strip())
        for minor in minors:
            for candidate in sorted(root.glob(f"versions/{least[0]}.{minor}.*/bin/python{least[0]}.{minor}"),
                                    reverse=True):
                return str(candidate)
    raise EngineNotInstalled(f"the engine needs Python {least[0]}.{least[1]} or later: none found "
                             "(name one in INCSPEC_ENGINE_PYTHON)")


def shipped() -> dict[str, Engine]:
    """Every shipped engine configuration by name, read from ``engines/*/engine.json``."""
    found: dict[str, Engine] = {}
    for spec in sorted(ENGINES.glob("*/engine.json")):
        raw = json.loads(spec.read_text(encoding="utf-8"))
        for name, run in raw["runs"].items():
            expectations = run.get("expectations")
            least = tuple(int(p) for p in raw["python"].split(".")) if "python" in raw else None
            skeleton = (Skeleton(raw["reason"], raw["requires"], raw["how"], raw.get("requires_env", ""))
                        if raw.get("status") == "skeleton" else None)
            found[name] = Engine(name, spec.parent, raw["install"], tuple(run["command"]),
                                 spec.parent / expectations if expectations else None,
                                 (least[0], least[1]) if least else None, skeleton)
    return found


def install(engine: Engine) -> None:
    """Install ``engine`` into its cache folder (a no-op when it is there)."""
    if engine.installed():
        return
    engine.cache.mkdir(parents=True, exist_ok=True)
    if engine.installer == "npm":
        (engine.cache / "package.json").write_bytes((engine.folder / "package.json").read_bytes())
    for argv in engine.install_commands():
        subprocess.run(argv, check=True)


def command(name: str) -> tuple[list[str], Path | None]:
    """The command running the engine ``name`` and its expectations file."""
    engines = shipped()
    if name not in engines:
        raise KeyError(f"no shipped engine {name!r} (choose from {', '.join(engines)})")
    engine = engines[name]
    if engine.missing():
        raise EngineNotInstalled(engine.missing())
    if not engine.installed():
        raise EngineNotInstalled(f"engine {name!r} is not installed: run `incspec engines install {name}`")
    return engine.command(), engine.expectations
