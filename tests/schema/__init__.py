"""Tests of auditor.schema: normalization, lint, diffs, edits, the lenient model, profiles."""
