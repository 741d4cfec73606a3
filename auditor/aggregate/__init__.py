"""Aggregation: the mergeable tally of outcomes, groups and their hints, redaction, baselines,
the gate, and the worker processes that count parts of the logs apart."""
