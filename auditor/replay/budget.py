"""A time budget per call, enforced inside schema evaluation.

Logged arguments and third-party schemas can make evaluation take forever: a pattern such as
``^(a|a)*$`` backtracks exponentially on ``"aaaa…!"``, and ``uniqueItems`` compares every pair
of a long array of objects. Python's ``re`` cannot be interrupted (it holds the interpreter
until it returns), so the validators built here:

- match ``pattern``, ``patternProperties``, and the property-name matching inside
  ``additionalProperties`` and ``unevaluatedProperties`` with the ``regex`` package, whose
  matcher takes a ``timeout``: the call's remaining budget;
- check the budget each time a keyword that evaluates subschemas starts, so no amount of
  descending runs past it;
- decide ``uniqueItems`` in linear time (hashing a canonical form) instead of pairwise.

When the budget runs out, ``CallTimeout`` is raised out of evaluation; replay turns it into a
``schema_error_after`` (or ``_before``) outcome for that one call, and the run goes on.

The searches auditor runs on the schemas themselves (counterexamples, the checks of loosening
patches) take steps under the same budget, and share one ceiling per audit
(``SearchCeiling``).

The budget is CPU time, not wall-clock time: on a loaded machine (an oversubscribed executor,
a shared CI runner) a wall-clock budget ran out sooner in work done, so a slow call's outcome
changed from run to run. The ``regex`` engine's ``timeout`` is measured with C's ``clock()``,
the process's CPU time; the keyword checks read the thread's CPU time (the same in a process
that evaluates on one thread, as every worker does). Reading a CPU clock costs ten times a
wall clock (0.4 µs): where evaluation only checks the budget (as each keyword starts), the wall
clock is read first, and the CPU clock only once the wall time spent is past the budget — a
thread cannot have used more CPU time than wall time. A pattern's timeout is the CPU time left.
A replay opens a call's budget without reading either clock (``CallBudget.defer``): the first
budgeted evaluation reads them, and a call the fast validator decides alone reads none.

python-jsonschema's keyword functions call ``re.search`` through their module's globals
(directly, or through helpers such as ``find_additional_properties``). Rather than copy them,
each such function is rebuilt with the same code over a copy of its globals in which ``re`` is
a budgeted stand-in: the semantics and messages stay python-jsonschema's own, and nothing
global changes. ``tests/replay/test_budget.py`` checks that every keyword that matches a regex is
covered, so an upgrade of python-jsonschema that moves the matching cannot slip through.
"""

from __future__ import annotations

import functools
import importlib
import re
import sys
import time
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, Final

import regex
from jsonschema import validators
from jsonschema.exceptions import ValidationError

from auditor.defaults import DEFAULT_CALL_TIMEOUT

MAX_PATTERN_EXPANSION: Final = 100_000
"""Elements a pattern may expand to once its counted repeats are unrolled. The ``regex``
engine unrolls nested counted repeats when it compiles, outside any timeout: the 36 bytes of
``^(?:(?:(?:a{1000}){1000}){1000})$`` took over 20 GB. 10^5 compiles in ~0.03 s and ~30 MB."""


class CallTimeout(Exception):
    """Evaluating one call ran past its budget; the message says what was running."""


class UnusablePattern(Exception):
    """A ``pattern`` the regex engine cannot compile (it passed the meta-schema's check)."""


