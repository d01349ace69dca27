import json


def load(path):
    with open(path) as f:
        return json.load(f)


def port(path):
    return int(load(path)["port"])
