"""Tests of benchmarks/: each script runs on a small workload and prints its figures."""
