"""``--calls-from``: which calls of a request/response history log are counted, by name
apart from the readers (``--help`` lists them without importing them)."""

from __future__ import annotations

from enum import Enum


class CallsFrom(str, Enum):
    """Where the calls of OpenAI and Anthropic request/response logs are taken from."""

    ALL = "all"
    """Requests' histories and responses, a call repeated in later histories counted once
    (by its id): the logs are read in one pass."""
    RESPONSES = "responses"
    """Only the calls the model produced (the response side): no call repeats, so such
    logs are cut in parts like plain JSON Lines. Replies in later requests are not paired
    with their calls in this mode: a part cannot see the next one."""
