"""Tests of auditor.aggregate: groups, the gate, loosenings, evidence, repeats."""
