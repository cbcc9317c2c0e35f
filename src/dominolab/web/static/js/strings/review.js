// The texts of the review of a seat's play (review.js), English and Polish (merged into
// i18n.js's dictionaries; a key may be defined once only). One "key": "text" per line.

export const en = {
  "review.title": "Review of your match",
  "review.handTitle": "Review of hand {n}",
  "review.loading": "The expert is reviewing your moves…",
  "review.error": "The review could not be worked out: {e}",
  "review.none": (p) => `None of your ${p.n} choice${p.n === 1 ? "" : "s"} lost value against the expert's. Well played.`,
  "review.intro": (p) => `Your moves that cost the most (of ${p.n} choice${p.n === 1 ? "" : "s"}; the expert's view):`,
  "review.where": "Hand {h}, tile {n}:",
  "review.played": "you played {move}, win chance {win};",
  "review.cost": "cost {loss} win chance ({sure})",
  "review.costPoints": ", {p} points",
  "review.morePoints": " (though {p} points more)",
  "review.notSure": "{s}, not sure",
  "review.better": "Better: {move}, win chance {win}",
  "review.betterTile": "the better move",
  "review.table": "The table then, the better move lit",
  "review.showInReplay": "Show in the replay",
  "review.curve": "Your win chance over the match, after each of your choices",
  "review.curveLabel": "Your win chance over the match: {first} after your first choice, {last} after your last ({n} choices)",
  "review.rated": "In a rated match the review comes once the match is over.",
  "review.lobby": "Against a player from the lobby the review comes once the match is over.",
  "review.titleOf": "Review of {name}'s match",
  "review.loadingOf": "The expert is reviewing {name}'s moves…",
  "review.noneOf": (p) => `None of ${p.name}'s ${p.n} choice${p.n === 1 ? "" : "s"} lost value against the expert's.`,
  "review.introOf": (p) => `${p.name}'s moves that cost the most (of ${p.n} choice${p.n === 1 ? "" : "s"}; the expert's view):`,
  "review.playedOf": "played {move}, win chance {win};",
  "review.curveOf": "{name}'s win chance over the match, after each of their choices",
  "review.curveLabelOf": "{name}'s win chance over the match: {first} after the first choice, {last} after the last ({n} choices)",
  "review.whose": "Whose play to review",

};

function wyborow(n) {
  return n === 1 ? "1 wyboru" : `${n} wyborów`;
}

export const pl = {
  "review.title": "Przegląd twojej rozgrywki",
  "review.handTitle": "Przegląd partii {n}",
  "review.loading": "Ekspert przegląda twoje ruchy…",
  "review.error": "Nie udało się przygotować przeglądu: {e}",
  "review.none": (p) => `Żaden z twoich ruchów (${p.n}) nie był gorszy od ruchu eksperta. Dobra gra.`,
  "review.intro": (p) => `Twoje najdroższe ruchy (z ${wyborow(p.n)}; w ocenie eksperta):`,
  "review.where": "Partia {h}, kamień {n}:",
  "review.played": "twój ruch {move}, szansa wygranej {win};",
  "review.cost": "kosztował {loss} szansy wygranej ({sure})",
  "review.costPoints": ", {p} pkt",
  "review.morePoints": " (choć dał {p} pkt więcej)",
  "review.notSure": "{s}, niepewne",
  "review.better": "Lepiej: {move}, szansa wygranej {win}",
  "review.betterTile": "lepszy ruch",
  "review.table": "Stół w tamtej chwili, lepszy ruch wyróżniony",
  "review.showInReplay": "Pokaż w powtórce",
  "review.curve": "Twoja szansa wygranej w trakcie rozgrywki, po każdym twoim wyborze",
  "review.curveLabel": "Twoja szansa wygranej w trakcie rozgrywki: {first} po pierwszym wyborze, {last} po ostatnim (wyborów: {n})",
  "review.rated": "W rozgrywce rankingowej przegląd pojawi się po jej końcu.",
  "review.lobby": "W rozgrywce z graczem z lobby przegląd pojawi się po jej końcu.",
  "review.titleOf": "Przegląd rozgrywki: {name}",
  "review.loadingOf": "Ekspert przegląda ruchy: {name}…",
  "review.noneOf": (p) => `${p.name}: żaden z ruchów (${p.n}) nie był gorszy od ruchu eksperta.`,
  "review.introOf": (p) => `${p.name}: najdroższe ruchy (z ${wyborow(p.n)}; w ocenie eksperta):`,
  "review.playedOf": "ruch {move}, szansa wygranej {win};",
  "review.curveOf": "{name}: szansa wygranej w trakcie rozgrywki, po każdym wyborze",
  "review.curveLabelOf": "{name}: szansa wygranej w trakcie rozgrywki: {first} po pierwszym wyborze, {last} po ostatnim (wyborów: {n})",
  "review.whose": "Czyją grę przejrzeć",

};
