"""A BotWars.io text-protocol test bot: ``python io_faulty.py MODE``. Every robot moves east
and the user data counts turns, except on turn 2 where it misbehaves as MODE says."""
import sys
import time

mode = sys.argv[1]
line = sys.stdin.readline().rstrip("\n")
head, state, user = line.split("#", 2)
turn = int(head.split(",")[0])
mine = [e.split("-")[1] for e in state.split(",") if e.startswith("F-")]
good = ",".join(f"{sq}-M-E" for sq in mine) + "#n" + str(len(user))
out = sys.stdout.buffer
if turn == 2:
    if mode == "exit":
        sys.stderr.write("boom: giving up on turn 2\n")
        sys.exit(4)
    if mode == "memory":
        hog = bytearray(3 * 1024 * 1024 * 1024)
    if mode == "hang":
        time.sleep(60)
    if mode == "badutf8":
        out.write(b"\xff\xfe#x\n")
        sys.exit(0)
    if mode == "garbage":
        out.write(b"5:5-M-Q#x\n")
        sys.exit(0)
    if mode == "long":
        out.write(b"5:5-D," * 5000 + b"\n")
        sys.exit(0)
    if mode == "nolf":
        out.write(good.encode())
        sys.exit(0)
out.write(good.encode() + b"\r\nignored second line\n")
