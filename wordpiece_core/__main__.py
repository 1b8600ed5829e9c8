"""``python -m wordpiece_core``: see cli.py."""

import os
import sys

from .cli import main

code = main()
# A large training leaves millions of objects; freeing them one by one at exit
# takes a noticeable part of a second and serves no purpose. Flush and leave.
try:
    sys.stdout.flush()
    sys.stderr.flush()
except (OSError, ValueError):
    sys.exit(code)
os._exit(code)
