"""Ended studies side by side (``GET /api/studies/compare?ids=A,B``; docs/web.md, "The lab").

A comparison is one report over every variant's file of 2 to :data:`MAX_COMPARED` studies
of one game, each study's variants in order: the first variant of the first study is the
reference, and every other column is its difference from it, paired by deal when the two
share their seed (the lab's :func:`~dominolab.lab.report.shares_deals`, as ``dominolab
report A.jsonl B.jsonl`` pairs them). :func:`parse_ids` checks the request's ``ids``;
:func:`columns` says which study and variant each column of the report is.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from dominolab.web.errors import ApiError

#: the most studies one comparison may name
MAX_COMPARED: Final = 4
#: the longest ``ids`` read (four ids of 16 hex digits and their commas fit well within)
IDS_MAX_CHARS: Final = 200


def parse_ids(text: str | None) -> tuple[str, ...]:
    """The ids of ``ids=A,B[,C,D]``, in order: 2 to :data:`MAX_COMPARED`, none twice; a 400
    saying which rule the text breaks (an id that is no study's is the caller's 404)."""
    if text is None or not text.strip():
        raise ApiError(400, f"ids: name 2 to {MAX_COMPARED} studies to compare, as "
                            f"?ids=ID1,ID2")
    if len(text) > IDS_MAX_CHARS:
        raise ApiError(400, f"ids: {len(text)} characters is too long for at most "
                            f"{MAX_COMPARED} study ids")
    ids = tuple(part.strip() for part in text.split(","))
    if any(not part for part in ids):
        raise ApiError(400, f"ids: {json.dumps(text)} has an empty id; separate the ids "
                            f"with single commas")
    if len(ids) < 2:
        raise ApiError(400, f"ids: a comparison needs 2 to {MAX_COMPARED} studies, not one "
                            f"({ids[0][:20]})")
    if len(ids) > MAX_COMPARED:
        raise ApiError(400, f"ids: {len(ids)} studies are more than the {MAX_COMPARED} a "
                            f"comparison may show")
    twice = sorted({sid for sid in ids if ids.count(sid) > 1})
    if twice:
        raise ApiError(400, f"ids: study {twice[0][:20]} is named twice; name each study "
                            f"once")
    return ids


def columns(ids: Sequence[str], labels: Sequence[Sequence[str]],
            report: dict[str, Any]) -> list[dict[str, Any]]:
    """Each column of a comparison's ``report`` (each study's variants in order): its
    ``study``, ``variant`` (from 0), the variant's ``label`` in its study, and ``paired``:
    whether its difference from the reference (column 0: null) is paired by deal."""
    paired = [None] + [c["paired"] for c in report["comparisons"]]
    out: list[dict[str, Any]] = []
    for sid, names in zip(ids, labels, strict=True):
        for k, label in enumerate(names):
            out.append({"study": sid, "variant": k, "label": label,
                        "paired": paired[len(out)]})
    return out


__all__ = ["IDS_MAX_CHARS", "MAX_COMPARED", "columns", "parse_ids"]
