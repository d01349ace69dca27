import sys

from app import config

print("starting")
print("port", config.port("settings.json"))
sys.exit(0)
