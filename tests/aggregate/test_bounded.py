"""Bounded per-group tables count the same however the log is cut (auditor.aggregate.bounded)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.aggregate.bounded import KeptByDigest, added, rank

KEYS = st.lists(st.sampled_from([f"caller-{n}" for n in range(12)] + ["", "é", "\ud800"]))


def _table(keys: list[str], most: int) -> KeptByDigest[int]:
    table: KeptByDigest[int] = KeptByDigest(most)
    for key in keys:
        table.add(key, 1, added)
    return table


def test_under_the_bound_every_key_is_counted_exactly() -> None:
    table = _table(["b", "a", "b", "c", "b"], most=3)
    assert dict(table.items()) == {"b": 3, "a": 1, "c": 1}


def test_over_the_bound_the_keys_of_smallest_digest_are_kept_with_every_call() -> None:
    keys = [f"k{n}" for n in range(10)]
    calls = [key for key in keys for _ in range(int(key[1:]) + 1)]  # k3 is sent 4 times
    kept = dict(_table(calls, most=4).items())
    smallest = sorted(keys, key=rank)[:4]
    assert sorted(kept) == sorted(smallest)
    assert all(kept[key] == int(key[1:]) + 1 for key in smallest)


def test_a_key_once_dropped_never_comes_back_with_a_partial_count() -> None:
    keys = [f"k{n}" for n in range(40)]
    ordered = sorted(keys, key=rank)
    late, early = ordered[-1], ordered[:3]
    # The worst-ranked key comes first (kept while there is room), then is pushed out.
    table = _table([late, *early, late], most=3)
    assert late not in table
    assert dict(table.items()) == {key: 1 for key in early}


@given(KEYS, st.integers(min_value=1, max_value=6), st.data())
def test_any_cut_merges_into_the_one_pass_table(
    keys: list[str], most: int, data: st.DataObject
) -> None:
    one_pass = dict(_table(keys, most).items())
    cuts = sorted(data.draw(st.lists(st.integers(0, len(keys)), max_size=4)))
    bounds = [0, *cuts, len(keys)]
    parts = [_table(keys[a:b], most) for a, b in itertools.pairwise(bounds)]
    merged = parts[0]
    for later in parts[1:]:
        merged.merge(later, added)
    assert dict(merged.items()) == one_pass
    distinct = set(keys)
    assert len(one_pass) == min(most, len(distinct))
    assert sum(one_pass.values()) == sum(keys.count(key) for key in one_pass)


def test_a_table_keeps_at_least_one_key() -> None:
    with pytest.raises(ValueError, match="at least one"):
        KeptByDigest[int](0)
