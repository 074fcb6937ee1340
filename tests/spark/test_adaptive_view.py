"""A group reducer's view that moves between the stream and the bulk path (SKIP-DEC-SPARK-BULK):
the policy's choices, and the reference's views and changes across moves both ways."""

from __future__ import annotations

from typing import Any

import pytest

from tests.spark.oracle import ReduceModel

pytestmark = pytest.mark.spark


def test_large_batches_move_the_view_to_the_bulk_path_once_staying_cost_the_move() -> None:
    from spark_impl.reduce.adaptive_view import CostModel, SkiRental

    model = CostModel()
    policy = SkiRental(model)
    stored, big = 2_000_000, 1_000_000
    saved = model.step("stream", big, stored) - model.step("bulk", big, stored)
    assert 0 < saved < model.move("bulk", stored)  # one batch alone does not pay the move
    needed = -(-model.move("bulk", stored) // saved)  # batches until the regret pays the move
    chosen = [policy.choose("stream", big, stored) for _ in range(int(needed))]
    assert chosen == ["stream"] * (int(needed) - 1) + ["bulk"]


def test_small_batches_stay_where_they_are_cheaper_and_a_first_load_goes_to_the_tables() -> None:
    from spark_impl.reduce.adaptive_view import CostModel, SkiRental

    policy = SkiRental(CostModel())
    assert [policy.choose("stream", 100, 2_000_000) for _ in range(50)] == ["stream"] * 50
    assert policy.regret == 0.0
    # nothing stored, nothing to move: a large load goes to the tables at once
    assert SkiRental(CostModel()).choose("stream", 1_000_000, 0) == "bulk"


def test_small_batches_over_a_large_state_bring_the_view_back_to_the_stream_path() -> None:
    from spark_impl.reduce.adaptive_view import CostModel, SkiRental

    model, stored, small = CostModel(), 2_000_000, 10_000
    policy = SkiRental(model)
    saved = model.step("bulk", small, stored) - model.step("stream", small, stored)
    needed = -(-model.move("stream", stored) // saved)  # batches until the regret pays the move
    chosen = [policy.choose("bulk", small, stored) for _ in range(int(needed))]
    assert chosen == ["bulk"] * (int(needed) - 1) + ["stream"]


def test_a_path_measured_slower_than_priced_is_priced_higher_from_then_on() -> None:
    from spark_impl.reduce.adaptive_view import CostModel, SkiRental

    model, stored, small = CostModel(), 2_000_000, 10_000
    policy = SkiRental(model)
    priced = model.step("bulk", small, stored)
    policy.measured("bulk", small, stored, 3 * priced)  # halfway from 1 to 3
    assert policy.scale == pytest.approx({"stream": 1.0, "bulk": 2.0})
    assert policy.price("bulk", small, stored) == pytest.approx(2 * priced)
    fixed = SkiRental(model, calibrated=False)
    fixed.measured("bulk", small, stored, 3 * priced)
    assert fixed.scale == {"stream": 1.0, "bulk": 1.0}
    # the regret of staying in bulk now grows twice as fast: the view leaves sooner
    leave = [policy.choose("bulk", small, stored) for _ in range(1000)].index("stream")
    stay = [fixed.choose("bulk", small, stored) for _ in range(1000)].index("stream")
    assert leave < stay


def _alternating() -> Any:
    """Moves are free; a batch of 3 changes or more is cheaper in bulk, a smaller one on the
    stream path: every change of batch size moves the view."""
    from spark_impl.reduce.adaptive_view import CostModel

    return CostModel(stream_fixed=0.0, stream_per_change=1.0, bulk_fixed=2.5, bulk_per_stored=0.0,
                     bulk_per_change=0.0, to_bulk_per_stored=0.0, to_stream_per_stored=0.0)


def _as_delta(rows: list[tuple[str, int, int]]) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    plus: dict[str, list[int]] = {}
    minus: dict[str, list[int]] = {}
    for k, v, w in rows:
        (plus if w > 0 else minus).setdefault(k, []).extend([v] * abs(w))
    return plus, minus


@pytest.mark.spec("SKIP-DEC-SPARK-BULK", evidence="example")
def test_views_and_changes_match_the_reference_across_moves_both_ways(spark: Any, tmp_path: Any) -> None:
    from reference.reduce import InvalidDelta as ReferenceRefusal
    from spark_impl.driver_rows import frame_of_rows
    from spark_impl.reduce.adaptive_view import AdaptiveViewRunner
    from spark_impl.reduce.maintained_view import InvalidDelta

    seen: list[dict[Any, Any]] = []

    def sink(changes: Any, batch_id: int) -> None:
        seen.append({r["key"]: r["accumulator"] if r["present"] else None for r in changes.collect()})

    root = f"file://{tmp_path}"

    def runner() -> AdaptiveViewRunner:
        # prices from the model alone (not the machine's times): the moves are the test's
        return AdaptiveViewRunner(spark, "sum", "string", "bigint", root, sink, model=_alternating(),
                                  calibrated=False)

    view, model = runner(), ReduceModel("sum")
    model.load({})
    moves: list[str] = []
    batches: list[list[tuple[str, int, int]]] = [
        [("a", 3, 1), ("a", 5, 1), ("b", 1, 1), ("c", 2, 2)],  # bulk (a load)
        [("a", 3, -1)],                                        # stream
        [("b", 1, -1), ("b", 4, 1), ("d", 7, 1)],              # bulk: b's 1 goes, d comes
        [("c", 2, -3)],                                        # stream: c holds 2 twice: refused
        [("c", 2, -2)],                                        # stream: c empties
        [("a", 5, -1), ("a", 6, 1), ("e", 1, 1)],              # bulk
    ]
    for number, rows in enumerate(batches):
        plus, minus = _as_delta(rows)
        if number == 3:
            with pytest.raises(ReferenceRefusal):
                model.apply(plus, minus)
            with pytest.raises(InvalidDelta):
                view.step(frame_of_rows(spark, rows, view.schema))
            continue
        expected_view, expected_changes = model.apply(plus, minus)
        if number == 4:
            view.stop()
            moves += view.moves
            view = runner()  # built again on the same root: resumes on the same path
            assert view.path == "stream"
        view.step(frame_of_rows(spark, rows, view.schema))
        assert seen[-1] == expected_changes, (number, rows)
        assert {r["key"]: r["accumulator"] for r in view.read_view().collect()} == expected_view
    assert view.path == "bulk"
    # the refused batch moved the view (to the stream path) before it was refused
    assert moves + view.moves == ["bulk", "stream", "bulk", "stream", "bulk"]
    view.stop()
