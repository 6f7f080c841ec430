"""A JSON-lines test bot: ``python jl_faulty.py MODE``. Every robot moves east, except on
turn 2 where it misbehaves as MODE says (garbage, badutf8, exit, hang, double, long)."""
import json
import sys
import time

mode = sys.argv[1]
out = sys.stdout.buffer
for line in sys.stdin:
    view = json.loads(line)
    good = json.dumps({"orders": [{"x": r["x"], "y": r["y"], "action": "M", "dir": "E"}
                                  for r in view["robots"] if r["side"] == "F"]}).encode()
    if view["turn"] == 2:
        if mode == "garbage":
            out.write(b"hello, engine\n")
        elif mode == "badutf8":
            out.write(b'{"orders": [], "user_data": "\xff\xfe"}\n')
        elif mode == "exit":
            sys.stderr.write("boom: giving up on turn 2\n")
            sys.stderr.flush()
            sys.exit(3)
        elif mode == "hang":
            time.sleep(60)
        elif mode == "double":
            out.write(b"not json\n" + good + b"\n")
        elif mode == "long":
            out.write(b"x" * 200000)
        out.flush()
        continue
    out.write(good + b"\n")
    out.flush()
