"""Submarine Warfare (ruleset id ``submarine``): shared/rules/submarine.md."""
