"""The rules page: English from docs/rules.md (shipped as ``rules/rules.en.md``), Polish
from the author's original texts (``rules/*.pl.txt``)."""

from __future__ import annotations

import html
from functools import cache
from pathlib import Path
from typing import Final

from markdown_it import MarkdownIt

RULES: Final = Path(__file__).parent / "rules"


@cache
def rules_html(lang: str) -> dict[str, str]:
    """The rules page: English from docs/rules.md, Polish from the original texts."""
    if lang == "en":
        text = (RULES / "rules.en.md").read_text(encoding="utf-8")
        text = "\n".join(line for line in text.splitlines() if not line.startswith("<!--"))
        md = MarkdownIt("commonmark", {"html": False}).enable("table")
        return {"lang": "en", "title": "Rules", "html": md.render(text)}
    parts = []
    for name, title in (("luzak.pl.txt", "Luzak"), ("widelec.pl.txt", "Widelec (Kwartety)")):
        parts.append(f"<h2>{html.escape(title)}</h2>")
        parts.append(_plain_text_html((RULES / name).read_text(encoding="utf-8")))
    return {"lang": "pl", "title": "Zasady gry",
            "html": "<p><em>Oryginalne zasady autora, Andrzeja Lewickiego.</em></p>"
                    + "".join(parts)}


def _plain_text_html(text: str) -> str:
    """The originals are plain text: lines starting with "- " are list items."""
    out: list[str] = []
    in_list = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("- "):
            if not in_list:
                out.append("<ul>")
                in_list = True
            out.append(f"<li>{html.escape(line[2:])}</li>")
            continue
        if in_list:
            out.append("</ul>")
            in_list = False
        head, colon, rest = line.partition(":")
        if colon and 0 < len(head) <= 24 and not head[0].isdigit():
            out.append(f"<p><strong>{html.escape(head)}:</strong>{html.escape(rest)}</p>")
        else:
            out.append(f"<p>{html.escape(line)}</p>")
    if in_list:
        out.append("</ul>")
    return "\n".join(out)
