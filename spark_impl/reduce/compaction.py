"""When a group view is compacted, and what makes it safe (:mod:`spark_impl.reduce.group_generations`).

Shared by the stepped view runner and ``incspec pipeline``: each keeps one
:class:`Compaction` per view, tells it the facts of each micro-batch its handler let through
(:meth:`Compaction.seen`, by batch id: a micro-batch run again counts once), and, with the
view's query stopped, asks it to compact when due (:meth:`Compaction.compact_if_due`).

A compaction is written only when the query is stopped with nothing planned that is not
committed: a micro-batch Spark planned before the new generation existed would re-run with
the new generation's groups but without the rows re-stating them (its offsets, recorded in
the checkpoint, predate them). Over Spark Connect the handler runs on the server and its
facts do not come back: the counts stay at what the state held when the view started.
"""

from __future__ import annotations

import logging

from pyspark.sql import SparkSession

from spark_impl.reduce.group_batch import BatchFacts
from spark_impl.reduce.group_generations import Generations, GroupCounts
from spark_impl.reduce.maintained_view import MaintainedView
from spark_impl.storage.files import FileSystem
from spark_impl.storage.query_log import last_committed, latest_batch

log = logging.getLogger(__name__)


class Compaction:
    """A group view's counts (:class:`~spark_impl.reduce.group_generations.GroupCounts`) and
    its compactions, for the query checkpointed in ``checkpoint``."""

    def __init__(self, spark: SparkSession, fs: FileSystem, checkpoint: str,
                 generations: Generations, floor: int) -> None:
        self.spark, self.fs, self.checkpoint = spark, fs, checkpoint
        if floor < 1:
            raise ValueError(f"a compaction floor is at least 1 emptied group, not {floor}")
        self.generations, self.floor = generations, floor
        self.counts = GroupCounts()
        self._facts: dict[int, BatchFacts] = {}
        self._started = False

    def start(self, view: MaintainedView) -> None:
        """Count the groups ``view`` holds, once (a resumed view; a new one holds none)."""
        if self._started or not view.native:
            return
        self._started = True
        if self.committed() is not None:
            self.counts = view.group_counts(self.spark, self.checkpoint, self.generations.current)

    def seen(self, view: MaintainedView, batch_id: int) -> None:
        """In the batch handler, after the view's changes were handed on: keep micro-batch
        ``batch_id``'s facts."""
        facts, view.seen.last = view.seen.last, None
        if facts is not None:
            self._facts[batch_id] = facts

    def committed(self) -> int | None:
        return last_committed(self.fs, self.checkpoint)

    def planned(self) -> bool:
        """Whether the checkpoint holds a micro-batch planned and not committed."""
        return latest_batch(self.fs, f"{self.checkpoint}/offsets") != self.committed()

    def count(self) -> None:
        """Add the facts of the micro-batches committed since the last call."""
        last = self.committed()
        for batch_id in sorted(b for b in self._facts if last is not None and b <= last):
            facts = self._facts.pop(batch_id)
            self.counts.add(facts.filled, facts.emptied)

    def due(self) -> bool:
        self.count()
        return self.counts.due(self.floor)

    def eviction_done(self, view: MaintainedView) -> bool:
        """Whether ``view``'s plan holds the watermark and the older generation it evicts is
        gone: its query is better started again without it (every micro-batch under a
        watermark passes over the whole state; :mod:`~spark_impl.reduce.group_generations`)."""
        return view.evicting and not self.generations.evicting()

    def compact_if_due(self, view: MaintainedView) -> bool:
        """With ``view``'s query stopped: compact if due (:meth:`compact`)."""
        return self.due() and self.compact(view)

    def compact(self, view: MaintainedView) -> bool:
        """With ``view``'s query stopped: write its live groups as the next generation; the
        caller builds the view again (in the new generation) before it restarts the query.
        Nothing is done (False) for a fold view, one with nothing committed, one with a
        micro-batch planned and not committed, or one whose last generation is not read yet."""
        last = self.committed()
        if not view.native or last is None:
            return False
        if self.planned():
            return False
        if view.state_generation(self.spark, self.checkpoint) != self.generations.current:
            return False
        generation = self.generations.write(view.live_groups(self.spark, self.checkpoint))
        self.counts.emptied = 0
        log.info("%s: live groups re-stated as generation %d", self.checkpoint, generation)
        return True
