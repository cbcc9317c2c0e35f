"""Several arena records of one run continued from later seeds, pooled:
``python docs/strength/pooled.py RECORD.json [RECORD.json ...]`` prints the win rate and the
margin a hand over all their pairs, with the 95% intervals the arena computes over pairs
(:func:`~dominolab.lab.stats.mean_interval` of the pairs' scores,
:func:`~dominolab.lab.stats.ratio_interval` of their margins over their hands). The records
must be of the same players, game and rules, and play no match seed twice (pair i of a
record plays its seed + i).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from dominolab.lab.arena import pairs_by_seed
from dominolab.lab.stats import mean_interval, ratio_interval

_SAME = ("a", "b", "game", "options")


def pooled(records: list[dict[str, object]]) -> str:
    """The pooled figures, one line; ValueError naming what does not pool."""
    rows: dict[int, tuple[float, float, float]] = {}
    for i, record in enumerate(records):
        pairs = pairs_by_seed(record, f"record {i + 1}")  # first: is it a record at all?
        for key in _SAME:
            if record.get(key) != records[0].get(key):
                raise ValueError(f"record {i + 1} differs in {key}: {record.get(key)!r}, not "
                                 f"{records[0].get(key)!r}")
        for seed, pair in pairs.items():
            if seed in rows:
                raise ValueError(f"match seed {seed} is in two records")
            rows[seed] = pair
    if len(rows) < 2:
        raise ValueError(f"{len(rows)} pair(s) in all: an interval needs at least 2")
    ordered = [rows[k] for k in sorted(rows)]
    scores = [score / 2 for score, _, _ in ordered]
    rate = sum(scores) / len(scores)
    rate_ci = mean_interval(scores, clip=(0.0, 1.0))
    margin, margin_ci = ratio_interval([m for _, m, _ in ordered], [h for _, _, h in ordered])
    assert rate_ci is not None and margin_ci is not None  # two pairs or more
    return (f"{records[0]['a']} against {records[0]['b']} in {records[0]['game']}, "
            f"{len(ordered)} pairs: wins {100 * rate:.1f}% [{100 * rate_ci[0]:.1f}%, "
            f"{100 * rate_ci[1]:.1f}%], margin a hand {margin:+.2f} [{margin_ci[0]:+.2f}, "
            f"{margin_ci[1]:+.2f}]")


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        print(pooled([json.loads(Path(name).read_text(encoding="utf-8")) for name in argv]))
    except (OSError, ValueError) as error:  # OptionError is a ValueError
        print(f"pooled.py: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
