"""Tests of the lint renderers (auditor/report/lint/)."""
