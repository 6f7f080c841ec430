"""A JSON-lines program for tests/agents/test_act_together.py: at each view it creates the file
``argv[1]`` and then waits (up to 20 s) for ``argv[2]`` (the other program's file) before
answering ``{"orders": []}``; mode ``exit`` (argv[3]) exits at its first view instead, ``mute``
never answers. Two of them answer only when asked at the same time."""

import os
import sys
import time

mine, theirs = sys.argv[1], sys.argv[2]
mode = sys.argv[3] if len(sys.argv) > 3 else ""
for line in sys.stdin:
    if mode == "exit":
        sys.exit(3)
    if mode == "mute":
        continue
    with open(mine, "a") as f:
        f.write("x")
    end = time.monotonic() + 20
    while not os.path.exists(theirs) and time.monotonic() < end:
        time.sleep(0.01)
    sys.stdout.write('{"orders": []}\n')
    sys.stdout.flush()
