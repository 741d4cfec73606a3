"""Which rewritten keywords a call's evaluation reaches under the normalized schema.

Two ways to the same answer. Through ``properties``, ``items``, ``prefixItems``,
``additionalProperties``, ``allOf`` and local ``$ref``, which keywords python-jsonschema runs
depends on the shape of the arguments alone, and ``_Paths`` follows that shape in a few
microseconds. Below a schema object with anything else that leads to a tracked keyword
(``anyOf``, ``oneOf``, ``not``, ``if``, ``contains``, ``patternProperties``,
``dependentSchemas``, ``unevaluated*``...), what runs depends on verdicts or on user regexes:
that object is a *value zone*. The walk stops there and the tracking validator evaluates that
object alone on its part of the arguments (what python-jsonschema does there depends on the
two alone), remembered by the part's exact text (``repr``: types, key order and all), so the
answer for a call is the shape's plus a lookup per zone. The arguments' *signature* (the
schema objects their shape leads to, and each zone's object and exact value) decides the
answer: calls with one signature reach the same keywords. Only a walk that cannot be followed
(a remote reference, a resource with its own ``$id``, past the depth bound) or a zone whose
evaluation raised (the call's time budget, a broken regex: the evaluation of the whole call
stops there too) sends the call to a full tracking evaluation.

"0 newly rejected" means little when no logged call ever reached the rewritten keyword. A
tracking validator, built once per tool, wraps the function of every keyword some rewrite
produced and records the (schema object, keyword) pairs evaluation passes through. Schema
objects are matched by identity, the way ``auditor.replay.causes`` locates errors, so the tracker
must be built over the very schema object the real validator uses.

Kept apart from the verdict on purpose: the verdict's validator records nothing, and most
calls' coverage is a walk and a few lookups, not an evaluation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, cast

from jsonschema import validators
from referencing import Registry

from auditor import pointers
from auditor.models import JSON, Change, Edit, Rule
from auditor.replay.causes import keyword_position

_Site = tuple[int, str]
"""``(id(schema object), keyword)``."""


class CoverageTracker:
    """Evaluates calls with a validator that notes which rewritten keywords it ran."""

    def __init__(
        self,
        validator_class: Any,
        schema: JSON,
        rewrites: Sequence[Change],
        registry: Registry,
        extra: Sequence[tuple[str, str]] = (),
    ) -> None:
        """``extra``: more keywords to track, as (pointer of their schema object, keyword);
        they get the indices after the rewrites' (constraint coverage)."""
        self._targets: dict[_Site, list[int]] = {}
        for offset, (holder, name) in enumerate(extra):
            _, held = pointers.resolve(schema, holder)
            if isinstance(held, dict):
                self._targets.setdefault((id(held), name), []).append(len(rewrites) + offset)
        for index, rewrite in enumerate(rewrites):
            position = keyword_position(rewrite)
            _, node = pointers.resolve(schema, pointers.parent(position))
            keyword = pointers.split(position)[-1] if position else ""
            if not isinstance(node, dict):
                continue
            sites = [keyword]
            if rewrite.rule is Rule.EDIT and rewrite.edit is Edit.REMOVE and keyword not in node:
                # A keyword the change removed is reached where its schema object is
                # evaluated: wherever one of the keywords left beside it runs.
                sites = [k for k in node if k in validator_class.VALIDATORS]
            for name in sites:
                self._targets.setdefault((id(node), name), []).append(index)
        self._visited: set[_Site] = set()
        keywords = {keyword for _, keyword in self._targets}
        tracked = {
            keyword: self._track(keyword, function)
            for keyword, function in validator_class.VALIDATORS.items()
            if keyword in keywords
        }
        self.tracks = bool(tracked)
        """Whether any tracked keyword has a function evaluation can run (else nothing is
        ever reached)."""
        self._tracking: tuple[Any, JSON, Registry, dict[str, Any]] | None = (
            (validator_class, schema, registry, tracked) if tracked else None
        )
        self._built: Any = None
        self._paths = _Paths.build(schema, set(self._targets), validator_class)
        self._by_node: dict[int, tuple[int, ...]] = {}
        self._by_keys: dict[tuple[str, ...], frozenset[int]] = {}
        """The answer for objects whose keys alone decide it (``_Paths.keys_decide``)."""
        self._by_shape: dict[tuple[tuple[str, ...], _Kinds], frozenset[int]] = {}
        """The answer for objects whose keys and the kinds of a few of their values decide it
        (``_Paths.kinds``): a list of tags, say, where only whether it has items counts, or a
        mode below an ``anyOf`` where its exact value counts. That is the arguments'
        signature where it is this short: one lookup answers the call."""
        self._zone_counts: dict[int, int] = {}
        """Values remembered per zone object (at most ``_VALUES_PER_ZONE``)."""
        self._by_zone: dict[tuple[int, str], frozenset[int]] = {}
        """The answer of a value zone (``_zone``) by its schema object and its value's text."""
        self._zone_validators: dict[int, Any] = {}
        """The tracking validator evolved to each zone's schema object."""
        self._answers: dict[frozenset[int], frozenset[int]] = {}
        """One set per distinct answer remembered: many key sets, shapes and zone values give
        a few answers, and each holding its own copy took 300-600 bytes (about 20 MB of a
        300,000-call audit). As many as the entries remembered, at most (``_answer``)."""

    def reached(self, instance: JSON, by_shape: bool = True) -> frozenset[int]:
        """Indices of the rewrites whose keyword evaluating ``instance`` ran.

        ``by_shape=False`` always evaluates for real (the tests compare the two ways).
        """
        if not self.tracks:
            return frozenset()
        if self._paths is not None and by_shape:
            keys = tuple(instance) if isinstance(instance, dict) else None
            shape = None
            if keys is not None:
                known = self._by_keys.get(keys)
                if known is not None:
                    return known
                kinds = self._paths.kinds(cast(dict[str, JSON], instance), keys)
                if kinds is not None:
                    shape = (keys, kinds)
                    known = self._by_shape.get(shape)
                    if known is not None:
                        return known
            walked = self._by_walk(instance)
            if walked is not None:
                result, zoned, fresh = walked
                if zoned and (shape is None or fresh):
                    # Remembered by each zone's value, and by the signature only once each
                    # of its zones' values has been met before: values met once (ids, free
                    # text) would fill the memory with signatures never met again.
                    return result
                if (
                    keys is not None
                    and len(self._by_keys) < _STEPS_PER_PLAN
                    and self._paths.keys_decide(keys)
                    and KEY_SETS.take()
                ):
                    self._by_keys[keys] = result = self._answer(result)
                elif (
                    shape is not None and len(self._by_shape) < _STEPS_PER_PLAN and KEY_SETS.take()
                ):
                    self._by_shape[shape] = result = self._answer(result)
                return result
        self._visited = set()
        try:
            for _ in self._validator.iter_errors(instance):
                pass
        except Exception:
            pass
        return frozenset(i for site in self._visited for i in self._targets.get(site, ()))

    def _by_walk(self, instance: JSON) -> tuple[frozenset[int], bool, bool] | None:
        """``reached`` from the walk and the value zones it meets, whether it met any, and
        whether one of their values was new (not remembered before); None when the walk cannot
        answer or a zone's evaluation raised (the whole evaluation stops where it did)."""
        assert self._paths is not None
        walked = self._paths.plans(instance)
        if walked is None:
            return None
        plans, zones = walked
        found: set[int] = set()
        for plan in plans:
            if plan.targets is None:
                plan.targets = self._node_targets(plan.node)
            found.update(plan.targets)
        fresh = False
        for node, value in zones:
            part = self._zone(node, value)
            if part is None:
                return None
            found.update(part[0])
            fresh = fresh or part[1]
        return frozenset(found), bool(zones), fresh

    def signature(self, instance: JSON) -> tuple[frozenset[int], frozenset[tuple[int, str]]] | None:
        """What decides ``reached(instance)`` by the walk: the schema objects the arguments'
        shape leads to, and each value zone's object with the exact text of its value. Calls
        with one signature reach the same keywords (the property tests check it against full
        evaluation); None where the walk cannot answer and the call is evaluated in full."""
        if self._paths is None:
            return None
        walked = self._paths.plans(instance)
        if walked is None:
            return None
        plans, zones = walked
        texts = [(id(node), _text(value)) for node, value in zones]
        if any(text is None for _, text in texts):
            return None
        return (
            frozenset(id(plan.node) for plan in plans),
            frozenset(cast(list[tuple[int, str]], texts)),
        )

    def _answer(self, found: frozenset[int]) -> frozenset[int]:
        """The one set equal to ``found`` that remembered entries share."""
        return self._answers.setdefault(found, found)

    def _zone(self, node: dict[str, JSON], value: JSON) -> tuple[frozenset[int], bool] | None:
        """The indices evaluating the value zone ``node`` on ``value`` runs: that object alone
        on that part of the arguments, as the whole evaluation would (it reaches a zone only
        where it lists every error, never below a short-circuiting applicator), remembered by
        the value's exact text, and whether it was evaluated now. None when the evaluation
        raised: the caller evaluates the whole call, which stops at the same place, and
        nothing is remembered (a time budget may have run out)."""
        text = _text(value)
        if text is None:
            return None
        key = (id(node), text)
        known = self._by_zone.get(key)
        if known is not None:
            return known, False
        validator = self._zone_validators.get(id(node))
        if validator is None:
            validator = self._zone_validators[id(node)] = self._validator.evolve(schema=node)
        self._visited = set()
        try:
            for _ in validator.iter_errors(value):
                pass
        except Exception:
            return None
        found = frozenset(i for site in self._visited for i in self._targets.get(site, ()))
        # A zone whose values do not repeat (a free-text field below ``anyOf: [T, null]``)
        # fills its share and is evaluated from then on; the others' few values stay.
        count = self._zone_counts.get(key[0], 0)
        if len(text) <= _MAX_ZONE_TEXT and count < _VALUES_PER_ZONE and ZONE_VALUES.take():
            self._by_zone[key] = found = self._answer(found)
            self._zone_counts[key[0]] = count + 1
        return found, True

    @property
    def _validator(self) -> Any:
        """The tracking validator, built when a call first needs it: most schemas' calls
        are answered by their shape alone, and building one (a validator class per tool)
        took a third of compiling a tool."""
        if self._built is None and self._tracking is not None:
            validator_class, schema, registry, tracked = self._tracking
            self._built = validators.extend(validator_class, tracked)(schema, registry=registry)
        return self._built

    def _node_targets(self, node: dict[str, JSON]) -> tuple[int, ...]:
        """The indices whose keyword evaluating ``node`` runs (remembered per node)."""
        known = self._by_node.get(id(node))
        if known is None:
            assert self._paths is not None
            known = self._by_node[id(node)] = tuple(
                i for site in self._paths.sites(node) for i in self._targets.get(site, ())
            )
        return known

    def _track(self, keyword: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def tracked(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
            self._visited.add((id(schema), keyword))
            return function(validator, value, instance, schema)

        return tracked


_FOLLOWED: Final = frozenset(
    {
        "properties",
        "additionalProperties",
        "items",
        "prefixItems",
        "allOf",
        "$ref",
    }
)
"""Keywords whose subschemas run on parts of the instance chosen by its shape alone."""
_ZONED: Final = frozenset({"patternProperties", "unevaluatedProperties", "unevaluatedItems"})
"""Keywords that make a schema object leading to a tracked keyword a value zone whatever
their value: which properties ``additionalProperties`` gets depends on the patterns' matches,
and the unevaluated keywords evaluate their siblings' subschemas again, stopping at the first
error (``find_evaluated_property_keys_by_schema``)."""
_UNFOLLOWED_REFS: Final = frozenset({"$id", "id", "$dynamicRef", "$recursiveRef"})
"""Keywords that make references resolve otherwise than against the root: such schemas are
evaluated for real."""
_NOT_SCHEMAS: Final = frozenset({"$defs", "definitions", "enum", "const", "default", "examples"})
_MAX_DEPTH: Final = 64
"""Steps through ``$ref`` and subschemas before the walk defers to the real evaluation."""


class _Paths:
    """Which (schema object, keyword) pairs evaluation runs, from the instance's shape, and
    the value zones it meets (``zoned``).

    Mirrors python-jsonschema: every keyword of an evaluated schema object runs (before
    2019-09, only ``$ref`` where it stands); ``properties`` descends into the properties the
    instance has, ``items`` into the items after ``prefixItems``, ``additionalProperties``
    into the properties ``properties`` does not name, and so on.
    """

    def __init__(
        self, schema: JSON, validator_class: Any, zoned: set[int], leads: set[int]
    ) -> None:
        self._root = schema
        self._functions = frozenset(validator_class.VALIDATORS)
        self._legacy_ref = "$recursiveRef" not in self._functions and "$dynamicRef" not in (
            self._functions
        )
        self._tuple_items = "prefixItems" not in self._functions
        self._zoned = zoned
        """Schema objects the walk leaves to evaluation on their part of the value."""
        self._targets: dict[str, JSON] = {}
        self._plans: dict[int, _Plan] = {}
        self._fixed_of: dict[int, _Fixed | None] = {}
        self._simple_of: dict[int, int | None] = {}
        self._leads = leads
        """Schema objects from which a rewritten keyword (or a value zone) can be reached:
        the walk need not enter any other."""

    @classmethod
    def build(cls, schema: JSON, targets: set[_Site], validator_class: Any) -> _Paths | None:
        """The walker, or None when a rewritten keyword lies out of its reach."""
        for _, keyword, value in _applications(schema):
            if keyword in _UNFOLLOWED_REFS and isinstance(value, str):
                return None  # refs resolve against embedded resources: evaluate for real
        holders = {node_id for node_id, _ in targets}
        leads = _leading_to(schema, holders)
        zoned = {
            id(node)
            for node, keyword, value in _applications(schema)
            if id(node) in leads
            and (keyword in _ZONED or (keyword not in _FOLLOWED and _dicts_in(value) & leads))
        }
        return cls(schema, validator_class, zoned, leads)

    def visit(self, instance: JSON) -> set[_Site] | None:
        """The pairs evaluating ``instance`` runs where rewritten keywords can be, when its
        shape alone decides them; None when it meets a value zone or cannot be walked."""
        nodes = self.walk(instance)
        if nodes is None:
            return None
        return {site for node in nodes.values() for site in self.sites(node)}

    def sites(self, node: dict[str, JSON]) -> list[_Site]:
        """The pairs evaluating the schema object ``node`` runs (whatever the value)."""
        keywords = ("$ref",) if self._legacy_ref and "$ref" in node else tuple(node)
        return [(id(node), keyword) for keyword in keywords if keyword in self._functions]

    def walk(self, instance: JSON) -> dict[int, dict[str, JSON]] | None:
        """The schema objects evaluating ``instance`` runs, by id, where tracked keywords can
        be; None when it meets a value zone or cannot be walked."""
        walked = self.plans(instance)
        if walked is None or walked[1]:
            return None
        return {id(plan.node): plan.node for plan in walked[0]}

    def keys_decide(self, keys: tuple[str, ...]) -> bool:
        """Whether the walk of any object with these keys (in this order) meets the same
        schema objects: nothing below the root but what runs whatever the values are
        (``plans`` of such an object has met them already)."""
        if id(self._root) not in self._leads:
            return True  # nothing is ever walked
        plan = self._plans.get(id(self._root))
        if plan is None or plan.whole or plan.zone:
            return False
        step = plan.by_keys.get(keys)
        return step is not None and not step[2]

    def kinds(self, instance: dict[str, JSON], keys: tuple[str, ...]) -> _Kinds | None:
        """What, beside its keys, decides the walk of the object ``instance`` (whose keys are
        ``keys``), when little does: the kind of each value the root object's step walks
        further (0 not a container, 1 an object, 2 a list of at most the positions before
        ``items``, 3 a longer list), or where that value's subschema is a value zone, the
        zone's object and the value's exact text (its key in ``CoverageTracker._by_zone``).
        That is so when each of the other values' subschemas walks nothing below but an
        ``items`` subschema evaluated whatever the value (``_simple``). None otherwise (the
        walk answers), and before the step is known."""
        plan = self._plans.get(id(self._root))
        if plan is None or plan.whole or plan.zone:
            return None
        step = plan.by_keys.get(keys)
        if step is None:
            return None
        found: list[int | tuple[int, str]] = []
        for name, child in step[2]:
            value = instance[name]
            if (
                isinstance(child, dict)
                and (self._plans.get(id(child)) or self._plan_of(child)).zone
            ):
                text = _text(value)
                if text is None or len(text) > _MAX_ZONE_TEXT:
                    return None
                found.append((id(child), text))
                continue
            start = self._simple(child)
            if start is None:
                return None
            if isinstance(value, list):
                found.append(3 if len(value) > start else 2)
            else:
                found.append(1 if isinstance(value, dict) else 0)
        return tuple(found)

    def _simple(self, node: JSON) -> int | None:
        """Where the items after the positions start, when evaluating ``node`` meets the same
        schema objects for any value of the same kind (``kinds``): nothing below it but
        ``allOf``/``$ref`` objects evaluated whatever the value, and an ``items`` subschema
        that is one too (or none); None otherwise."""
        if id(node) in self._simple_of:
            return self._simple_of[id(node)]
        if not isinstance(node, dict):
            return None
        plan = self._plans.get(id(node)) or self._plan_of(node)
        simple = (
            not plan.stops
            and not plan.zone
            and not plan.properties
            and plan.extra is None
            and not plan.positions
            and all(self._fixed(child) is not None for child in plan.whole)
            and (plan.rest is None or self._fixed(plan.rest) is not None)
        )
        start = plan.start if simple else None
        self._simple_of[id(node)] = start
        return start

    def plans(
        self, instance: JSON
    ) -> tuple[list[_Plan], list[tuple[dict[str, JSON], JSON]]] | None:
        """``walk``'s schema objects as their plans, each once, and the value zones met, each
        with its part of ``instance`` (each pair once); None when a reference cannot be
        followed or the walk goes past its depth bound."""
        zones: list[tuple[dict[str, JSON], JSON]] = []
        if id(self._root) not in self._leads:
            return [], zones
        plan_of = self._plan_of
        plans: dict[int, _Plan] = self._plans
        visited: dict[int, _Plan] = {}
        stack: list[tuple[JSON, JSON, int]] = [(self._root, instance, 0)]
        # What a schema object runs on a value depends on the two alone: each pair is walked
        # once, so ``allOf``/``$ref`` fan-out (2^26 paths through 26 levels) costs its size.
        done: set[tuple[int, int]] = set()
        while stack:
            node, value, depth = stack.pop()
            pair = (id(node), id(value))
            if pair in done or not isinstance(node, dict):
                continue
            done.add(pair)
            plan = plans.get(pair[0]) or plan_of(node)
            if depth > _MAX_DEPTH or plan.stops:
                return None
            if plan.zone:
                zones.append((node, value))  # all of it, its own keywords included
                continue
            visited[pair[0]] = plan
            depth += 1
            # Children in the order the tracked evaluation's walk met them (the depth bound
            # depends on it): ``allOf``, ``$ref``, then the parts of the value.
            for child in plan.whole:
                stack.append((child, value, depth))
            if isinstance(value, dict):
                keys = tuple(value)
                step = plan.by_keys.get(keys)
                if step is None:
                    step = self._object_step(plan, keys)
                leaves, height, below = step
                if leaves:
                    if depth + height > _MAX_DEPTH:
                        return None  # deeper than the walk goes: evaluate for real
                    visited.update(leaves)
                for name, child in below:
                    stack.append((child, value[name], depth))
            elif isinstance(value, list):
                for position, child in plan.positions:
                    if position < len(value):
                        stack.append((child, value[position], depth))
                rest = plan.rest
                if rest is not None and len(value) > plan.start:
                    fixed = self._fixed(rest)
                    if fixed is None:
                        for part in value[plan.start :]:
                            stack.append((rest, part, depth))
                    elif depth + fixed[1] > _MAX_DEPTH:
                        return None
                    else:
                        visited.update(fixed[0])
        return list(visited.values()), zones

    def _object_step(self, plan: _Plan, keys: tuple[str, ...]) -> _Step:
        """What ``plan`` does with an object whose keys are ``keys``: the subschemas with
        nothing below them it evaluates (no need to stack them), and the others, in the
        order the walk meets them (``properties``, then ``additionalProperties``)."""
        leaves: dict[int, _Plan] = {}
        height = 0
        below: list[tuple[str, JSON]] = []
        present = set(keys)
        met = [(name, child) for name, child in plan.properties if name in present]
        if plan.extra is not None:
            met += [(name, plan.extra) for name in keys if name not in plan.named]
        for name, child in met:
            fixed = self._fixed(child)
            if fixed is None:
                below.append((name, child))
            else:
                leaves.update(fixed[0])
                height = max(height, fixed[1])
        step = (leaves, height, tuple(below))
        if len(plan.by_keys) < _STEPS_PER_PLAN and len(keys) <= _MAX_STEP_KEYS and KEY_SETS.take():
            plan.by_keys[keys] = step
        return step

    def _fixed(self, node: JSON, around: frozenset[int] = frozenset()) -> _Fixed | None:
        """The schema objects evaluating ``node`` runs whatever the value, and how many
        levels deep they go, when that does not depend on the value (nothing below it but
        ``allOf``/``$ref`` to such objects, no cycle); None otherwise. ``around``: the
        objects whose answer waits on this one."""
        if id(node) in self._fixed_of:
            return self._fixed_of[id(node)]
        found: _Fixed | None = None
        if isinstance(node, dict) and id(node) not in around and len(around) < _MAX_DEPTH:
            plan = self._plans.get(id(node)) or self._plan_of(node)
            if not (
                plan.stops
                or plan.zone
                or plan.properties
                or plan.extra is not None
                or plan.positions
                or plan.rest is not None
            ):
                nodes = {id(node): plan}
                height = 1
                for child in plan.whole:
                    below = self._fixed(child, around | {id(node)})
                    if below is None:
                        break
                    nodes.update(below[0])
                    height = max(height, below[1] + 1)
                else:
                    found = (nodes, height)
        # A cycle's objects, and all that lead to one, are not fixed: None holds wherever
        # the search started (one past the depth bound only sends calls to the full walk).
        self._fixed_of[id(node)] = found
        return found

    def _plan_of(self, node: dict[str, JSON]) -> _Plan:
        """What walking ``node`` takes, worked out once per schema object: only children
        from which a tracked keyword can be reached are kept."""
        keywords = ("$ref",) if self._legacy_ref and "$ref" in node else tuple(node)

        def kept(child: JSON) -> bool:
            return id(child) in self._leads or child is _UNRESOLVED

        whole: list[JSON] = []
        if "allOf" in keywords and isinstance(node["allOf"], list):
            whole += [sub for sub in node["allOf"] if kept(sub)]
        if "$ref" in keywords and isinstance(node["$ref"], str):
            ref = node["$ref"]
            if ref not in self._targets:  # resolved once: walks repeat the same references
                self._targets[ref] = _local(self._root, ref)
            target = self._targets[ref]
            whole += [t for t in [_UNRESOLVED if target is None else target] if kept(t)]
        properties = node.get("properties") if "properties" in keywords else None
        named: dict[str, JSON] = properties if isinstance(properties, dict) else {}
        # No patternProperties here: ``build`` leaves such schemas to the budgeted evaluation,
        # so the properties that ``properties`` does not name are all additional.
        extra = node.get("additionalProperties") if "additionalProperties" in keywords else None
        prefix = node.get("prefixItems") if "prefixItems" in keywords else None
        items = node.get("items") if "items" in keywords else None
        positions = list(enumerate(prefix)) if isinstance(prefix, list) else []
        rest: JSON = None
        if isinstance(items, list) and self._tuple_items:
            positions += list(enumerate(items))
        elif isinstance(items, dict):
            rest = items
        plan = _Plan(
            node=node,
            stops=node is _UNRESOLVED,
            zone=id(node) in self._zoned,
            whole=tuple(whole),
            properties=tuple((name, sub) for name, sub in named.items() if kept(sub)),
            named=frozenset(named),
            extra=extra if isinstance(extra, dict) and kept(extra) else None,
            positions=tuple((i, sub) for i, sub in positions if kept(sub)),
            rest=rest if kept(rest) else None,
            start=len(prefix) if isinstance(prefix, list) else 0,
        )

        self._plans[id(node)] = plan
        return plan


@dataclass(slots=True)
class _Plan:
    """One schema object's part of the walk, prepared once (``_Paths._plan_of``)."""

    node: dict[str, JSON]
    stops: bool
    """A reference the walk cannot follow: evaluate for real."""
    zone: bool
    """A value zone: evaluated alone on its part of the value (``CoverageTracker._zone``)."""
    whole: tuple[JSON, ...]
    """Subschemas that run on the same value (``allOf``, then ``$ref``'s target)."""
    properties: tuple[tuple[str, JSON], ...]
    named: frozenset[str]
    extra: JSON
    positions: tuple[tuple[int, JSON], ...]
    """Subschemas of array positions (``prefixItems``, then a list ``items``)."""
    rest: JSON
    """The subschema of the items after ``start``."""
    start: int
    targets: tuple[int, ...] | None = None
    """The tracked indices evaluating ``node`` runs (filled by ``CoverageTracker``)."""
    by_keys: dict[tuple[str, ...], _Step] = field(default_factory=dict)
    """``_Paths._object_step`` per object keys met: argument objects of a tool have a few
    key sets, met over and over."""


_Kinds = tuple[int | tuple[int, str], ...]
"""``_Paths.kinds``: per value walked further, its kind or its zone's key."""
_Fixed = tuple[dict[int, _Plan], int]
"""Schema objects evaluated whatever the value, and the levels they span."""
_Step = tuple[dict[int, _Plan], int, tuple[tuple[str, JSON], ...]]
"""The fixed objects an object's keys lead to, their levels, and the (key, subschema) pairs
to walk further."""


class _Allowance:
    """How many more key sets the walks of this process may remember."""

    def __init__(self, most: int) -> None:
        self.left = most

    def take(self) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        return True


KEY_SETS: Final = _Allowance(50_000)
"""Key sets remembered by all the walks of a process together, each about 600 bytes (its
keys, the objects they lead to): about 30 MB at most, whatever the catalog and the logs'
variety; past it, walks work each object out (the answers are the same)."""
_STEPS_PER_PLAN: Final = 1024
"""Key sets remembered per schema object: bounded whatever the logs hold."""
_MAX_STEP_KEYS: Final = 64
"""Objects with more keys are worked out each time (a key set that long rarely repeats)."""
ZONE_VALUES: Final = _Allowance(150_000)
"""Value zones' answers remembered by all the trackers of a process together, each about 270
bytes at most (its text, bounded by ``_MAX_ZONE_TEXT``, the key and the dict's slot; short
values, most of them, take half): 40 MB at most; past it, zones are evaluated each time (the
answers are the same)."""
_VALUES_PER_ZONE: Final = 1024
"""Values remembered per zone object: an enum's or a const's few values fit, and a zone whose
values do not repeat cannot take the others' share of ``ZONE_VALUES``."""
_MAX_ZONE_TEXT: Final = 128
"""Longer zone values are evaluated each time: a value that long rarely repeats."""


_UNRESOLVED: Final[dict[str, JSON]] = {"$comment": "unresolved"}
"""Stands for a reference the walk cannot follow: evaluation would raise, so defer."""


def _text(value: JSON) -> str | None:
    """The exact text of a zone's value: 1, 1.0 and True apart, and keys in their order (the
    first error of a short-circuiting applicator can depend on it); None for a value nested
    too deep to write (the call is then evaluated in full)."""
    try:
        return repr(value)
    except RecursionError:
        return None


def _local(root: JSON, ref: str) -> JSON:
    pointer = pointers.ref_target(ref)
    if not isinstance(pointer, str):
        return None  # remote, or an anchor: not followed here
    found, node = pointers.resolve(root, pointer)
    return node if found else None


def _applications(schema: JSON) -> Iterator[tuple[dict[str, JSON], str, JSON]]:
    """(schema object, keyword, value) for every keyword value that may hold subschemas."""
    stack = [schema]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            for keyword, value in node.items():
                if keyword not in _NOT_SCHEMAS:
                    yield node, keyword, value
                stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)


def _dicts_in(value: JSON) -> set[int]:
    """Ids of the objects directly in a keyword's value (itself, or the members of a list)."""
    members = value if isinstance(value, list) else [value]
    return {id(m) for m in members if isinstance(m, dict)}


def _leading_to(schema: JSON, holders: set[int]) -> set[int]:
    """Ids of every object from which one of ``holders`` can be reached, through nested
    values and local references; linear in the size of the schema."""
    parents: dict[int, set[int]] = {}
    unresolved = 0  # stands for wherever a reference the walk cannot follow leads
    nodes: list[dict[str, JSON]] = [schema] if isinstance(schema, dict) else []
    seen: set[int] = set()
    while nodes:
        node = nodes.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = _local(schema, ref)
            parents.setdefault(unresolved if target is None else id(target), set()).add(id(node))
        members = list(node.values())
        while members:
            member = members.pop()
            if isinstance(member, dict):
                parents.setdefault(id(member), set()).add(id(node))
                nodes.append(member)
            elif isinstance(member, list):
                members.extend(member)
    found = set(holders)
    if unresolved in parents:
        found.add(unresolved)  # assume the worst of what cannot be followed
    todo = list(found)
    while todo:
        for parent in parents.get(todo.pop(), ()):
            if parent not in found:
                found.add(parent)
                todo.append(parent)
    return found
