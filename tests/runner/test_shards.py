"""`run --shard K/N`: which vectors go in which shard."""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import resources
from conformance.runner.shards import HEAVY_COST, Shard, assign, expected_cost, parse_shard, pick
from conformance.runner.vectors import load_corpus


@pytest.fixture(scope="module")
def corpus():
    return load_corpus([resources.vectors_dir()]).vectors


@pytest.mark.parametrize("text, shard", [("1/1", Shard(1, 1)), ("2/4", Shard(2, 4)), ("16/16", Shard(16, 16))])
def test_parse_shard(text, shard):
    assert parse_shard(text) == shard and str(shard) == text


@pytest.mark.parametrize("text", ["0/4", "5/4", "1/0", "2", "a/b", "1/2/3", "-1/4", ""])
def test_parse_shard_refuses_what_is_not_k_of_n(text):
    with pytest.raises(argparse.ArgumentTypeError, match="K/N"):
        parse_shard(text)


@pytest.mark.parametrize("count", [1, 2, 3, 4, 7])
def test_every_vector_runs_in_exactly_one_shard(corpus, count):
    ids = [v.id for k in range(1, count + 1) for v in pick(corpus, Shard(k, count))]
    assert sorted(ids) == sorted(v.id for v in corpus)


@pytest.mark.parametrize("count", [2, 3, 4, 8])
def test_shards_are_balanced_by_expected_cost(corpus, count):
    placed = assign(corpus, count)
    load = Counter()
    for vector in corpus:
        load[placed[vector.id]] += expected_cost(vector)
    mean = sum(load.values()) / count
    assert max(load.values()) <= 1.2 * mean, load


def test_a_derived_vector_costs_its_base_s_requests_again(corpus):
    base = next(v for v in corpus if v.op == "merge_sessions" and not v.derived)
    swapped = next(v for v in corpus if v.id == f"{base.id}~swapped")
    idempotent = next(v for v in corpus if v.id == f"{base.id}~idempotent")
    assert expected_cost(swapped) == 2 * expected_cost(base) and expected_cost(idempotent) == 4 * expected_cost(base)


@given(new_ids=st.lists(st.from_regex(r"new\.[a-z]{1,12}", fullmatch=True), min_size=1, max_size=30, unique=True),
       count=st.integers(min_value=1, max_value=9))
def test_a_growing_corpus_moves_no_cheap_vector(corpus, new_ids, count):
    template = next(v for v in corpus if v.op == "merge_sessions" and not v.derived)
    grown = corpus + [replace(template, id=vector_id, digest=vector_id) for vector_id in new_ids]
    before, after = assign(corpus, count), assign(grown, count)
    moved = [v.id for v in corpus if expected_cost(v) < HEAVY_COST and before[v.id] != after[v.id]]
    assert moved == []


def test_run_shard_list_shows_the_shard_s_vectors(capsys):
    from conformance.cli import main

    assert main(["run", "--list", "--shard", "2/3", "-k", "merge.hidden.*"]) == 0
    listed = capsys.readouterr().out
    corpus = load_corpus([resources.vectors_dir()]).vectors
    chosen = [v for v in corpus if v.id.startswith("merge.hidden.")]
    expected = {v.id for v in pick(chosen, Shard(2, 3))}
    shown = {line.split()[0] for line in listed.splitlines()[2:-1]}
    assert shown == expected and expected


def test_expensive_vectors_are_placed_on_the_least_loaded_shard(corpus):
    heavy = next(v for v in corpus if v.op == "concurrent_writes")
    four = [replace(heavy, id=f"heavy.{n}") for n in range(4)]
    placed = assign(four, 2)
    assert sorted(Counter(placed.values()).values()) == [2, 2]
