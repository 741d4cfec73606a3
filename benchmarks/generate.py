"""Write a realistic audit workload, deterministic from a seed.

    python3 benchmarks/generate.py --calls 1000000 --seed 7 --out /tmp/workload

gives ``tools.json`` (200 tools, a third written in a dialect: snake_case keywords, uppercase
types, nested objects, arrays, enums, patterns, ``$ref``s) and ``calls.jsonl`` (tool use
following a Zipf law, about 40% of argument texts repeated, about 2% newly rejected, 0.1%
malformed lines).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import re
from pathlib import Path
from typing import Any

TOOLS = 200
DIALECT_SHARE = 1 / 3
REPEAT_SHARE = 0.40
BREAK_SHARE = 0.02
MALFORMED_SHARE = 0.001
ZIPF_EXPONENT = 1.1
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

    def __init__(self, index: int, rng: random.Random) -> None:
        self.name = f"tool_{index:03d}"
        self.rng = rng
        self.fields: list[tuple[str, str]] = []
        properties: dict[str, Any] = {}
        for number in range(rng.randint(2, 7)):
            kind = rng.choice(
                ["text", "code", "choice", "count", "ratio", "flag", "tags", "filter"]
            )
            name = f"{kind}_{number}"
            self.fields.append((name, kind))
            properties[name] = self._property(kind)
        self.schema: dict[str, Any] = {
            "type": "object",
            "properties": properties,
            "required": [self.fields[0][0]],
            "additionalProperties": False,
            "$defs": {
                "tag": {"type": "string", "minLength": 1, "maxLength": 12},
            },
        }
        self.dialect = rng.random() < DIALECT_SHARE
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

    def arguments(self, breaking: bool) -> dict[str, Any]:
        rng = self.rng
        args: dict[str, Any] = {}
        for position, (name, kind) in enumerate(self.fields):
            if position == 0 or rng.random() < 0.6:
                args[name] = self._value(kind)
        if breaking:
            args["unexpected_" + rng.choice(WORDS)] = 1  # additionalProperties: false
        return args

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


def generate(calls: int, seed: int, out: Path) -> None:
    rng = random.Random(seed)
    tools = [Tool(i, rng) for i in range(TOOLS)]
    out.mkdir(parents=True, exist_ok=True)
    catalog = {"tools": [{"name": t.name, "inputSchema": t.catalog_schema} for t in tools]}
    (out / "tools.json").write_text(json.dumps(catalog, indent=1) + "\n", encoding="utf-8")
    popularity = [1 / (k**ZIPF_EXPONENT) for k in range(1, TOOLS + 1)]
    weights = list(itertools.accumulate(popularity))
    # Only calls of tools with dormant constraints can be newly rejected: break those often
    # enough that about BREAK_SHARE of all calls are.
    dormant = sum(p for p, t in zip(popularity, tools, strict=True) if t.dormant) / weights[-1]
    breaking = min(1.0, BREAK_SHARE / dormant) if dormant else 0.0
    seen: dict[str, list[str]] = {}
    with open(out / "calls.jsonl", "w", encoding="utf-8") as stream:
        for number in range(calls):
            tool = rng.choices(tools, cum_weights=weights)[0]
            pool = seen.setdefault(tool.name, [])
            if pool and rng.random() < REPEAT_SHARE:
                text = rng.choice(pool)
            else:
                broken = tool.dormant and rng.random() < breaking
                text = json.dumps(tool.arguments(breaking=broken))
                if len(pool) < 64:
                    pool.append(text)
            line = json.dumps({"id": f"call_{number}", "tool": tool.name, "arguments": text})
            if rng.random() < MALFORMED_SHARE:
                line = line[: len(line) // 2]
            stream.write(line + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=Path("/tmp/auditor-workload"))
    options = parser.parse_args()
    generate(options.calls, options.seed, options.out)
    print(f"wrote {options.out / 'tools.json'} and {options.out / 'calls.jsonl'}")


if __name__ == "__main__":
    main()
