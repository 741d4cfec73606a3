"""Write issue 26's workload, deterministic from a seed: the one the other workloads miss.

    python3 benchmarks/realistic_workload.py --calls 300000 --out /tmp/realistic

gives ``tools.json`` (120 tools; every schema has a property named ``id`` with a
``pattern``, an ``anyOf`` of two ``const``s, the common ``anyOf: [T, {type: null}]``, a
``$ref`` into ``$defs`` and ``uniqueItems``; a third of them written in a dialect:
``min_items``, ``additional_properties``, ``any_of``, ``"String"``/``"STRING"`` type names)
and the log as JSON Lines: ``calls.jsonl`` (one large file), ``calls.jsonl.gz`` (a gzip copy)
and ``logs/`` (many small files), as ``layouts`` asks. About 60% of the argument texts are
distinct (an ``id`` drawn from millions), and about 13% of the calls are rejected on one
side or both once normalized: a broken constraint the old runtime enforces too (the
``pattern`` of ``id``) is still rejected, one it ignored in the dialect (``any_of``,
``unique_items``, ``additional_properties``...) is newly rejected.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import random
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TOOLS = 120
DIALECT_EVERY = 3
"""Every third tool is written in the dialect."""
REPEAT_SHARE = 0.395
"""Calls that resend one of their tool's earlier argument texts: about 60% distinct."""
BREAK_SHARE = 0.135
"""Fresh argument texts that break a constraint (repeats keep the share)."""
MALFORMED_SHARE = 0.001
POOL = 64
"""Earlier argument texts a tool's repeats are drawn from."""
ZIPF_EXPONENT = 1.1
SPLIT_FILES = 400
LAYOUTS = {"file": "calls.jsonl", "gzip": "calls.jsonl.gz", "split": "logs"}
WORDS = ["alpha", "beta", "gamma", "delta", "report", "invoice", "draft", "main", "user", "eu"]
ID_PATTERN = "^[a-z]{2,8}_[0-9]{1,7}$"
_SNAKE = {
    "minItems": "min_items",
    "maxItems": "max_items",
    "uniqueItems": "unique_items",
    "additionalProperties": "additional_properties",
    "anyOf": "any_of",
    "minLength": "min_length",
    "maxLength": "max_length",
}


