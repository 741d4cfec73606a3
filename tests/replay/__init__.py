"""Tests of auditor.replay: one call against one schema, causes, coverage, counterexamples."""