class CallBudget:
    """The CPU-time budget of the call being evaluated; ``start()`` opens a new one.

    Calls are evaluated one at a time, so one budget serves every tool: it is shared by the
    two verdicts of a call and by the coverage pass that follows them.
    """

    def __init__(self, seconds: float | None = DEFAULT_CALL_TIMEOUT) -> None:
        self.seconds = seconds
        self._started: tuple[float, float] | None = None
        """The wall and CPU clocks when the call's evaluation started."""
        self._deferred = False
        """A call's budget is open but its clocks are not read yet (``defer``)."""
        self.validator_classes: dict[Any, Any] = {}
        """Budgeted validator classes by base class: built once per draft, not per schema."""

    def start(self) -> None:
        """Open the budget of a new call, from now."""
        self._deferred = False
        if self.seconds is not None:
            self._started = (time.monotonic(), time.thread_time())

    def defer(self) -> None:
        """Open the budget of a new call without reading a clock: the budgeted evaluation
        that first asks (``ensure_started``, ``check``, ``remaining``) starts it. A call the
        fast validator decides alone, which no budget can stop, then costs no clock read (two
        are 0.5 µs, a fast verdict 1 µs)."""
        self._started = None
        self._deferred = self.seconds is not None

    def ensure_started(self) -> None:
        """Start a deferred budget now (a reference evaluation begins); nothing when it is
        started already."""
        if self._deferred:
            self.start()

    def check(self) -> None:
        """Raise ``CallTimeout`` once the call's CPU time is spent; cheap while the wall time
        spent is within the budget (CPU time cannot be ahead of it)."""
        started, seconds = self._started, self.seconds
        if started is None:
            self.ensure_started()
        elif seconds is not None and time.monotonic() - started[0] >= seconds:
            self.remaining()

    def spent(self) -> bool:
        """Whether the call's CPU time has run out (without raising): what a lenient reading,
        which swallows ``CallTimeout``, is asked after the fact."""
        try:
            self.remaining()
        except CallTimeout:
            return True
        return False

    def remaining(self) -> float | None:
        """CPU seconds left (None: unbounded); raises ``CallTimeout`` when none are."""
        self.ensure_started()
        if self._started is None or self.seconds is None:
            return None
        left = self.seconds - (time.thread_time() - self._started[1])
        if left <= 0:
            raise CallTimeout(f"evaluating this call took longer than {self.describe()}")
        return left

    def describe(self) -> str:
        return f"the {self.seconds:g} s budget of a call (--call-timeout, CPU time)"


SEARCH_CALLS: Final = 30
"""The CPU time the searches of one audit may take together, in calls' budgets
(``--call-timeout``): a minute at the default 2 s."""
MIN_SEARCH_SECONDS: Final = 60.0
"""The least CPU time the searches of one audit get, whatever ``--call-timeout`` says (0, no
limit, included): the largest ordinary search (20,000 candidates) takes a few seconds."""


