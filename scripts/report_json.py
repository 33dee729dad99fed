"""Reading a JSON report for scripts/compare.py, merge_reports.py and plot.py: the file's contents,
or one line through the caller's die() naming the file and what is wrong with it."""

import json


def read_json(path, die):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        die(f"cannot read {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        die(f"{path} is not JSON: {str(e).splitlines()[0]}")
