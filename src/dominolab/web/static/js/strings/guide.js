// The guide texts, English and Polish (merged into i18n.js's dictionaries; a key may be
// defined once only). Polish game words as in docs/rules.md section 7. The pages' own texts
// come from the server (web/content/guide/GAME.LANG.md); these are the words around them.

export const en = {
  "guide.title": "Rules",
  "guide.lead": "Three domino games for two players by Andrzej Lewicki. Each has a short page on how to play it, with pictures; the exact rules are one link away.",
  "guide.read": "How to play",
  "guide.learn": "Tutorial",
  "guide.exact": "The exact rules",
  "guide.exactIndex": "Every detail, every rule option and the worked examples:",
  "guide.exactNote": "This page tells you how to play. Every detail is one link away:",
  "guide.all": "All games",
  "guide.back": "← How to play: the player's guide",
  "guide.pageTitle": "{title} — how to play",
  "guide.learnMore": "Learn it step by step: the tutorial",
  "guide.loading": "Loading…",
  "guide.failed": "Could not load this page.",
  "guide.noGame": "There is no such game here. The games are:",
  "guide.contents": "On this page",
};

export const pl = {
  "guide.title": "Zasady gry",
  "guide.lead": "Trzy gry w domino dla dwóch graczy wymyślone przez Andrzeja Lewickiego. Każda ma krótką, ilustrowaną stronę o tym, jak grać; oryginalne zasady autora są o jedno kliknięcie dalej.",
  "guide.read": "Jak grać",
  "guide.learn": "Nauka gry",
  "guide.exact": "Oryginalne zasady autora",
  "guide.exactIndex": "Pełny tekst zasad, tak jak opisał je autor:",
  "guide.exactNote": "Tu jest wszystko, czego trzeba do gry. Pełne szczegóły są o jedno kliknięcie dalej:",
  "guide.all": "Wszystkie gry",
  "guide.back": "← Jak grać: zasady dla graczy",
  "guide.pageTitle": "{title} — jak grać",
  "guide.learnMore": "Naucz się grać krok po kroku: nauka gry",
  "guide.loading": "Wczytywanie…",
  "guide.failed": "Nie udało się wczytać tej strony.",
  "guide.noGame": "Nie ma tu takiej gry. Do wyboru są:",
  "guide.contents": "Na tej stronie",
};
