"""Tests of auditor.inputs: reading catalogs and logs in every format."""
