"""``dominolab report FILE [FILE ...] [--html OUT]``: the figures of simulation result files.

Prints a summary of each file (its header, then every figure with its 95% interval); given
two or more files, side by side with each one's difference from the first. ``--html OUT``
also writes a self-contained HTML report with plots (needs matplotlib). A malformed file
gives a message naming the file and the line, and exit status 2.
"""

from __future__ import annotations

import argparse
import sys

from dominolab.lab import MatplotlibMissing, SimFileError, render_html, summary_text
from dominolab.lab.report import summarise_files

EXIT_USAGE = 2


def run_report(args: argparse.Namespace) -> int:
    try:
        summaries = summarise_files(args.files)
    except SimFileError as exc:
        print(f"dominolab report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for s in summaries:
        if not s.matches:
            print(f"dominolab report: {s.sim.path}: no whole match in the file",
                  file=sys.stderr)
            return EXIT_USAGE
    print(summary_text(summaries))
    if args.html:
        try:
            page = render_html(summaries)
        except MatplotlibMissing as exc:
            print(f"dominolab report: {exc}", file=sys.stderr)
            return EXIT_USAGE
        with open(args.html, "w", encoding="utf-8") as fh:
            fh.write(page)
        print(f"\nHTML report written to {args.html}")
    return 0
