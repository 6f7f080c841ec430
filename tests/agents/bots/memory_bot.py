class Bot:
    def act(self, view):
        if view["turn"] == 2:
            self.hog = bytearray(3 * 1024 * 1024 * 1024)
        return {"orders": []}
