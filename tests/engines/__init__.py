"""Tests of auditor.engines: plans and the engines that run them (inline, local, Spark, Ray)."""
