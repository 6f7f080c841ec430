"""A JSON-lines bot that answers every view correctly but then prints a second line on stdout
(debugging output that belongs on stderr): ``botwars bot check`` must name it."""
import json
import sys

for line in sys.stdin:
    print(json.dumps({"orders": []}), flush=True)
    print("debug: thinking about turn", json.loads(line).get("turn"), flush=True)