def _dialect(node: Any, capitalized: bool) -> Any:
    """The dialect spelling of a schema, at keyword positions only: snake_case keywords and
    capitalized (``String``) or uppercase (``STRING``) type names."""
    if isinstance(node, list):
        return [_dialect(item, capitalized) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("properties", "$defs"):
            out[key] = {name: _dialect(v, capitalized) for name, v in value.items()}
        elif key == "type":
            out[key] = value.capitalize() if capitalized else value.upper()
        elif key in ("required", "pattern", "$ref", "const", "enum"):
            out[key] = value
        else:
            out[_SNAKE.get(key, key)] = _dialect(value, capitalized)
    return out


class Tool:
    """One tool: its schema as the catalog writes it, and how to make its calls."""

    def __init__(self, index: int, rng: random.Random) -> None:
        self.name = f"tool_{index:03d}"
        self.rng = rng
        self.extras = rng.sample(["count", "ratio", "flag", "filter"], rng.randint(1, 3))
        properties: dict[str, Any] = {
            "id": {"type": "string", "pattern": ID_PATTERN},
            "mode": {"anyOf": [{"const": "fast"}, {"const": "full"}]},
            "note": {"anyOf": [{"type": "string", "maxLength": 40}, {"type": "null"}]},
            "tags": {
                "type": "array",
                "items": {"$ref": "#/$defs/tag"},
                "minItems": 1,
                "maxItems": 5,
                "uniqueItems": True,
            },
        }
        for extra in self.extras:
            properties[extra] = _EXTRAS[extra]
        schema = {
            "type": "object",
            "properties": properties,
            "required": ["id"],
            "additionalProperties": False,
            "$defs": {"tag": {"type": "string", "minLength": 1, "maxLength": 12}},
        }
        self.dialect = index % DIALECT_EVERY == DIALECT_EVERY - 1
        self.schema = _dialect(schema, rng.random() < 0.5) if self.dialect else schema

    def arguments(self, broken: bool) -> dict[str, Any]:
        rng = self.rng
        args: dict[str, Any] = {"id": f"{rng.choice(WORDS)}_{rng.randint(0, 9_999_999)}"}
        if rng.random() < 0.6:
            args["mode"] = rng.choice(["fast", "full"])
        if rng.random() < 0.6:
            args["note"] = None if rng.random() < 0.5 else " ".join(rng.sample(WORDS, 3))
        if rng.random() < 0.6:
            args["tags"] = rng.sample(WORDS, rng.randint(1, 4))
        for extra in self.extras:
            if rng.random() < 0.6:
                args[extra] = _value(extra, rng)
        if broken:
            self._break(args)
        return args

    def _break(self, args: dict[str, Any]) -> None:
        """Break one constraint: the ``pattern`` of ``id`` (both sides enforce it), or one the
        dialect's old runtime ignored (``any_of``, ``unique_items``, ``max_items``, the
        ``max_length`` behind the ``$ref``, ``additional_properties``, the ``any_of`` with
        null): newly rejected in a dialect tool, still rejected in the others."""
        rng = self.rng
        way = rng.choice(["pattern", "const", "unique", "many", "long tag", "extra", "long note"])
        if way == "pattern":
            args["id"] = f"{rng.choice(WORDS).upper()}-{rng.randint(0, 999)}"
        elif way == "const":
            args["mode"] = rng.choice(["slow", "none", "FAST"])
        elif way == "unique":
            tag = rng.choice(WORDS)
            args["tags"] = [tag, rng.choice(WORDS), tag]
        elif way == "many":
            args["tags"] = rng.sample(WORDS, rng.randint(6, 9))
        elif way == "long tag":
            args["tags"] = [rng.choice(WORDS), "-".join(rng.sample(WORDS, 3))]
        elif way == "extra":
            args[f"unexpected_{rng.choice(WORDS)}{rng.randint(0, 99)}"] = 1
        else:
            args["note"] = " ".join(rng.choices(WORDS, k=rng.randint(9, 14)))


_EXTRAS: dict[str, Any] = {
    "count": {"type": "integer", "minimum": 0, "maximum": 100},
    "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
    "flag": {"type": "boolean"},
    "filter": {
        "type": "object",
        "properties": {"field": {"type": "string"}, "value": {"type": "string"}},
        "required": ["field"],
        "additionalProperties": False,
    },
}


def _value(kind: str, rng: random.Random) -> Any:
    if kind == "count":
        return rng.randint(0, 100)
    if kind == "ratio":
        return round(rng.uniform(0.01, 1), 3)
    if kind == "flag":
        return rng.random() < 0.5
    return {"field": rng.choice(WORDS), "value": rng.choice(WORDS)}


@dataclass(frozen=True)
class Workload:
    """What was written, and what it holds."""

    catalog: Path
    logs: dict[str, Path]
    """The log by layout (``file``, ``gzip``, ``split``)."""
    calls: int
    distinct_share: float
    """Distinct (tool, arguments text) pairs over calls."""
    dialect_tools: int


def generate(calls: int, seed: int, out: Path, layouts: tuple[str, ...] = ("file",)) -> Workload:
    """Write the catalog and the log (in each of ``layouts``) into ``out``."""
    rng = random.Random(seed)
    tools = [Tool(i, rng) for i in range(TOOLS)]
    out.mkdir(parents=True, exist_ok=True)
    catalog = out / "tools.json"
    document = {"tools": [{"name": t.name, "inputSchema": t.schema} for t in tools]}
    catalog.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    weights = list(itertools.accumulate(1 / k**ZIPF_EXPONENT for k in range(1, TOOLS + 1)))
    pools: dict[str, list[str]] = {}
    distinct: set[int] = set()  # hashes, not texts: memory stays small at millions of calls
    log = out / LAYOUTS["file"]
    with open(log, "w", encoding="utf-8") as stream:
        for number in range(calls):
            tool = rng.choices(tools, cum_weights=weights)[0]
            pool = pools.setdefault(tool.name, [])
            if pool and rng.random() < REPEAT_SHARE:
                text = rng.choice(pool)
            else:
                text = json.dumps(tool.arguments(broken=rng.random() < BREAK_SHARE))
                if len(pool) < POOL:
                    pool.append(text)
                else:
                    pool[rng.randrange(POOL)] = text
            distinct.add(hash((tool.name, text)))
            line = json.dumps({"id": f"call_{number}", "tool": tool.name, "arguments": text})
            if rng.random() < MALFORMED_SHARE:
                line = line[: len(line) // 2]
            stream.write(line + "\n")
    logs = {"file": log}
    if "gzip" in layouts:
        logs["gzip"] = out / LAYOUTS["gzip"]
        with open(log, "rb") as source, gzip.open(logs["gzip"], "wb", compresslevel=6) as target:
            shutil.copyfileobj(source, target)
    if "split" in layouts:
        logs["split"] = _split(log, out / LAYOUTS["split"])
    share = len(distinct) / calls if calls else 0.0
    return Workload(catalog, logs, calls, share, sum(t.dialect for t in tools))


def _split(log: Path, folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    lines = log.read_bytes().splitlines(keepends=True)
    size = -(-len(lines) // SPLIT_FILES)
    for part in range(SPLIT_FILES):
        chunk = lines[part * size : (part + 1) * size]
        (folder / f"calls-{part:03d}.jsonl").write_bytes(b"".join(chunk))
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300_000)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--out", type=Path, default=Path("/tmp/auditor-realistic"))
    parser.add_argument("--layout", choices=sorted(LAYOUTS), action="append")
    options = parser.parse_args()
    workload = generate(options.calls, options.seed, options.out, tuple(options.layout or ()))
    print(f"wrote {workload.catalog} and {', '.join(map(str, workload.logs.values()))}")
    print(f"distinct argument texts: {workload.distinct_share:.1%}")


if __name__ == "__main__":
    main()
