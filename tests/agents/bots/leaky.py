"""A Python bot that tries to carry state from one match to the next (module global, a file in
its working folder): it reports what it found in its user data (arena P7)."""
import os

SEEN = []


class Bot:
    def act(self, view):
        SEEN.append(view["turn"])
        found = os.path.exists("note.txt")
        with open("note.txt", "w") as f:
            f.write("x")
        return {"orders": [], "user_data": f"calls={len(SEEN)} file={int(found)} pid={os.getpid()}"}