class SearchCeiling:
    """The CPU time the searches of one audit spend together, and the budget of each step.

    The counterexample searches and the checks of loosening patches (``--suggest-patch``) are
    auditor's own work, on schemas a pull request may write: a pattern example whose match
    backtracks (``^(a|a){40}$b`` on the ``aaa…ab`` built for it) took days. Each step of
    theirs (one regex match, one evaluation of a proof's or a patch's subschema) keeps to one
    call's budget, like a logged call; all of them together stop at ``seconds``
    (``SEARCH_CALLS`` calls' budgets, at least ``MIN_SEARCH_SECONDS``). Past it, every step is
    refused and the searches left report that they were not done.

    Both are CPU time, and an ordinary search ends far inside them: what the searches find
    does not depend on the machine unless a schema makes its evaluation hostile (then the
    report says which searches ran out). A pattern that ran out of a step once is not matched
    again by this audit's searches: each costs one step.
    """

    def __init__(
        self, call_seconds: float | None = DEFAULT_CALL_TIMEOUT, seconds: float | None = None
    ) -> None:
        """``call_seconds``: a call's budget (``--call-timeout``; None or 0: none, then a step
        may take what is left of the ceiling); ``seconds``: the ceiling, when not the
        default (``SEARCH_CALLS`` budgets of a call, at least ``MIN_SEARCH_SECONDS``)."""
        self.call_seconds = call_seconds or None
        self._rule = seconds is None
        if seconds is None:
            seconds = max(MIN_SEARCH_SECONDS, SEARCH_CALLS * (call_seconds or 0.0))
        self.seconds = seconds
        self._spent = 0.0
        self._since: float | None = None
        """The thread's CPU clock when the outermost ``counting`` began (None: outside)."""
        self.step = CallBudget(self.call_seconds)
        """The budget of the step under way: the validators of proofs and patch checks are
        built over it (once per draft), and each step restarts it."""
        self.overran: dict[str, None] = {}
        """Patterns whose match ran out of its step, in the order met."""
        self.met: set[str] = set()
        """Patterns that could not be matched within a step since ``met`` was last cleared:
        what a search reports it went without."""

    @contextmanager
    def counting(self) -> Iterator[None]:
        """Count the CPU time spent inside towards the ceiling (once, when nested)."""
        if self._since is not None:
            yield
            return
        self._since = time.thread_time()
        try:
            yield
        finally:
            self._spent += time.thread_time() - self._since
            self._since = None

    def left(self) -> float:
        """CPU seconds the searches may still spend (0 once the ceiling is reached)."""
        spent = self._spent
        if self._since is not None:
            spent += time.thread_time() - self._since
        return max(self.seconds - spent, 0.0)

    def spent(self) -> bool:
        """Whether the ceiling is reached: no search step runs any more."""
        return self.left() <= 0.0

    def start_step(self) -> CallBudget | None:
        """Open the budget of one step (one call's, or what is left of the ceiling when that
        is less), or None when the ceiling is reached."""
        left = self.left()
        if left <= 0.0:
            return None
        self.step.seconds = left if self.call_seconds is None else min(self.call_seconds, left)
        self.step.start()
        return self.step

    def matches(self, pattern: str, text: str) -> bool | None:
        """Whether ``pattern`` matches ``text`` (``regex.search``), within one step; None when
        that is not known: the pattern cannot be compiled (or expands past
        ``MAX_PATTERN_EXPANSION``), its match ran out of the step (now or before), or the
        ceiling is reached."""
        if pattern in self.overran:
            self.met.add(pattern)
            return None
        try:
            compiled = compiled_pattern(pattern)
        except UnusablePattern:
            return None
        with self.counting():
            step = self.start_step()
            if step is None:
                return None
            try:
                # remaining() is positive here: a timeout of 0 would stop at once, and a
                # negative one would mean none at all to the regex engine.
                return compiled.search(text, timeout=step.remaining()) is not None
            except (TimeoutError, CallTimeout):
                self.overran[pattern] = None
                self.met.add(pattern)
                return None

    def describe(self) -> str:
        """The ceiling, as the report names it."""
        rule = f" ({SEARCH_CALLS} times --call-timeout, at least {MIN_SEARCH_SECONDS:g} s)"
        return f"the {self.seconds:g} s of CPU time the searches of an audit may take" + (
            rule if self._rule else ""
        )

    def describe_step(self) -> str:
        """A step's budget, as the report names it."""
        if self.call_seconds is None:
            return "the searches' CPU time"
        return f"the {self.call_seconds:g} s budget of a call (--call-timeout, CPU time)"


def compiled_pattern(pattern: str) -> Any:
    """``pattern`` compiled by the ``regex`` engine (which takes a timeout), remembered.

    Refused (``UnusablePattern``) when its counted repeats expand past
    ``MAX_PATTERN_EXPANSION``: the compile itself cannot be interrupted. Refusals are
    remembered too: measuring a long pattern again for every call and every search step
    would cost its parse each time.
    """
    compiled = _compiled(pattern)
    if isinstance(compiled, str):
        raise UnusablePattern(compiled)
    return compiled


@functools.lru_cache(maxsize=1024)
def _compiled(pattern: str) -> Any:
    """``compiled_pattern``'s answer: the compiled pattern, or why it is refused."""
    if pattern_expansion(pattern) > MAX_PATTERN_EXPANSION:
        return (
            f"pattern {pattern!r} cannot be used: its counted repeats expand to more than "
            f"{MAX_PATTERN_EXPANSION:,} elements"
        )
    try:
        return regex.compile(pattern)
    except (regex.error, OverflowError, RecursionError) as error:
        return f"pattern {pattern!r} cannot be compiled: {error}"


_PARSER: Any = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")
_REPEATS: Final = frozenset({"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"})
_COUNTED: Final = re.compile(r"\{(\d*)(?:,(\d*))?\}")


