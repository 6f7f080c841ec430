"""DADOED: Do Androids Dream of Electric Deathmatches? (shared/rules/dadoed.md)."""
