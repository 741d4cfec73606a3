"""Tests of auditor.cli: options, the config file, commands, the GitHub Action."""