def pattern_expansion(pattern: str) -> int:
    """How many elements ``pattern`` has once every counted repeat is unrolled (``a{3}`` is
    3, ``(?:a{10}){10}`` is 100), saturating just above ``MAX_PATTERN_EXPANSION``.

    Read off Python's own parse of the pattern; a pattern Python cannot parse (the ``regex``
    engine reads more) is measured by a rougher scan of its text that never undercounts.
    """
    try:
        return _parsed_size(_PARSER.parse(pattern))
    except RecursionError:
        return MAX_PATTERN_EXPANSION + 1
    except Exception:  # not Python's dialect: measure the text
        return _scanned_size(pattern)


def _parsed_size(items: Any) -> int:
    total = 0
    for op, argument in items:
        if str(op) in _REPEATS:
            low, high, sub = argument
            count = high if high != _PARSER.MAXREPEAT else low
            total += max(count, 1) * _parsed_size(sub)
        else:
            total += 1 + sum(_parsed_size(sub) for sub in _subpatterns(argument))
        if total > MAX_PATTERN_EXPANSION:
            return MAX_PATTERN_EXPANSION + 1
    return total


def _subpatterns(argument: Any) -> Iterator[Any]:
    if isinstance(argument, _PARSER.SubPattern):
        yield argument
    elif isinstance(argument, (tuple, list)):
        for member in argument:
            yield from _subpatterns(member)


def _scanned_size(pattern: str) -> int:
    # Groups by parentheses, a counted repeat multiplying the atom or group before it;
    # escapes and classes count as one element each.
    stack, last, i = [0], 1, 0
    while i < len(pattern):
        char = pattern[i]
        counted = _COUNTED.match(pattern, i) if char == "{" else None
        if char == "\\":
            i += 2
            if i < len(pattern) and pattern[i] == "{":  # \p{L}, \N{name}, \x{41}
                i = pattern.find("}", i) + 1 or len(pattern)
            stack[-1], last = stack[-1] + 1, 1
            continue
        if char == "[":
            end = i + 1
            while end < len(pattern) and pattern[end] != "]":
                end += 2 if pattern[end] == "\\" else 1
            stack[-1], last, i = stack[-1] + 1, 1, end + 1
            continue
        if char == "(":
            stack.append(0)
        elif char == ")" and len(stack) > 1:
            last = max(stack.pop(), 1)
            stack[-1] += last
        elif counted is not None and (counted.group(1) or counted.group(2)):
            count = max(int(n) if len(n) < 7 else 10**7 for n in counted.groups("0") if n)
            stack[-1] += last * (max(count, 1) - 1)
            last = min(last * max(count, 1), MAX_PATTERN_EXPANSION + 1)
            if stack[-1] > MAX_PATTERN_EXPANSION:  # before ``last`` can grow any further
                return MAX_PATTERN_EXPANSION + 1
            i = counted.end()
            continue
        else:
            stack[-1], last = stack[-1] + 1, 1
        if sum(stack) > MAX_PATTERN_EXPANSION:
            return MAX_PATTERN_EXPANSION + 1
        i += 1
    return sum(stack)


class _BudgetedRe:
    """Stands in for the ``re`` module inside python-jsonschema's keyword functions."""

    def __init__(self, budget: CallBudget) -> None:
        self._budget = budget

    def search(self, pattern: str, string: str) -> Any:
        compiled = compiled_pattern(pattern)
        try:
            return compiled.search(string, timeout=self._budget.remaining())
        except TimeoutError:
            raise CallTimeout(
                f"pattern {pattern!r} did not finish within {self._budget.describe()}"
            ) from None


_Keyword = Callable[..., Any]


def _uses_re(function: types.FunctionType, seen: set[types.CodeType]) -> bool:
    """Whether ``function`` or a module-level helper it calls looks up ``re``."""
    if function.__code__ in seen:
        return False
    seen.add(function.__code__)
    names = function.__code__.co_names
    if "re" in names:
        return True
    return any(
        isinstance(helper, types.FunctionType) and _uses_re(helper, seen)
        for helper in (function.__globals__.get(name) for name in names)
    )


