// The words of the ratings: the leaderboard, a player's page and the rated-match choice on
// the start page, English and Polish (merged into i18n.js's dictionaries; a key may be
// defined once only). Polish: a match is "rozgrywka", a hand "partia" (docs/rules.md, 7).

export const en = {
  "nav.leaderboard": "Leaderboard",

  "board.title": "Leaderboard",
  "board.lead": "Glicko-2 ratings from rated matches, one list per game. The computer levels have fixed ratings, measured by playing them against each other; a new player starts at 1500, the easy level's rating.",
  "board.tabs": "Games",
  "board.rank": "#",
  "board.player": "Player",
  "board.rating": "Rating",
  "board.rd": "Deviation",
  "board.games": "Matches",
  "board.computer": "Computer — {level}",
  "board.computerNote": "fixed",
  "board.you": "you",
  "board.provisional": "provisional",
  "board.provisionalNote": "? — provisional: the deviation is above {rd}, so a few more rated matches are needed before the rating settles. Provisional players are listed after the others.",
  "board.empty": "Nobody has played a rated match of {title} yet.",
  "board.loading": "Loading the leaderboard…",
  "board.failed": "Could not load the leaderboard.",

  "player.loading": "Loading the player…",
  "player.failed": "Could not load this player.",
  "player.since": "Playing since {date}",
  "player.you": "This is you.",
  "player.ratings": "Ratings",
  "player.noRating": "no rated match yet",
  "player.ratingGames": (p) => `${p.n} rated ${p.n === 1 ? "match" : "matches"}`,
  "player.matches": "Finished matches",
  "player.noMatches": "No finished matches yet.",
  "player.date": "Date",
  "player.game": "Game",
  "player.opponent": "Opponent",
  "player.result": "Result",
  "player.points": "Points",
  "player.rated": "Rating",
  "player.replay": "Replay",
  "player.won": "won",
  "player.lost": "lost",
  "player.drawn": "drawn",
  "player.onTime": "on time",
  "player.casual": "casual",
  "player.ratedNoChange": "rated",
  "player.nobody": "—",

  "home.rated": "Rated match: it counts for your rating (the default rules only)",
  "home.ratedClock": "A rated match has a clock, as in the lobby: run out of time for a move and you lose the match. The computer's turns do not use your time.",
  "home.myPage": "Your page and ratings",
};

export const pl = {
  "nav.leaderboard": "Ranking",

  "board.title": "Ranking",
  "board.lead": "Rankingi Glicko-2 z rozgrywek rankingowych, osobno dla każdej gry. Poziomy komputera mają stałe rankingi, zmierzone w rozgrywkach między nimi; nowy gracz zaczyna od 1500, jak łatwy komputer.",
  "board.tabs": "Gry",
  "board.rank": "#",
  "board.player": "Gracz",
  "board.rating": "Ranking",
  "board.rd": "± punkty",
  "board.games": "Rozgrywki",
  "board.computer": "Komputer — {level}",
  "board.computerNote": "stały",
  "board.you": "ty",
  "board.provisional": "wstępny",
  "board.provisionalNote": "? — ranking wstępny: niepewność przekracza ±{rd} punktów, więc potrzeba jeszcze kilku rozgrywek rankingowych, zanim ranking się ustali. Gracze z rankingiem wstępnym są na końcu listy.",
  // "w Luzaka", "w Widelca": the game's name as the object of "zagrać w"
  "board.empty": (p) => `Nikt jeszcze nie zagrał rankingowo w ${String(p.title).replace(/^Luzak/, "Luzaka").replace(/^Widelec/, "Widelca")}.`,
  "board.loading": "Wczytywanie rankingu…",
  "board.failed": "Nie udało się wczytać rankingu.",

  "player.loading": "Wczytywanie gracza…",
  "player.failed": "Nie udało się wczytać strony gracza.",
  "player.since": "Gra od {date}",
  "player.you": "To ty.",
  "player.ratings": "Rankingi",
  "player.noRating": "jeszcze bez rozgrywki rankingowej",
  "player.ratingGames": (p) => `${p.n} ${plMatches(p.n)}`,
  "player.matches": "Rozegrane rozgrywki",
  "player.noMatches": "Nie ma jeszcze żadnej rozgrywki.",
  "player.date": "Data",
  "player.game": "Gra",
  "player.opponent": "Przeciwnik",
  "player.result": "Wynik",
  "player.points": "Punkty",
  "player.rated": "Ranking",
  "player.replay": "Powtórka",
  "player.won": "wygrana",
  "player.lost": "przegrana",
  "player.drawn": "remis",
  "player.onTime": "na czas",
  "player.casual": "towarzyska",
  "player.ratedNoChange": "rankingowa",
  "player.nobody": "—",

  "home.rated": "Rozgrywka rankingowa: liczy się do twojego rankingu (tylko na zwykłych zasadach)",
  "home.ratedClock": "Rozgrywka rankingowa ma zegar, jak w lobby: gdy skończy ci się czas na ruch, przegrywasz rozgrywkę. Ruchy komputera nie zabierają twojego czasu.",
  "home.myPage": "Twoja strona i rankingi",
};

/** 1 rozgrywka rankingowa, 2–4 rozgrywki rankingowe, 5+ rozgrywek rankingowych (12–14
 * take the "many" form). */
function plMatches(n) {
  if (n === 1) return "rozgrywka rankingowa";
  const d = n % 10, h = n % 100;
  if (d >= 2 && d <= 4 && !(h >= 12 && h <= 14)) return "rozgrywki rankingowe";
  return "rozgrywek rankingowych";
}
