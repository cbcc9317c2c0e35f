"""Several arena records of one run continued from later seeds, pooled:
``python docs/strength/pooled.py RECORD.json RECORD.json [...]`` prints the win rate and the
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

from dominolab.lab.stats import mean_interval, ratio_interval

_SAME = ("a", "b", "game", "options")


def pooled(records: list[dict[str, object]]) -> str:
    """The pooled figures, one line; ValueError naming what does not pool."""
    rows: dict[int, list[float]] = {}
    for i, record in enumerate(records):
        for key in _SAME:
            if record.get(key) != records[0].get(key):
                raise ValueError(f"record {i + 1} differs in {key}: {record.get(key)!r}, not "
                                 f"{records[0].get(key)!r}")
        seed, pairs = record.get("seed"), record.get("by_pair")
        if not isinstance(seed, int) or not isinstance(pairs, list):
            raise ValueError(f"record {i + 1} is not an arena record with its pairs "
                             "(dominolab arena --json)")
        for row in pairs:
            if not (isinstance(row, list) and len(row) == 4 and all(
                    isinstance(v, int | float) and not isinstance(v, bool) for v in row)):
                raise ValueError(f"record {i + 1} has a malformed pair: {row!r}")
            pair, score, margin, hands = int(row[0]), *map(float, row[1:])
            if seed + pair in rows:
                raise ValueError(f"match seed {seed + pair} is in two records")
            rows[seed + pair] = [score, margin, hands]
    ordered = [rows[k] for k in sorted(rows)]
    scores = [score / 2 for score, _, _ in ordered]
    rate = sum(scores) / len(scores)
    rate_ci = mean_interval(scores, clip=(0.0, 1.0))
    margin, margin_ci = ratio_interval([m for _, m, _ in ordered], [h for _, _, h in ordered])
    assert rate_ci is not None and margin_ci is not None
    return (f"{records[0]['a']} against {records[0]['b']} in {records[0]['game']}, "
            f"{len(ordered)} pairs: wins {100 * rate:.1f}% [{100 * rate_ci[0]:.1f}%, "
            f"{100 * rate_ci[1]:.1f}%], margin a hand {margin:+.2f} [{margin_ci[0]:+.2f}, "
            f"{margin_ci[1]:+.2f}]")


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        print(pooled([json.loads(Path(name).read_text(encoding="utf-8")) for name in argv]))
    except (OSError, ValueError) as error:
        print(f"pooled.py: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
