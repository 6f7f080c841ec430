"""The five rule sets. Each lives in its own package and registers itself in
:mod:`botwars.engine.ruleset`'s registry (lazy import by id)."""
