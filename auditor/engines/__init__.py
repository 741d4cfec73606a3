"""Where an audit runs: this machine (``--jobs`` processes), Spark or Ray, all through the
engine-neutral core (``auditor.engines.core``) so that each gives the same report."""
