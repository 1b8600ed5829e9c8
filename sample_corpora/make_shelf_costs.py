"""Regenerate sample_corpora/udhr-shelf-costs.json: what each language of the parallel text (udhr.json.xz) costs
through each tokenizer of the shelf, on the articles the page "Fair to every language?" measures.

The page computes these itself when this file is missing or stale; with it, a cold server does not tokenize 40
languages three times before it can draw. tests/test_fairness.py checks that the file equals a fresh computation.

    python sample_corpora/make_shelf_costs.py
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from wordpiece_ui.fairness_view import COSTS_FILE, fresh_shelf_costs  # noqa: E402


def main() -> None:
    costs = fresh_shelf_costs()
    with open(COSTS_FILE, "w", encoding="utf-8") as f:
        json.dump(costs, f, ensure_ascii=False, indent=0, sort_keys=True)
        f.write("\n")
    print(f"{COSTS_FILE}: {sum(len(v['rows']) for v in costs.values()):,} rows")


if __name__ == "__main__":
    main()
