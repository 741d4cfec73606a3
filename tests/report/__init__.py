"""Tests of auditor.report: every renderer and the report's data."""
