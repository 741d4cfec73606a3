"""Which rewritten keywords a call's evaluation reaches under the normalized schema.

Two ways to the same answer. Through ``properties``, ``items``, ``prefixItems``,
``additionalProperties``, ``allOf`` and local ``$ref``, which keywords python-jsonschema runs
depends on the shape of the arguments alone, and ``_Paths`` follows that shape in a few
microseconds. Below a schema object with anything else that leads to a tracked keyword
(``anyOf``, ``oneOf``, ``not``, ``if``, ``contains``, ``patternProperties``,
``dependentSchemas``, ``unevaluated*``...), what runs depends on verdicts or on user regexes:
that object is a *value zone* (what python-jsonschema does there depends on the object and
its part of the arguments alone). Below ``anyOf``, ``oneOf``, ``not`` and ``if`` it depends
on the verdicts of their subschemas alone, and exactly so: ``auditor.replay.zones`` decides
which run in full (walked by shape, as the rest) and where one checked with ``is_valid``
stopped, from verdicts of the keywords' own functions or of the fast validator. Any other
zone, or one no verdict can be had for, is evaluated by the tracking validator, that object
alone on its part of the arguments, remembered by the part's exact text (``repr``: types,
key order and all). The arguments' *signature* (the schema objects their shape leads to, each
decided zone's object and verdicts, each evaluated zone's object and exact value) decides the
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
calls' coverage is a signature and a lookup, or a walk, not an evaluation.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, cast

from jsonschema import validators
from referencing import Registry

from auditor import pointers
from auditor.models import JSON, Change, Edit, Rule
from auditor.replay.causes import keyword_position
from auditor.replay.zones import FOLLOWED, ZONED, Decision, ZoneDecider

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
        self._class = validator_class
        self._zones: ZoneDecider | None = None
        """Decides the value zones whose verdicts say what they run (built when needed)."""
        self._decisions: dict[tuple[int, str], tuple[Decision, bool]] = {}
        """Zones' decisions by their object and their value's text (``_decide``)."""
        self._decision_counts: dict[int, int] = {}
        """Values remembered per zone object in ``_decisions`` (at most ``_VALUES_PER_ZONE``)."""
        self._shared_decisions: dict[_Decided, tuple[Decision, bool]] = {}
        """Each decision met, once, with whether its key alone decides the answer."""
        self._by_decision: dict[_Decided, frozenset[int]] = {}
        """The answer of a decided zone by its schema object and its decision's key, where
        the key alone decides it (``_Paths.opens_to_fixed``)."""
        self.evaluations = 0
        """Tracking evaluations run, of a zone or of a whole call (benchmarks/stages.py)."""
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
                kinds = self._paths.kinds(cast(dict[str, JSON], instance), keys, self._zone_key)
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
        self.evaluations += 1
        try:
            for _ in self._validator.iter_errors(instance):
                pass
        except Exception:
            pass
        return frozenset(i for site in self._visited for i in self._targets.get(site, ()))

    def _by_walk(self, instance: JSON) -> tuple[frozenset[int], bool, bool] | None:
        """``reached`` from the walk, the value zones it decides and those it leaves to the
        tracking evaluation, whether it left any, and whether one of their values was new (not
        remembered before); None when the walk cannot answer or a zone's evaluation raised
        (the whole evaluation stops where it did)."""
        found: set[int] = set()
        texts: list[tuple[dict[str, JSON], JSON]] = []
        if not self._gather(instance, None, found, texts, frozenset()):
            return None
        fresh = False
        for node, value in texts:
            part = self._zone(node, value)
            if part is None:
                return None
            found.update(part[0])
            fresh = fresh or part[1]
        return frozenset(found), bool(texts), fresh

    def _gather(
        self,
        value: JSON,
        opened: tuple[dict[str, JSON], Decision] | None,
        found: set[int],
        texts: list[tuple[dict[str, JSON], JSON]],
        around: frozenset[tuple[int, int]],
        signature: set[Hashable] | None = None,
    ) -> bool:
        """Adds to ``found`` what the walk of ``value`` reaches, from the root or from an
        opened zone (its object and its decision), deciding the zones it meets where verdicts
        can, and to ``texts`` the zones left to the tracking evaluation; False where the walk
        cannot answer. ``signature``: collects the objects walked and the decided zones' keys
        instead of using remembered answers (``signature``)."""
        assert self._paths is not None
        if opened is None:
            walked = self._paths.plans(value)
        else:
            walked = self._paths.plans(value, (opened[0], opened[1].walked))
            found.update(i for site in opened[1].sites for i in self._targets.get(site, ()))
        if walked is None:
            return False
        plans, zones = walked
        for plan in plans:
            if plan.targets is None:
                plan.targets = self._node_targets(plan.node)
            found.update(plan.targets)
        if signature is not None:
            signature.update(id(plan.node) for plan in plans)
        for node, part in zones:
            decided = self._decide(node, part)
            if decided is None:
                texts.append((node, part))
                continue
            decision, fixed = decided
            pair = (id(node), id(part))
            if pair in around or len(around) >= _MAX_DEPTH:
                return False  # a zone within itself on one value: evaluation recurses
            key = (id(node), decision.key)
            if signature is not None:
                signature.add(key)
            elif (known := self._by_decision.get(key)) is not None:
                found.update(known)
                continue
            inner: set[int] = set()
            left = len(texts)
            if not self._gather(part, (node, decision), inner, texts, around | {pair}, signature):
                return False
            found.update(inner)
            if (
                signature is None
                and len(texts) == left
                and fixed
                and len(self._by_decision) < _STEPS_PER_PLAN
                and ZONE_VALUES.take()
            ):
                self._by_decision[key] = self._answer(frozenset(inner))
        return True

    def _decide(self, node: dict[str, JSON], value: JSON) -> tuple[Decision, bool] | None:
        """What the zone ``node`` runs on ``value``, where its verdicts say
        (``auditor.replay.zones``), and whether the decision's key alone decides the answer
        (``_Paths.opens_to_fixed``); remembered by the value's text, as ``_zone`` does (a
        mode, a kind: the same few values again and again)."""
        text = _text(value)
        key = None if text is None or len(text) > _MAX_ZONE_TEXT else (id(node), text)
        if key is not None and (known := self._decisions.get(key)) is not None:
            return known
        assert self._paths is not None
        if self._zones is None:
            self._zones = self._paths.decider(self._class)
        decision = self._zones.decide(node, value)
        if decision is None:
            return None
        # One record per decision: the many values that share one share it.
        shared = (id(node), decision.key)
        found = self._shared_decisions.get(shared)
        if found is None:
            found = (decision, self._paths.opens_to_fixed(node, decision))
            self._shared_decisions[shared] = found
        count = self._decision_counts.get(id(node), 0)
        if key is not None and count < _VALUES_PER_ZONE and ZONE_VALUES.take():
            self._decisions[key] = found
            self._decision_counts[id(node)] = count + 1
        return found

    def _zone_key(self, node: dict[str, JSON], value: JSON) -> _ZoneKey | None:
        """What decides the answer of the zone ``node`` on ``value`` (``_Paths.kinds``): its
        decision's key where the key alone does, else the value's exact text; None where
        neither is short."""
        decided = self._decide(node, value)
        if decided is None:
            text = _text(value)
            return text if text is not None and len(text) <= _MAX_ZONE_TEXT else None
        return decided[0].key if decided[1] else None

    def signature(
        self, instance: JSON
    ) -> tuple[frozenset[Hashable], frozenset[tuple[int, str]]] | None:
        """What decides ``reached(instance)`` by the walk: the schema objects the arguments'
        shape leads to with each decided value zone's object and key, and each zone left to
        the tracking evaluation with the exact text of its value. Calls with one signature
        reach the same keywords (the property tests check it against full evaluation); None
        where the walk cannot answer and the call is evaluated in full."""
        if self._paths is None:
            return None
        walked: set[Hashable] = set()
        zones: list[tuple[dict[str, JSON], JSON]] = []
        if not self._gather(instance, None, set(), zones, frozenset(), walked):
            return None
        texts = [(id(node), _text(value)) for node, value in zones]
        if any(text is None for _, text in texts):
            return None
        return frozenset(walked), frozenset(cast(list[tuple[int, str]], texts))

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
            # Not the root evolved onto itself: evolving to a schema with ``$schema`` picks
            # that draft's own validator class, which tracks nothing.
            root = self._tracking is not None and node is self._tracking[1]
            validator = self._validator if root else self._validator.evolve(schema=node)
            self._zone_validators[id(node)] = validator
        self._visited = set()
        self.evaluations += 1
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
        self._how: dict[int, tuple[str, Any]] = {}
        """``_how_of`` per schema object."""
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
            and (keyword in ZONED or (keyword not in FOLLOWED and _dicts_in(value) & leads))
        }
        return cls(schema, validator_class, zoned, leads)

    def visit(self, instance: JSON) -> set[_Site] | None:
        """The pairs evaluating ``instance`` runs where rewritten keywords can be, when its
        shape alone decides them; None when it meets a value zone or cannot be walked."""
        nodes = self.walk(instance)
        if nodes is None:
            return None
        return {site for node in nodes.values() for site in self.sites(node)}

    def decider(self, validator_class: Any) -> ZoneDecider:
        """What decides this schema's value zones from verdicts (``auditor.replay.zones``)."""
        return ZoneDecider(validator_class, self._root, self._legacy_ref, self._leads)

    def opens_to_fixed(self, node: dict[str, JSON], decision: Decision) -> bool:
        """Whether what the zone ``node`` runs under ``decision`` is the same for every value
        (its own followed subschemas and the decided ones run whatever the value): then the
        decision's key alone decides the zone's answer."""
        plan = self._plans.get(id(node)) or self._plan_of(node)
        return (
            not plan.properties
            and plan.extra is None
            and not plan.positions
            and plan.rest is None
            and all(self._fixed(child) is not None for child in plan.whole)
            and all(
                not isinstance(child, dict) or self._fixed(child) is not None
                for child in decision.walked
            )
        )

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

    def kinds(
        self,
        instance: dict[str, JSON],
        keys: tuple[str, ...],
        zone_key: Callable[[dict[str, JSON], JSON], _ZoneKey | None],
    ) -> _Kinds | None:
        """What, beside its keys, decides the walk of the object ``instance`` (whose keys are
        ``keys``), when little does: for each value the root object's step walks further, its
        kind (0 not a container, 1 an object, 2 a list of at most the positions before
        ``items``, 3 a longer list) where its subschema walks nothing below but an ``items``
        subschema evaluated whatever the value (``_simple``); where that subschema is a value
        zone, the zone's object and ``zone_key`` of the value (the verdicts that decide the
        zone, or the value's exact text: its key in ``CoverageTracker._by_zone``); where it
        names properties, the nested object's keys and its values' kinds in turn (``_kind``).
        None otherwise (the walk answers), and before the steps are known."""
        plan = self._plans.get(id(self._root))
        if plan is None or plan.whole or plan.zone:
            return None
        step = plan.by_keys.get(keys)
        if step is None:
            return None
        found: list[_Kind] = []
        for name, child in step[2]:
            kind = self._kind(child, instance[name], zone_key, 0)
            if kind is None:
                return None
            found.append(kind)
        return tuple(found)

    def _kind(
        self,
        child: JSON,
        value: JSON,
        zone_key: Callable[[dict[str, JSON], JSON], _ZoneKey | None],
        depth: int,
    ) -> _Kind | None:
        """What decides the walk of ``value`` through ``child`` (``kinds``): a value zone's
        key; a kind of value where ``_simple`` says only that counts; where ``child`` names
        properties (and walks nothing by position), the object's keys and what decides each
        of its values' walks in turn (any other value walks nothing below it). None where
        more decides it, or it nests past ``_MAX_KIND_DEPTH``."""
        how = self._how.get(id(child))
        if how is None:
            how = self._how[id(child)] = self._how_of(child)
        walk, detail = how
        if walk is _BY_KIND:
            if isinstance(value, list):
                return 3 if len(value) > detail else 2
            return 1 if isinstance(value, dict) else 0
        if walk is _BY_ZONE:
            key = zone_key(cast(dict[str, JSON], child), value)
            return None if key is None else (id(child), key)
        if walk is not _BY_KEYS or depth >= _MAX_KIND_DEPTH:
            return None
        if not isinstance(value, dict):
            return 0
        keys = tuple(value)
        step = detail.by_keys.get(keys)
        if step is None:
            return None  # not walked yet
        found: list[_Kind] = []
        for name, grandchild in step[2]:
            kind = self._kind(grandchild, value[name], zone_key, depth + 1)
            if kind is None:
                return None
            found.append(kind)
        return (keys, tuple(found))

    def _how_of(self, child: JSON) -> tuple[str, Any]:
        """How ``_kind`` reads a value through ``child``, worked out once per schema object:
        by its kind (with where the items start), by its zone's key, by its keys (with its
        plan), or not at all."""
        if not isinstance(child, dict):
            return _NOT_KINDED, None
        plan = self._plans.get(id(child)) or self._plan_of(child)
        if plan.zone:
            return _BY_ZONE, None
        start = self._simple(child)
        if start is not None:
            return _BY_KIND, start
        if (
            plan.stops
            or plan.positions
            or plan.rest is not None
            or not all(self._fixed(part) is not None for part in plan.whole)
        ):
            return _NOT_KINDED, None
        return _BY_KEYS, plan

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
        self, instance: JSON, opened: tuple[dict[str, JSON], tuple[JSON, ...]] | None = None
    ) -> tuple[list[_Plan], list[tuple[dict[str, JSON], JSON]]] | None:
        """``walk``'s schema objects as their plans, each once, and the value zones met, each
        with its part of ``instance`` (each pair once); None when a reference cannot be
        followed or the walk goes past its depth bound.

        ``opened``: a value zone and the subschemas its decision evaluates in full
        (``ZoneDecider``): the walk starts there, on ``instance`` (the zone's part of the
        arguments), with the zone's own keywords run as any object's."""
        zones: list[tuple[dict[str, JSON], JSON]] = []
        if opened is None and id(self._root) not in self._leads:
            return [], zones
        plan_of = self._plan_of
        plans: dict[int, _Plan] = self._plans
        visited: dict[int, _Plan] = {}
        stack: list[tuple[JSON, JSON, int]]
        if opened is None:
            stack, open_zone = [(self._root, instance, 0)], 0
        else:
            # The zone first (popped first), then its decided subschemas one level below it.
            stack = [(child, instance, 1) for child in reversed(opened[1])]
            stack.append((opened[0], instance, 0))
            open_zone = id(opened[0])
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
            if plan.zone and not (pair[0] == open_zone and value is instance):
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


_Decided = tuple[int, tuple[tuple[int, ...], ...]]
"""A zone object's id and a ``Decision.key``."""
_ZoneKey = str | tuple[tuple[int, ...], ...]
"""What decides a value zone's answer: its value's exact text, or its ``Decision.key``."""
_Kind = Hashable
"""``_Paths._kind``: a kind of value (an int), a zone's id and key, or an object's keys with
its values' kinds."""
_Kinds = tuple[_Kind, ...]
"""``_Paths.kinds``: per value walked further, its kind."""
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
_BY_KIND: Final = "kind"
_BY_ZONE: Final = "zone"
_BY_KEYS: Final = "keys"
_NOT_KINDED: Final = "walk"
_MAX_KIND_DEPTH: Final = 4
"""Objects nested deeper below the arguments are walked (their signature would be long)."""
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
