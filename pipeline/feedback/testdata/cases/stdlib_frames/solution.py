import json


def load_config(text):
    data = json.loads(text)
    return data.get("name", "")
