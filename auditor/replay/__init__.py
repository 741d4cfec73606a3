"""Replay: one call against a tool's old and new schema -> two verdicts -> an outcome, with the
causes of new errors and the rewrites the call reached. Pure: no I/O."""
