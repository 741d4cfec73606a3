"""The benchmark at smoke size: the workload is what it says, and the fast validator agrees.

No timing here (benchmarks/run.py prints figures); only what must hold at any size.
"""

from __future__ import annotations

from pathlib import Path

from auditor.aggregate.pipeline import evaluate_call, prepare
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.log_files import check_logs
from auditor.inputs.reader import LogReader
from auditor.models import Outcome
from auditor.schema.normalize import DEFAULT_RULES
from tests.benchmark_scripts import load_benchmark


def test_smoke_workload_replays_identically_with_and_without_the_fast_engine(
    tmp_path: Path,
) -> None:
    load_benchmark("generate").generate(3000, 11, tmp_path)
    tools = load_catalogs([str(tmp_path / "tools.json")]).tools
    assert len(tools) == 200
    fast, reference = prepare(tools, DEFAULT_RULES), prepare(tools, DEFAULT_RULES, fast=False)
    counts = dict.fromkeys(Outcome, 0)
    for call in LogReader([str(tmp_path / "calls.jsonl")]):
        one, other = evaluate_call(fast, call)[0], evaluate_call(reference, call)[0]
        assert (one.outcome, one.errors, one.schema_problem) == (
            other.outcome,
            other.errors,
            other.schema_problem,
        ), call.source
        counts[one.outcome] += 1
    assert sum(counts.values()) == 3000
    assert 0 < counts[Outcome.NEWLY_REJECTED] < 3000 * 0.06
    assert counts[Outcome.ACCEPTED] > 3000 * 0.6
    assert counts[Outcome.UNPARSEABLE] < 3000 * 0.01


def test_the_workload_is_the_same_for_the_same_seed(tmp_path: Path) -> None:
    generate = load_benchmark("generate").generate
    generate(500, 3, tmp_path / "a")
    generate(500, 3, tmp_path / "b")
    for name in ("tools.json", "calls.jsonl"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_each_workload_is_what_its_name_says(tmp_path: Path) -> None:
    """Keyword-like names, all-distinct and 90%-repeated argument texts, 500 tools, and the
    gzipped and split logs reading as the same calls as the plain one."""
    module = load_benchmark("generate")
    calls = 600

    def texts(name: str) -> list[str]:
        log = module.generate(calls, 5, tmp_path / name, module.WORKLOADS[name])
        files, _ = check_logs([str(log)])
        return [str(c.arguments) for c in LogReader(files) if c.unparsed is None]

    standard = texts("standard")
    distinct = texts("distinct")
    assert len(set(distinct)) == len(distinct)
    assert len(set(texts("repeats"))) < 0.3 * len(standard) < len(set(standard))
    texts("keyword-names")
    catalog = (tmp_path / "keyword-names" / "tools.json").read_text()
    for name in module.KEYWORD_NAMES:
        assert f'"{name}": {{' in catalog
    texts("tools-500")
    assert len(load_catalogs([str(tmp_path / "tools-500" / "tools.json")]).tools) == 500
    assert texts("gzip") == standard
    assert texts("many-logs") == standard
    assert len(list((tmp_path / "many-logs" / "logs").iterdir())) == 200
