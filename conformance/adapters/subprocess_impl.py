"""A subprocess implementation speaking the JSON-lines protocol, in any language.

The suite writes one request per line on the process's stdin and reads one
reply per line from its stdout (stderr is for the implementation's logs: the
suite keeps them, and shows their end when the process crashes):

1. ``{"cmd": "start", "protocol": 1}`` -> ``{"implementation": {name, version, language, areas, features}}``
2. per case ``{"cmd": "run", "seq": N, "case": CASE}`` (the case without its expectations)
   -> ``{"seq": N, "result": {"observations": [...]}}`` | ``{"seq": N, "skipped": {"message"}}``
   | ``{"seq": N, "errored": {"message", "context"}}``
3. ``{"cmd": "stop"}`` (no reply; the process should exit).

Every message, both ways, is validated against ``schemas/protocol.schema.json``.
A reply that is late (``timeout`` seconds per case), malformed, or missing
because the process died makes that case *errored*; the process is restarted
and the run goes on.
"""

from __future__ import annotations

import json
import queue
import shlex
import subprocess
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from conformance.cases_model import Case
from conformance.protocols import AREAS, CaseResult, Handshake
from conformance.schema import SchemaError, validate_message

PROTOCOL_VERSION = 1
STARTUP_TIMEOUT = 30.0


class ProtocolError(RuntimeError):
    """The implementation broke the protocol (bad JSON, schema violation, wrong seq, died)."""


class _Process:
    """One running implementation process with a reader thread feeding a queue of lines."""

    def __init__(self, argv: Sequence[str], log: IO[str]) -> None:
        self.log = log
        self.proc = subprocess.Popen(
            list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
            text=True, encoding="utf-8", bufsize=1,
        )
        self.log_start = log.tell()
        self.lines: queue.Queue[str | None] = queue.Queue()
        assert self.proc.stdout is not None
        threading.Thread(target=self._pump, args=(self.proc.stdout,), daemon=True).start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.put(line)
        self.lines.put(None)  # end of output: the process exited or closed stdout

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message, ensure_ascii=False) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise ProtocolError(f"implementation crashed (exit code {self.proc.poll()}){self.log_tail()}") from exc

    def receive(self, kind: str, timeout: float) -> dict[str, Any]:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise ProtocolError(f"timed out after {timeout:g} s (the per-case timeout; --timeout to change it)") from None
        if line is None:
            code = self.proc.wait(timeout=5)
            raise ProtocolError(f"implementation crashed (exit code {code}){self.log_tail()}")
        try:
            message = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ProtocolError(f"reply is not JSON: {line[:200]!r}") from exc
        try:
            validate_message(kind, message)
        except SchemaError as exc:
            raise ProtocolError(str(exc)) from exc
        if not isinstance(message, dict):
            raise ProtocolError("reply is not a JSON object")
        return message

    def log_tail(self, chars: int = 400) -> str:
        """The end of what the process wrote on stderr, for a crash report."""
        self.log.flush()
        self.log.seek(self.log_start)
        text = self.log.read().strip()
        return f"; stderr: ...{text[-chars:]}" if text else ""

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream:
                stream.close()
        self.log.seek(0, 2)

    def stop(self) -> None:
        try:
            stop = {"cmd": "stop"}
            validate_message("stop", stop)
            self.send(stop)
            self.proc.wait(timeout=5)
        except (ProtocolError, subprocess.TimeoutExpired):
            pass
        self.kill()


class SubprocessImplementation:
    """A backend for :func:`conformance.execute.execute` running ``command`` as a subprocess."""

    def __init__(self, command: str | Sequence[str], timeout: float = 10.0, log: Path | None = None,
                 startup_timeout: float = STARTUP_TIMEOUT) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        self.timeout = timeout
        #: seconds the process may take to answer ``start`` (a JVM-backed engine under load takes long)
        self.startup_timeout = startup_timeout
        if log is None:
            with tempfile.NamedTemporaryFile(prefix="incspec-stderr-", suffix=".log", delete=False) as f:
                log = Path(f.name)
        #: the implementation's stderr, kept for the run (the JSON report names it)
        self.log_path = log
        log.write_text("", encoding="utf-8")
        # appended to by every process of the run (restarts too), whatever this side reads
        self._log = log.open("a+", encoding="utf-8")
        self._process: _Process | None = None
        self._handshake: Handshake | None = None
        self.restarts = 0

    def _start(self) -> _Process:
        process = _Process(self.argv, self._log)
        start = {"cmd": "start", "protocol": PROTOCOL_VERSION}
        validate_message("start", start)
        try:
            process.send(start)
            reply = process.receive("started", self.startup_timeout)
        except ProtocolError:
            process.kill()
            raise
        info = reply["implementation"]
        self._handshake = Handshake(
            name=info["name"], version=info["version"], language=info.get("language", "unknown"),
            areas=tuple(a for a in info["areas"] if a in AREAS), features=tuple(info["features"]),
            configuration=dict(info.get("configuration", {})),
        )
        return process

    def handshake(self) -> Handshake:
        if self._process is None:
            self._process = self._start()
        assert self._handshake is not None
        return self._handshake

    def _run_one(self, seq: int, case: Case) -> CaseResult:
        if self._process is None:
            self._process = self._start()
            self.restarts += 1
        request = {"cmd": "run", "seq": seq, "case": case.to_json(with_expectations=False)}
        validate_message("run", request)
        self._process.send(request)
        reply = self._process.receive("reply", self.timeout)
        if reply["seq"] != seq:
            raise ProtocolError(f"reply for seq {reply['seq']} while waiting for seq {seq}")
        if "result" in reply:
            return CaseResult(case.id, "result", tuple(reply["result"]["observations"]))
        if "skipped" in reply:
            return CaseResult(case.id, "skipped", message=reply["skipped"]["message"])
        return CaseResult(case.id, "errored", message=reply["errored"]["message"])

    def run(self, cases: Sequence[Case]) -> Iterator[CaseResult]:
        for seq, case in enumerate(cases):
            try:
                yield self._run_one(seq, case)
            except ProtocolError as exc:
                # the process is dead, hung or desynchronised: record, restart on the next case
                if self._process is not None:
                    self._process.kill()
                self._process = None
                yield CaseResult(case.id, "errored", message=str(exc))

    def close(self) -> None:
        if self._process is not None:
            self._process.stop()
            self._process = None
        self._log.close()
