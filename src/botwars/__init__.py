"""botwars: an engine and platform for turn-based grid robot battle games."""

__version__ = "0.1.0"
