"""Tap targets on a phone: at 390 px, every link, button, select and text field a person can
see on each page is at least 44 px tall and 44 px wide (a checkbox counts with its label),
in English and in Polish. A link inside a sentence is exempt, as WCAG 2.5.8 exempts it: it
is read as part of the text around it.

The pages are those of tests/test_web_a11y.py (its server, its people and its games)."""

from __future__ import annotations

from typing import cast

import pytest
from playwright.sync_api import Page

from browser import Ui, new_game
from test_web_a11y import (
    ADDRESSED,
    LANGS,
    PAGES,
    WIDTHS,
    Site,
    axe_ui,
    open_site,
    show,
    show_addressed,
    site,
)
from test_web_e2e_ratings import rated

__all__ = ["axe_ui", "rated", "site"]  # the fixtures, used here by name

pytestmark = pytest.mark.timeout(180)

#: the least size of a tap target, in CSS px
LEAST = 44
#: [what, width, height] of each visible target smaller than LEAST either way; a link whose
#: block holds other text (a link in a sentence) and a hidden or zero-sized box are left out
JS_SMALL = """least => {
  const seen = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0
    && getComputedStyle(e).visibility !== 'hidden'; };
  const inSentence = a => { const block = a.closest('p, li, td, dd, figcaption');
    return !!block && block.textContent.trim().length > a.textContent.trim().length; };
  const out = [];
  const targets = document.querySelectorAll(
    'a[href], button, select, summary, input:not([type=hidden]), [role=button], [role=tab]');
  for (const e of targets) {
    let box = e;
    if (e.matches('input[type=checkbox], input[type=radio]')) box = e.closest('label') ||
      (e.id && document.querySelector(`label[for="${e.id}"]`)) || e;
    if (!seen(box) || (e.matches('a') && inSentence(e))) continue;
    if (e.closest('.skip-link') && document.activeElement !== e) continue;
    const r = box.getBoundingClientRect();
    if (r.width < least - 0.5 || r.height < least - 0.5) {
      const what = (e.getAttribute('data-testid') || e.getAttribute('aria-label') ||
        e.textContent.trim()).slice(0, 40);
      const size = `${Math.round(r.width)} x ${Math.round(r.height)}`;
      out.push(`${e.tagName.toLowerCase()} "${what}": ${size}`);
    }
  }
  return out;
}"""


def small_targets(page: Page) -> list[str]:
    """The visible targets on ``page`` smaller than LEAST px either way, one line each."""
    return cast(list[str], page.evaluate(JS_SMALL, LEAST))


@pytest.mark.parametrize("lang", LANGS)
def test_every_target_on_a_phone_is_44_px(axe_ui: Ui, site: Site, lang: str) -> None:
    """Each page in turn at 390 px: the targets too small to tap, listed for all at once."""
    failures: list[str] = []
    with axe_ui.guard():
        page = open_site(axe_ui, site, lang, WIDTHS["phone"])
        for name in PAGES:
            show(page, site, name, lang)
            failures.extend(f"{name}: {line}" for line in small_targets(page))
        for name, path, ready in ADDRESSED:
            show_addressed(page, site, path, ready, lang)
            failures.extend(f"{name}: {line}" for line in small_targets(page))
        new_game(page, "luzak", opponent="friend", first="me")
        failures.extend(f"friend: {line}" for line in small_targets(page))
    assert not failures, f"{lang}: targets under {LEAST} px on a phone:\n" + "\n".join(failures)


def test_the_measure_finds_a_small_target(axe_ui: Ui, site: Site) -> None:
    """The check itself works: a 20 px button added to the start page is reported."""
    with axe_ui.guard():
        page = open_site(axe_ui, site, "en", WIDTHS["phone"])
        show(page, site, "start", "en")
        page.evaluate("() => document.querySelector('main').append(Object.assign("
                      "document.createElement('button'), {textContent: 'x', "
                      "style: 'width: 20px; height: 20px; padding: 0'}))")
        found = small_targets(page)
    assert [line for line in found if line.startswith('button "x": 20 x 20')], found
