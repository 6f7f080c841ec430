"""A JSON-lines bot with every protocol fault `botwars bot check` names (tests/cli/test_bot_check.py):
turn 1 a late reply, turn 2 a line that is not JSON, turn 3 an order for a square without its
robot (arena P8 no_robot), a crash on the player-2 view at turn 4, and no exit at the end."""
import json
import signal
import sys
import time

for line in sys.stdin:
    view = json.loads(line)
    turn = view["turn"]
    if turn == 1:
        time.sleep(2)
    if turn == 2:
        print("this is not json", flush=True)
        continue
    if turn == 4 and view["player"] == 2:
        raise KeyError("player 2 view")
    orders = [{"x": 1, "y": 1, "action": "D"}] if turn == 3 else []
    print(json.dumps({"orders": orders}), flush=True)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
time.sleep(30)  # never exits by itself at the end
