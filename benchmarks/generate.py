"""Write a realistic audit workload, deterministic from a seed.

    python3 benchmarks/generate.py --calls 1000000 --seed 7 --out /tmp/workload

gives ``tools.json`` (200 tools, a third written in a dialect: snake_case keywords, uppercase
types, nested objects, arrays, enums, patterns, ``$ref``s) and ``calls.jsonl`` (tool use
following a Zipf law, about 40% of argument texts repeated, about 2% newly rejected, 0.1%
malformed lines).

``WORKLOADS`` names the variants ``benchmarks/run.py`` measures, each made to defeat one thing
that flatters a figure: property names spelled like keywords (``id``, ``type``, ``format``,
``items``, ``default``), every argument text distinct (the verdict memo never hits), 90%
repeats, 500 tools, a gzipped log, a directory of 200 small logs, and ``rejections``: about
30% of calls newly rejected (distinct arguments, varied constraints broken).
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import random
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TOOLS = 200
DIALECT_SHARE = 1 / 3
REPEAT_SHARE = 0.40
BREAK_SHARE = 0.02
MALFORMED_SHARE = 0.001
ZIPF_EXPONENT = 1.1
KEYWORD_NAMES = ["id", "type", "format", "items", "default"]
"""Property names that are keywords elsewhere in a schema (a tool's first fields, in order)."""
WORDS = ["alpha", "beta", "gamma", "delta", "report", "invoice", "draft", "main", "user", "eu"]


def _snake(keyword: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", keyword).lower()


def _dialect(node: Any, upper_types: bool) -> Any:
    """The dialect spelling: keyword positions only, as a catalog author would write it."""
    if isinstance(node, list):
        return [_dialect(item, upper_types) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("properties", "$defs"):
            out[key] = {name: _dialect(v, upper_types) for name, v in value.items()}
        elif key == "type":
            out[key] = value.upper() if upper_types else value
        elif key in ("enum", "required", "pattern", "$ref"):
            out[key] = value
        else:
            out[_snake(key)] = _dialect(value, upper_types)
    return out


class Tool:
    """One tool: its schema, and how to make valid and dormant-constraint-breaking calls."""

    def __init__(self, index: int, rng: random.Random, workload: Workload) -> None:
        self.name = f"tool_{index:03d}"
        self.rng = rng
        self.varied = workload.varied_breaks
        self.fields: list[tuple[str, str]] = []
        self.nonce = workload.distinct
        properties: dict[str, Any] = {}
        for number in range(rng.randint(2, 7)):
            kind = rng.choice(
                ["text", "code", "choice", "count", "ratio", "flag", "tags", "filter"]
            )
            keyword_name = workload.keyword_names and number < len(KEYWORD_NAMES)
            name = KEYWORD_NAMES[number] if keyword_name else f"{kind}_{number}"
            self.fields.append((name, kind))
            properties[name] = self._property(kind)
        if self.nonce:  # an optional integer every call sets to its own number
            properties["nonce"] = {"type": "integer", "minimum": 0}
        self.schema: dict[str, Any] = {
            "type": "object",
            "properties": properties,
            "required": [self.fields[0][0]],
            "additionalProperties": False,
            "$defs": {
                "tag": {"type": "string", "minLength": 1, "maxLength": 12},
            },
        }
        self.dialect = rng.random() < workload.dialect_share
        # Uppercase types make the old schema unusable (every call schema_error_before);
        # snake_case keywords alone leave dormant constraints that calls can newly break.
        self.upper_types = self.dialect and rng.random() < 0.5
        self.dormant = self.dialect and not self.upper_types
        self.catalog_schema = (
            _dialect(self.schema, self.upper_types) if self.dialect else self.schema
        )

    def _property(self, kind: str) -> dict[str, Any]:
        return {
            "text": {"type": "string", "maxLength": 40},
            "code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{2,4}$"},
            "choice": {"type": "string", "enum": ["fast", "full", "none"]},
            "count": {"type": "integer", "minimum": 0, "maximum": 100},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            "flag": {"type": "boolean"},
            "tags": {
                "type": "array",
                "items": {"$ref": "#/$defs/tag"},
                "minItems": 1,
                "maxItems": 5,
                "uniqueItems": True,
            },
            "filter": {
                "type": "object",
                "properties": {"field": {"type": "string"}, "value": {"type": "string"}},
                "required": ["field"],
                "additionalProperties": False,
            },
        }[kind]

    def arguments(self, breaking: bool, number: int) -> dict[str, Any]:
        rng = self.rng
        args: dict[str, Any] = {"nonce": number} if self.nonce else {}
        for position, (name, kind) in enumerate(self.fields):
            if position == 0 or rng.random() < 0.6:
                args[name] = self._value(kind)
        if breaking and self.varied:
            self._break(args)
        elif breaking:
            args["unexpected_" + rng.choice(WORDS)] = 1  # additionalProperties: false
        return args

    def _break(self, args: dict[str, Any]) -> None:
        """Break one dormant constraint (a snake_case keyword the old runtime ignored): an
        extra property, or a value over a length or count limit, a duplicate tag or a tag
        too long behind a ``$ref``, wherever the tool has such a field."""
        rng = self.rng
        ways: list[tuple[str, str]] = [("extra", "")]
        for name, kind in self.fields:
            if kind == "text":
                ways.append(("long text", name))
            elif kind == "tags":
                ways += [("many tags", name), ("same tags", name), ("long tag", name)]
        way, name = rng.choice(ways)
        if way == "extra":
            args["unexpected_" + rng.choice(WORDS) + str(rng.randint(0, 99))] = 1
        elif way == "long text":  # maxLength 40
            args[name] = " ".join(rng.choices(WORDS, k=rng.randint(9, 14)))
        elif way == "many tags":  # maxItems 5
            args[name] = rng.sample(WORDS, rng.randint(6, 9))
        elif way == "same tags":  # uniqueItems
            tag = rng.choice(WORDS)
            args[name] = [tag, rng.choice(WORDS), tag]
        else:  # maxLength 12 of the tag behind items: {"$ref": "#/$defs/tag"}
            args[name] = [rng.choice(WORDS), "-".join(rng.choices(WORDS, k=rng.randint(3, 5)))]

    def _value(self, kind: str) -> Any:
        rng = self.rng
        if kind == "text":
            return " ".join(rng.choices(WORDS, k=rng.randint(1, 4)))
        if kind == "code":
            return f"{rng.choice(['ABC', 'XYZ', 'EUR'])}-{rng.randint(10, 9999)}"
        if kind == "choice":
            return rng.choice(["fast", "full", "none"])
        if kind == "count":
            return rng.randint(0, 100)
        if kind == "ratio":
            return round(rng.uniform(0.01, 1), 3)
        if kind == "flag":
            return rng.random() < 0.5
        if kind == "tags":
            return rng.sample(WORDS, rng.randint(1, 4))
        return {"field": rng.choice(WORDS), "value": rng.choice(WORDS)}


@dataclass(frozen=True)
class Workload:
    """One variant of the workload; the defaults are the standard one."""

    tools: int = TOOLS
    repeat_share: float = REPEAT_SHARE
    keyword_names: bool = False
    """The first properties of every tool named ``id``, ``type``, ``format``, ``items``,
    ``default`` instead of ``text_0``..."""
    distinct: bool = False
    """Every argument text distinct (an optional ``nonce`` property set to the call number)."""
    layout: str = "file"
    """``file`` (calls.jsonl), ``gzip`` (calls.jsonl.gz) or ``split`` (logs/ of 200 files)."""
    dialect_share: float = DIALECT_SHARE
    """Tools written in a dialect (half of them with dormant constraints calls can break)."""
    break_share: float = BREAK_SHARE
    """Calls that break a dormant constraint: newly rejected, as far as the dialect allows."""
    varied_breaks: bool = False
    """Break lengths, counts, uniqueness and ``$ref``'d limits too, with extra property names
    from a thousand (not only ``additionalProperties`` with ten names)."""


WORKLOADS: dict[str, Workload] = {
    "standard": Workload(),
    "keyword-names": Workload(keyword_names=True),
    "distinct": Workload(repeat_share=0.0, distinct=True),
    "repeats": Workload(repeat_share=0.90),
    "tools-500": Workload(tools=500),
    "gzip": Workload(layout="gzip"),
    "many-logs": Workload(layout="split"),
    "rejections": Workload(
        repeat_share=0.0,
        keyword_names=True,
        distinct=True,
        dialect_share=0.9,
        break_share=0.30,
        varied_breaks=True,
    ),
}
SPLIT_FILES = 200


def generate(calls: int, seed: int, out: Path, workload: Workload = WORKLOADS["standard"]) -> Path:
    """Write ``tools.json`` and the log into ``out``; returns the log (a file or directory)."""
    rng = random.Random(seed)
    tools = [Tool(i, rng, workload) for i in range(workload.tools)]
    out.mkdir(parents=True, exist_ok=True)
    catalog = {"tools": [{"name": t.name, "inputSchema": t.catalog_schema} for t in tools]}
    (out / "tools.json").write_text(json.dumps(catalog, indent=1) + "\n", encoding="utf-8")
    popularity = [1 / (k**ZIPF_EXPONENT) for k in range(1, workload.tools + 1)]
    weights = list(itertools.accumulate(popularity))
    # Only calls of tools with dormant constraints can be newly rejected: break those often
    # enough that about the workload's break share of all calls are.
    dormant = sum(p for p, t in zip(popularity, tools, strict=True) if t.dormant) / weights[-1]
    breaking = min(1.0, workload.break_share / dormant) if dormant else 0.0
    seen: dict[str, list[str]] = {}
    with open(out / "calls.jsonl", "w", encoding="utf-8") as stream:
        for number in range(calls):
            tool = rng.choices(tools, cum_weights=weights)[0]
            pool = seen.setdefault(tool.name, [])
            if pool and rng.random() < workload.repeat_share:
                text = rng.choice(pool)
            else:
                broken = tool.dormant and rng.random() < breaking
                text = json.dumps(tool.arguments(breaking=broken, number=number))
                if len(pool) < 64:
                    pool.append(text)
            line = json.dumps({"id": f"call_{number}", "tool": tool.name, "arguments": text})
            if rng.random() < MALFORMED_SHARE:
                line = line[: len(line) // 2]
            stream.write(line + "\n")
    return _lay_out(out / "calls.jsonl", workload.layout)


def _lay_out(log: Path, layout: str) -> Path:
    if layout == "gzip":
        packed = log.with_name(log.name + ".gz")
        with open(log, "rb") as source, gzip.open(packed, "wb", compresslevel=6) as target:
            shutil.copyfileobj(source, target)
        log.unlink()
        return packed
    if layout == "split":
        folder = log.with_name("logs")
        folder.mkdir(exist_ok=True)
        lines = log.read_bytes().splitlines(keepends=True)
        size = -(-len(lines) // SPLIT_FILES)
        for part in range(SPLIT_FILES):
            chunk = lines[part * size : (part + 1) * size]
            (folder / f"calls-{part:03d}.jsonl").write_bytes(b"".join(chunk))
        log.unlink()
        return folder
    return log


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=Path("/tmp/auditor-workload"))
    parser.add_argument("--workload", choices=sorted(WORKLOADS), default="standard")
    options = parser.parse_args()
    log = generate(options.calls, options.seed, options.out, WORKLOADS[options.workload])
    print(f"wrote {options.out / 'tools.json'} and {log}")


if __name__ == "__main__":
    main()