def _rebound(
    function: types.FunctionType, stand_in: _BudgetedRe, done: dict[types.CodeType, Any]
) -> types.FunctionType:
    """``function`` over a copy of its globals where ``re`` and its helpers are budgeted."""
    known: types.FunctionType | None = done.get(function.__code__)
    if known is not None:
        return known
    env = dict(function.__globals__)
    env["re"] = stand_in
    copy = types.FunctionType(
        function.__code__, env, function.__name__, function.__defaults__, function.__closure__
    )
    done[function.__code__] = copy  # before the helpers: a helper may call itself
    for name in function.__code__.co_names:
        helper = env.get(name)
        if isinstance(helper, types.FunctionType) and _uses_re(helper, set()):
            env[name] = _rebound(helper, stand_in, done)
    return copy


def _freeze(value: Any) -> Any:
    """A hashable form equal for values JSON Schema calls equal (``1 == 1.0``, ``true != 1``)."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, dict):
        return ("object", frozenset((key, _freeze(item)) for key, item in value.items()))
    if isinstance(value, list):
        return ("array", tuple(_freeze(item) for item in value))
    return value


def _unique_items(
    validator: Any, unique: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    # python-jsonschema compares unhashable items pairwise: quadratic on a long array of
    # objects, and uninterruptible. Equal values have equal canonical forms, so a set decides
    # it in linear time; the message is python-jsonschema's.
    if unique and validator.is_type(instance, "array"):
        frozen = [_freeze(item) for item in instance]
        if len(set(frozen)) != len(frozen):
            yield ValidationError(f"{instance!r} has non-unique elements")


def _multiple_of(
    validator: Any, divisor: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    # python-jsonschema divides first (``instance / dB``) and falls back to exact fractions
    # only when the quotient, not the division, overflows: an integer past a float's range
    # (10**400 against ``multipleOf: 0.5``) raises OverflowError, which would make the schema
    # look unusable for what is a property of the value. Exact arithmetic decides it instead;
    # the message is python-jsonschema's, with the number cut to a readable length.
    if (
        isinstance(divisor, float)
        and isinstance(instance, int)
        and not isinstance(instance, bool)
        and abs(instance) >= _FLOAT_INTEGERS
    ):
        if (Fraction(instance) / Fraction(divisor)).denominator != 1:
            yield ValidationError(f"{_digits(instance)} is not a multiple of {divisor}")
        return
    yield from _ORIGINAL_MULTIPLE_OF(validator, divisor, instance, schema)


def _digits(number: int) -> str:
    """A huge integer in a message short enough to read whole: ``1000…0000 (401 digits)``."""
    text = str(number)
    return f"{text[:12]}…{text[-4:]} ({len(text.lstrip('-'))} digits)"


_FLOAT_INTEGERS: Final = 2**1023
# Integers from here on may not convert to a float (the largest float is just under 2**1024).
_ORIGINAL_MULTIPLE_OF: Final = validators.Draft202012Validator.VALIDATORS["multipleOf"]


def _checked(function: _Keyword, budget: CallBudget) -> _Keyword:
    def keyword(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        budget.check()  # raises once the call's time is up
        return function(validator, value, instance, schema)

    return keyword


_DESCENDING: Final = frozenset({"descend", "evolve", "_validate_reference", "is_valid"})
"""Names through which a keyword function evaluates subschemas."""


def budgeted(validator_class: Any, budget: CallBudget) -> Any:
    """``validator_class`` extended so that evaluating a call stays within ``budget``."""
    known = budget.validator_classes.get(validator_class)
    if known is not None:
        return known
    stand_in = _BudgetedRe(budget)
    done: dict[types.CodeType, Any] = {}
    keywords: dict[str, _Keyword] = {}
    for name, function in validator_class.VALIDATORS.items():
        if name == "uniqueItems":
            function = _unique_items
        elif name == "multipleOf":
            function = _multiple_of
        elif isinstance(function, types.FunctionType) and _uses_re(function, set()):
            function = _rebound(function, stand_in, done)
        # Only where evaluation goes deeper: the other keywords take time linear in the value
        # (uniqueItems now too), and a check costs as much as a small keyword.
        descends = isinstance(function, types.FunctionType) and bool(
            _DESCENDING.intersection(function.__code__.co_names)
        )
        keywords[name] = _checked(function, budget) if descends else function
    extended = validators.extend(validator_class, keywords)
    budget.validator_classes[validator_class] = extended
    return extended
