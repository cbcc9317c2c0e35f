// Every string of the interface, in English and Polish (the Polish game words follow
// docs/rules.md section 7: kamień, dublet, talon, dobierz, pas, luzak, kwartet, suma stołu,
// partia, rozgrywka...). A value is a string with {name} placeholders or a function of the
// parameters (for plurals).

import * as guideStrings from "./strings/guide.js";
import * as learnStrings from "./strings/learn.js";
import * as ratingStrings from "./strings/ratings.js";
import * as lobbyStrings from "./strings/lobby.js";
import * as homeStrings from "./strings/home.js";
import * as notifyStrings from "./strings/notify.js";
import * as deviceStrings from "./strings/devices.js";
import * as reviewStrings from "./strings/review.js";

const LANG_KEY = "dominolab/lang";

/** Polish plural: 1 kamień, 2–4 kamienie, 5+ kamieni (12–14 take the "many" form). */
function plPlural(n, one, few, many) {
  if (n === 1) return one;
  const d = n % 10, h = n % 100;
  if (d >= 2 && d <= 4 && !(h >= 12 && h <= 14)) return few;
  return many;
}

const en = {
  "app.name": "dominolab",
  "app.tagline": "Luzak & Widelec",
  "app.loadFailed": "This page could not be loaded. Check the connection and load it again.",
  "app.reload": "Load again",
  "nav.home": "New game",
  "nav.rules": "Rules",
  "nav.learn": "Learn",
  "nav.puzzles": "Puzzles",
  "nav.lab": "Lab",
  "nav.language": "Language",
  "lang.en": "English",
  "lang.pl": "Polish",

  "home.title": "Start a new match",
  "home.lead": "Two modern domino games by Andrzej Lewicki for two players: Luzak, where the table count must divide by the tile number, and Widelec, where the two ends of the line make quartets.",
  "home.continue": "Your games on this device",
  "home.continueGame": "{title} — game {id}",
  "home.forget": "Forget",
  "home.loadingMeta": "Loading the games…",
  "home.metaFailed": "Could not load the list of games.",
  "home.retry": "Try again",

  "create.rateLimited": "Too many new games from here; try again in {s} s.",
  "create.rateLimitedSoon": "Too many new games from here; try again in a minute.",
  "create.network": "Could not start the game: the server cannot be reached. Check the connection and try again.",
  "create.server": "Could not start the game: the server ran into a problem. Try again in a moment.",
  "create.refused": "Could not start the game: {msg}",
  "create.generic": "Could not start the game ({status}).",

  "link.joining": "Joining the game…",
  "link.checking": "Checking the link…",
  "link.noGame": "The server knows no game for this link. Check that the whole link was copied.",
  "link.usedTitle": "This invitation has already been used",
  "link.usedText": "Someone has already joined this game with this link, and an invitation works only once. If that was you on another device, continue there; otherwise ask your friend to start a new game.",
  "link.invalidTitle": "This invitation is not valid",
  "link.invalidText": "The server did not accept this invitation. Check that the whole link was copied.",
  "link.refusedTitle": "This link's key was not accepted",
  "link.refusedText": "The server did not accept the key in this link for this game.",
  "link.failedTitle": "Could not open the game",
  "link.rateLimited": "Too many attempts from here; try again in {s} s.",
  "link.rateLimitedSoon": "Too many attempts from here; try again in a minute.",
  "link.ownInvite": "This is your invitation link: send it to your friend. You keep your own seat in this game.",
  "link.otherToken": "The link you opened holds a different key for this game than the one this device keeps. You are still playing with this device's key.",
  "link.switch": "Use the link's key instead",
  "link.alreadyJoined": "You have already joined this game with this invitation: you play on in your seat.",

  "form.game": "Game",
  "form.options": "Rule options",
  "form.opponent": "Opponent",
  "form.first": "Who opens the first hand",
  "form.first.me": "Me",
  "form.first.opponent": "My opponent",
  "form.first.lot": "By lot",
  "form.start": "Start the match",
  "form.starting": "Starting…",
  "form.default": "default: {v}",
  "form.yes": "yes",
  "form.no": "no",

  "game.luzak": "Luzak",
  "game.luzak-line": "Luzak without spinners",
  "game.widelec": "Widelec (Kwartety)",
  "blurb.luzak": "12 tiles each, no drawing. Every double is a spinner. After tile N, a table count divisible by N scores. No matching tile? Lay a luzak — your opponent gets its pips.",
  "blurb.luzak-line": "The original's variant: one line with two ends, no spinners. A luzak lies across an end, and the count it makes goes to the opponent.",
  "blurb.widelec": "7 tiles each and a boneyard. Draw when you cannot play. When the two end tiles of the line make a quartet of consecutive digits (like 6012), you score its pips.",

  "level.easy": "Computer — easy",
  "level.medium": "Computer — medium",
  "level.hard": "Computer — hard",
  "level.friend": "A friend (I'll send a link)",

  "opt.target": "Points that end the match",
  "opt.short_ends_any_time": "A spinner's short ends are open at any time (off: only once both long sides are taken)",
  "opt.luzak_scores_count": "The player of a luzak still scores the table count by the N rule",
  "opt.even_hands": "The match always has an even number of hands",
  "opt.edge_double": "A double may stand at a quartet's edge (6601)",
  "opt.must_play_drawn": "A playable drawn tile must be played (off: it may be kept)",
  "opt.win_at_once": "Reaching the target wins at once (off: the hand is played out)",

  "who.me": "You",
  "who.computer": "Computer",
  "who.computerLevel": "Computer ({level})",
  "who.friend": "Friend",
  "who.opponent": "Opponent",
  "who.seat": "Seat {seat}",
  "who.hidden": "hidden name",
  "who.deleted": "a deleted player",
  "levelShort.easy": "easy",
  "levelShort.medium": "medium",
  "levelShort.hard": "hard",

  "turn.me": "Your turn",
  "turn.computer": "The computer is thinking…",
  "turn.friend": "Your friend's turn",
  "turn.none": "Hand over",
  "turn.matchOver": "Match over",
  "turn.pickTile": "Pick a tile, then one of the highlighted places on the table — or drag the tile there.",
  "turn.pickSpot": "Now pick one of the highlighted places on the table.",
  "turn.drawOnly": "No tile fits: draw from the boneyard.",
  "turn.passOnly": "No tile fits and the boneyard is empty: pass.",
  "turn.keepOr": "Play the drawn tile or keep it.",
  "turn.luzak": "No tile matches: lay any tile as a luzak.",
  "turn.lead": "You open: lay any tile.",

  "facts.target": "Target",
  "facts.hand": "Hand",
  "facts.opener": "Opener",
  "scores.title": "Score",
  "scores.total": "Total",
  "scores.player": "Player",
  "scores.thisHand": "This hand",
  "scores.target": "Target: {t}",
  "scores.hand": "Hand {n}",
  "scores.opener": "Opened by {name}",
  "scores.count": "Table count",
  "scores.n": "Tiles on the table (N)",
  "scores.boneyard": "Boneyard",
  "scores.oppTiles": "{name}: tiles in hand",
  "scores.oppTilesShort": "Opponent's tiles",
  "scores.lastMove": "Last move",

  "history.title": "Moves of this hand",
  "history.empty": "No moves yet.",

  "hand.title": "Your tiles",
  "hand.empty": "No tiles in your hand.",
  "hand.keyHint": "Keys: 1–9, 0 pick a tile · Tab/arrows a place · Enter plays · Esc drops",

  "btn.draw": "Draw",
  "btn.pass": "Pass",
  "btn.keep": "Keep the tile",
  "btn.hint": "Hint",
  "btn.cancel": "Cancel",
  "btn.close": "Close",
  "btn.copy": "Copy",

  "hint.title": "Best moves",
  "hint.thinking": "Thinking…",
  "hint.win": "{p}% to win",
  "hint.alsoPorts": "(or {ports})",
  "hint.or": "or",
  "hint.margin": "margin {m}",
  "hint.now": "now {a} : {b}",
  "hint.stale": "These hints were for an earlier position.",
  "hint.none": "Nothing to suggest now.",
  "hint.more": "Show all {n} moves",
  "hint.fewer": "Show the best 5",

  "choose.title": "Which half goes outward?",
  "choose.outward": "{v} outward",

  "tile.label": "tile {a}|{b}",
  "tile.luzak": "luzak",
  "tile.last": "last played",
  "tile.playable": "can be played",
  "tile.notPlayable": "cannot be played now",
  "spot.label": "place for {tile}: {moves}",
  "table.label": "The table",
  "table.empty": "The table is empty.",

  "move.draw": "drew a tile",
  "move.drewTile": "drew {tile}",
  "move.pass": "passed",
  "move.keep": "kept the drawn tile",
  "move.lead": "led {tile}",
  "move.play": "played {tile} {where}",
  "move.luzak": "laid luzak {tile} {where}",
  "where.L": "on the left end",
  "where.R": "on the right end",
  "where.short": "on a short end of spinner {tile}",
  "where.long": "on the long side of spinner {tile}",
  "where.half": "on the {v} of {tile}",
  "where.port": "on {port}",
  "move.notation": "In notation: {move}",

  "legend.spinner": "spinner: tiles may go on all four sides",
  "opp.tiles": (p) => `${p.name}: ${p.n === 1 ? "1 tile" : `${p.n} tiles`} in hand`,
  "pile.label": (p) => `Boneyard: ${p.n === 1 ? "1 tile" : `${p.n} tiles`} to draw`,
  "tile.drawn": "just drawn",
  "tile.drawnMark": "new",
  "sound.label": "Sound",
  "sound.on": "Sound is on: click to turn it off",
  "sound.off": "Sound is off: click to turn it on",

  "reason.count.yes": "tile {n}: count {count} divisible by {n} → +{count}",
  "reason.count.no": "tile {n}: count {count} not divisible by {n}",
  "reason.count.zero": "tile {n}: count 0 scores nothing",
  "reason.luzak.pips": "luzak {tile}: {who} +{pips}",
  "reason.luzak.line.yes": "luzak, tile {n}: count {count} divisible by {n} → {who} +{count}",
  "reason.luzak.line.no": "luzak, tile {n}: count {count} not divisible by {n}",
  "reason.quartet": "quartet {quartet} ({ends}) → +{points}",
  "reason.none": "no points",
  "reason.noQuartet": "no quartet",
  "reason.draw": "drew from the boneyard",
  "reason.pass": "passed",
  "reason.keep": "kept the drawn tile",

  "over.title": "Hand {n} is over",
  "over.end.tiles": "All tiles of the hand are on the table.",
  "over.end.domino": "{name}: domino! — the last tile is down.",
  "over.end.block": "Block: nobody can play.",
  "over.end.target": "{name} reached the target.",
  "over.end.targetNoName": "The target was reached during this hand.",
  "over.winner": "{name} won the hand.",
  "over.winnerYou": "You won the hand!",
  "over.noWinner": "No winner in this hand.",
  "over.points": "Points in this hand",
  "over.end.out": "{name} went out — domino!",
  "over.end.outYou": "You went out — domino!",
  "over.end.blockFewer": "Block: nobody can play. {name} has fewer pips left in hand.",
  "over.end.blockFewerYou": "Block: nobody can play. You have fewer pips left in hand.",
  "over.end.blockEven": "Block: nobody can play, with equal pips left in hand: no bonus.",
  "over.bonusYou": "Your bonus — quartets from the tiles left in your opponent's hand: +{b}",
  "over.bonusThem": "Bonus for {name} — quartets from the tiles left in your hand: +{b}",
  "over.bonusSeat": "Bonus for {name} — quartets from the other hand: +{b}",
  "over.moreYou": "You scored more in this hand: {a} to {b}.",
  "over.more": "{name} scored more in this hand: {a} to {b}.",
  "over.samePoints": "Equal points in this hand: {a} each.",
  "over.pipsLeft": "Pips left in hand",
  "over.finalTable": "The final table",
  "over.next": "Next hand",
  "over.totals": "Totals",

  "match.title": "Match over",
  "match.youWon": "You won the match!",
  "match.theyWon": "{name} won the match.",
  "match.draw": "The match is a draw.",
  "match.end.target": "The target was reached.",
  "match.end.at-once": "The target was reached — won at once.",
  "match.end.deals": "All the hands have been played.",
  "match.hands": "Hands played: {n}",
  "match.lastHand": "The last hand",
  "match.replay": "Replay the match",
  "match.download": "Download the record",
  "match.newGame": "New game",
  "match.viewTable": "Look at the table",
  "match.show": "Show the result",

  "invite.title": "Invite your friend",
  "invite.text": "Send this link to your friend. The game starts when they open it.",
  "invite.copied": "The link is copied.",
  "invite.copyFailed": "Select the link and copy it yourself.",
  "invite.waiting": "Waiting for your friend to join…",

  "conn.open": "Connected",
  "conn.connecting": "Connecting…",
  "conn.closed": "Disconnected",
  "conn.lostStatus": "Connection to the server lost — reconnecting…",
  "conn.connectingStatus": "Connecting to the server…",
  "conn.movesWait": "Moves can be made again once the connection is back.",

  "notoken.title": "This game's key is not on this device",
  "notoken.text": "Open the game from the link you were given, or start a new one.",
  "notoken.home": "Go to the start page",
  "gone.title": "No such game",
  "gone.text": "The server does not know this game.",
  "badtoken.text": "The server did not accept this device's key for the game.",

  "err.network": "Cannot reach the server. Check the connection and try again.",
  "err.status": "The server said: {msg} ({status})",
  "err.generic": "Something went wrong ({status}).",

  "rules.loading": "Loading the rules…",
  "rules.failed": "Could not load the rules.",

  "replay.title": "Replay",
  "replay.prev": "Previous",
  "replay.next": "Next",
  "replay.first": "First",
  "replay.last": "Last",
  "replay.slider": "Move",
  "replay.frame": "Hand {h} · move {n}",
  "replay.deal": "Hand {h} · the deal",
  "replay.of": "{i} of {total}",
  "replay.loading": "Loading the replay…",
  "replay.back": "Back to the game",
  "replay.hands": "Hands (all tiles are public now)",
  "replay.keys": "← → step through the match",
  "replay.boneyard": "Boneyard: {b}",

  "plural.tiles": (p) => (p.n === 1 ? "1 tile" : `${p.n} tiles`),
  "plural.points": (p) => (p.n === 1 ? "1 point" : `${p.n} points`),
  "plural.pips": (p) => (p.n === 1 ? "1 pip" : `${p.n} pips`),

  "match.rematch": "Rematch",
  "match.rematchOffered": "Your opponent wants a rematch —",
  "match.rematchPlay": "Play it",

  "watch.count": (p) => `${p.n} watching`,
  "watch.title": "Watching",
  "watch.vs": "{a} vs {b}",
  "watch.toMove": "{name} to move",
  "watch.note": "You are watching: both hands stay face down.",
  "watch.lastHand": "Hand {n} is over",
  "watch.full.title": "This game has as many spectators as it takes",
  "watch.full.text": "Try again in a while.",
  "watch.limited.title": "Too many games are watched from here",
  "watch.limited.text": "Close another game watched from this network, then try again.",
};

const pl = {
  "app.name": "dominolab",
  "app.tagline": "Luzak i Widelec",
  "app.loadFailed": "Nie udało się wczytać tej strony. Sprawdź połączenie i wczytaj ją ponownie.",
  "app.reload": "Wczytaj ponownie",
  "nav.home": "Nowa gra",
  "nav.rules": "Zasady",
  "nav.learn": "Nauka gry",
  "nav.puzzles": "Zadania",
  "nav.lab": "Laboratorium",
  "nav.language": "Język",
  "lang.en": "angielski",
  "lang.pl": "polski",

  "home.title": "Nowa rozgrywka",
  "home.lead": "Dwie nowoczesne gry w domino Andrzeja Lewickiego dla dwojga graczy: Luzak, w którym suma stołu ma się dzielić przez numer kamienia, i Widelec, w którym dwa końce łańcucha tworzą kwartety.",
  "home.continue": "Twoje gry na tym urządzeniu",
  "home.continueGame": "{title} — gra {id}",
  "home.forget": "Zapomnij",
  "home.loadingMeta": "Wczytywanie gier…",
  "home.metaFailed": "Nie udało się wczytać listy gier.",
  "home.retry": "Spróbuj ponownie",

  "create.rateLimited": "Zbyt wiele nowych gier z tego adresu; spróbuj ponownie za {s} s.",
  "create.rateLimitedSoon": "Zbyt wiele nowych gier z tego adresu; spróbuj ponownie za minutę.",
  "create.network": "Nie udało się zacząć gry: brak połączenia z serwerem. Sprawdź połączenie i spróbuj ponownie.",
  "create.server": "Nie udało się zacząć gry: serwer napotkał problem. Spróbuj ponownie za chwilę.",
  "create.refused": "Nie udało się zacząć gry: {msg}",
  "create.generic": "Nie udało się zacząć gry ({status}).",

  "link.joining": "Dołączanie do gry…",
  "link.checking": "Sprawdzanie linku…",
  "link.noGame": "Serwer nie zna gry z tego linku. Sprawdź, czy skopiowano cały link.",
  "link.usedTitle": "To zaproszenie zostało już wykorzystane",
  "link.usedText": "Ktoś już dołączył do tej gry z tego linku, a zaproszenie działa tylko raz. Jeśli to Ty na innym urządzeniu, graj tam; jeśli nie, poproś znajomego o nową grę.",
  "link.invalidTitle": "To zaproszenie jest nieważne",
  "link.invalidText": "Serwer nie przyjął tego zaproszenia. Sprawdź, czy skopiowano cały link.",
  "link.refusedTitle": "Ten link nie otwiera gry",
  "link.refusedText": "Serwer nie przyjął klucza z tego linku do tej gry.",
  "link.failedTitle": "Nie udało się otworzyć gry",
  "link.rateLimited": "Zbyt wiele prób z tego adresu; spróbuj ponownie za {s} s.",
  "link.rateLimitedSoon": "Zbyt wiele prób z tego adresu; spróbuj ponownie za minutę.",
  "link.ownInvite": "To Twój link z zaproszeniem: wyślij go znajomemu. Twoje miejsce w tej grze zostaje Twoje.",
  "link.otherToken": "Ten link ma inny klucz do tej gry niż ten zapisany na tym urządzeniu. Nadal grasz kluczem z tego urządzenia.",
  "link.switch": "Użyj klucza z linku",
  "link.alreadyJoined": "Już jesteś w tej grze: grasz dalej na swoim miejscu.",

  "form.game": "Gra",
  "form.options": "Opcje zasad",
  "form.opponent": "Przeciwnik",
  "form.first": "Kto otwiera pierwszą partię",
  "form.first.me": "Ja",
  "form.first.opponent": "Przeciwnik",
  "form.first.lot": "Losowanie",
  "form.start": "Zacznij rozgrywkę",
  "form.starting": "Zaczynamy…",
  "form.default": "domyślnie: {v}",
  "form.yes": "tak",
  "form.no": "nie",

  "game.luzak": "Luzak",
  "game.luzak-line": "Luzak bez spinnerów",
  "game.widelec": "Widelec (Kwartety)",
  "blurb.luzak": "Po 12 kamieni, bez dobierania. Każdy dublet jest spinnerem. Po kamieniu numer N suma stołu podzielna przez N daje punkty. Nic nie pasuje? Połóż luzaka — przeciwnik dostaje jego oczka.",
  "blurb.luzak-line": "Wariant z oryginału: jeden łańcuch o dwóch końcach, bez spinnerów. Luzak leży w poprzek końcówki, a suma stołu, którą tworzy, idzie do przeciwnika.",
  "blurb.widelec": "Po 7 kamieni i talon. Gdy nie możesz zagrać, dobierasz. Gdy dwa końcowe kamienie łańcucha tworzą kwartet kolejnych cyfr (np. 6012), zdobywasz ich oczka.",

  "level.easy": "Komputer — łatwy",
  "level.medium": "Komputer — średni",
  "level.hard": "Komputer — trudny",
  "level.friend": "Znajomy (wyślę mu link)",

  "opt.target": "Do ilu punktów gramy",
  "opt.short_ends_any_time": "Krótkie boki spinnera są otwarte od początku (wyłączone: dopiero gdy oba długie boki są zajęte)",
  "opt.luzak_scores_count": "Gracz, który kładzie luzaka, nadal zdobywa sumę stołu według reguły N",
  "opt.even_hands": "Rozgrywka ma zawsze parzystą liczbę partii",
  "opt.edge_double": "Dublet może stać na brzegu kwartetu (6601)",
  "opt.must_play_drawn": "Dobrany kamień, który pasuje, trzeba zagrać (wyłączone: można go zatrzymać)",
  "opt.win_at_once": "Kto osiągnie cel, od razu wygrywa (wyłączone: partię gra się do końca)",

  "who.me": "Ty",
  "who.computer": "Komputer",
  "who.computerLevel": "Komputer ({level})",
  "who.friend": "Znajomy",
  "who.opponent": "Przeciwnik",
  "who.seat": "Miejsce {seat}",
  "who.hidden": "ukryta nazwa",
  "who.deleted": "usunięty gracz",
  "levelShort.easy": "łatwy",
  "levelShort.medium": "średni",
  "levelShort.hard": "trudny",

  "turn.me": "Twój ruch",
  "turn.computer": "Komputer myśli…",
  "turn.friend": "Ruch znajomego",
  "turn.none": "Koniec partii",
  "turn.matchOver": "Koniec rozgrywki",
  "turn.pickTile": "Wybierz kamień, potem jedno z podświetlonych miejsc na stole — albo przeciągnij go tam.",
  "turn.pickSpot": "Teraz wybierz jedno z podświetlonych miejsc na stole.",
  "turn.drawOnly": "Żaden kamień nie pasuje: dobierz z talonu.",
  "turn.passOnly": "Żaden kamień nie pasuje, a talon jest pusty: pas.",
  "turn.keepOr": "Zagraj dobrany kamień albo go zatrzymaj.",
  "turn.luzak": "Nic nie pasuje: połóż dowolny kamień jako luzaka.",
  "turn.lead": "Otwierasz: połóż dowolny kamień.",

  "facts.target": "Cel",
  "facts.hand": "Partia",
  "facts.opener": "Otwierający",
  "scores.title": "Wynik",
  "scores.total": "Razem",
  "scores.player": "Gracz",
  "scores.thisHand": "Ta partia",
  "scores.target": "Cel: {t}",
  "scores.hand": "Partia {n}",
  "scores.opener": "Otwiera: {name}",
  "scores.count": "Suma stołu",
  "scores.n": "Kamienie na stole (N)",
  "scores.boneyard": "Talon",
  "scores.oppTiles": "{name}: kamienie w ręce",
  "scores.oppTilesShort": "Kamienie przeciwnika",
  "scores.lastMove": "Ostatni ruch",

  "history.title": "Ruchy w tej partii",
  "history.empty": "Jeszcze nie było ruchu.",

  "hand.title": "Twoje kamienie",
  "hand.empty": "Nie masz kamieni.",
  "hand.keyHint": "Klawisze: 1–9, 0 wybór kamienia · Tab/strzałki miejsce · Enter zagrywa · Esc anuluje",

  "btn.draw": "Dobierz",
  "btn.pass": "Pas",
  "btn.keep": "Zatrzymaj kamień",
  "btn.hint": "Podpowiedź",
  "btn.cancel": "Anuluj",
  "btn.close": "Zamknij",
  "btn.copy": "Kopiuj",

  "hint.title": "Najlepsze ruchy",
  "hint.thinking": "Myślę…",
  "hint.win": "{p}% szans na wygraną",
  "hint.alsoPorts": "(lub {ports})",
  "hint.or": "lub",
  "hint.margin": "przewaga {m}",
  "hint.now": "od razu {a} : {b}",
  "hint.stale": "Te podpowiedzi są już nieaktualne.",
  "hint.none": "Teraz nie ma czego podpowiedzieć.",
  "hint.more": "Pokaż wszystkie ruchy ({n})",
  "hint.fewer": "Pokaż 5 najlepszych",

  "choose.title": "Która połówka ma być na zewnątrz?",
  "choose.outward": "{v} na zewnątrz",

  "tile.label": "kamień {a}|{b}",
  "tile.luzak": "luzak",
  "tile.last": "ostatnio zagrany",
  "tile.playable": "można zagrać",
  "tile.notPlayable": "teraz nie można zagrać",
  "spot.label": "miejsce dla {tile}: {moves}",
  "table.label": "Stół",
  "table.empty": "Stół jest pusty.",

  "move.draw": "dobiera kamień",
  "move.drewTile": "dobiera {tile}",
  "move.pass": "pas",
  "move.keep": "zatrzymuje dobrany kamień",
  "move.lead": "otwiera kamieniem {tile}",
  "move.play": "kładzie {tile} {where}",
  "move.luzak": "kładzie luzaka {tile} {where}",
  "where.L": "na lewą końcówkę",
  "where.R": "na prawą końcówkę",
  "where.short": "na krótszy bok spinnera {tile}",
  "where.long": "na dłuższy bok spinnera {tile}",
  "where.half": "na połówkę {v} kamienia {tile}",
  "where.port": "na {port}",
  "move.notation": "W notacji: {move}",

  "legend.spinner": "spinner: kamienie można dokładać ze wszystkich czterech stron",
  "opp.tiles": (p) => `${p.name}: ${p.n} ${plPlural(p.n, "kamień", "kamienie", "kamieni")} w ręce`,
  "pile.label": (p) => `Talon: ${p.n} ${plPlural(p.n, "kamień", "kamienie", "kamieni")} do dobrania`,
  "tile.drawn": "właśnie dobrany",
  "tile.drawnMark": "nowy",
  "sound.label": "Dźwięk",
  "sound.on": "Dźwięk włączony: kliknij, by wyłączyć",
  "sound.off": "Dźwięk wyłączony: kliknij, by włączyć",

  "reason.count.yes": "kamień {n}: suma stołu {count} dzieli się przez {n} → +{count}",
  "reason.count.no": "kamień {n}: suma stołu {count} nie dzieli się przez {n}",
  "reason.count.zero": "kamień {n}: suma stołu 0 nie daje punktów",
  "reason.luzak.pips": "luzak {tile}: {who} +{pips}",
  "reason.luzak.line.yes": "luzak, kamień {n}: suma stołu {count} dzieli się przez {n} → {who} +{count}",
  "reason.luzak.line.no": "luzak, kamień {n}: suma stołu {count} nie dzieli się przez {n}",
  "reason.quartet": "kwartet {quartet} ({ends}) → +{points}",
  "reason.none": "bez punktów",
  "reason.noQuartet": "bez kwartetu",
  "reason.draw": "dobiera z talonu",
  "reason.pass": "pas",
  "reason.keep": "zatrzymuje dobrany kamień",

  "over.title": "Koniec partii {n}",
  "over.end.tiles": "Wszystkie kamienie leżą już na stole.",
  "over.end.domino": "{name}: domino! — ostatni kamień położony.",
  "over.end.block": "Blokada: nikt nie może zagrać.",
  "over.end.target": "{name}: cel osiągnięty.",
  "over.end.targetNoName": "Cel osiągnięty.",
  "over.winner": "Partię wygrywa: {name}.",
  "over.winnerYou": "Wygrywasz partię!",
  "over.noWinner": "Partia bez zwycięzcy.",
  "over.points": "Punkty w tej partii",
  "over.end.out": "{name} kładzie ostatni kamień — domino!",
  "over.end.outYou": "Kładziesz ostatni kamień — domino!",
  "over.end.blockFewer": "Blokada: nikt nie może zagrać. Mniej oczek w ręce ma: {name}.",
  "over.end.blockFewerYou": "Blokada: nikt nie może zagrać. Masz mniej oczek w ręce.",
  "over.end.blockEven": "Blokada: nikt nie może zagrać. Obaj gracze mają w ręce tyle samo oczek, więc nie ma premii.",
  "over.bonusYou": "Twoja premia — kwartety z kamieni, które zostały przeciwnikowi: +{b}",
  "over.bonusThem": "Premia dla: {name} — kwartety z kamieni, które zostały Tobie: +{b}",
  "over.bonusSeat": "Premia dla: {name} — kwartety z kamieni drugiego gracza: +{b}",
  "over.moreYou": "W tej partii masz więcej punktów: {a}:{b}.",
  "over.more": "Więcej punktów w tej partii: {name}, {a}:{b}.",
  "over.samePoints": "Tyle samo punktów w tej partii: po {a}.",
  "over.pipsLeft": "Oczka w ręce",
  "over.finalTable": "Stół na koniec partii",
  "over.next": "Następna partia",
  "over.totals": "Razem",

  "match.title": "Koniec rozgrywki",
  "match.youWon": "Wygrywasz rozgrywkę!",
  "match.theyWon": "Rozgrywkę wygrywa: {name}.",
  "match.draw": "Rozgrywka kończy się remisem.",
  "match.end.target": "Cel osiągnięty.",
  "match.end.at-once": "Cel osiągnięty — wygrana od razu.",
  "match.end.deals": "Rozegrano wszystkie partie.",
  "match.hands": "Rozegrane partie: {n}",
  "match.lastHand": "Ostatnia partia",
  "match.replay": "Odtwórz rozgrywkę",
  "match.download": "Pobierz zapis",
  "match.newGame": "Nowa gra",
  "match.viewTable": "Pokaż stół",
  "match.show": "Pokaż wynik",

  "invite.title": "Zaproś znajomego",
  "invite.text": "Wyślij ten link znajomemu. Gra zacznie się, gdy go otworzy.",
  "invite.copied": "Link skopiowany.",
  "invite.copyFailed": "Nie udało się skopiować: zaznacz link i skopiuj go ręcznie.",
  "invite.waiting": "Czekamy, aż znajomy dołączy…",

  "conn.open": "Połączono",
  "conn.connecting": "Łączenie…",
  "conn.closed": "Rozłączono",
  "conn.lostStatus": "Brak połączenia z serwerem — łączę ponownie…",
  "conn.connectingStatus": "Łączenie z serwerem…",
  "conn.movesWait": "Ruchy będą możliwe, gdy połączenie wróci.",

  "notoken.title": "Na tym urządzeniu nie ma klucza do tej gry",
  "notoken.text": "Otwórz grę z otrzymanego linku albo zacznij nową.",
  "notoken.home": "Przejdź do strony startowej",
  "gone.title": "Nie ma takiej gry",
  "gone.text": "Serwer nie zna tej gry.",
  "badtoken.text": "Serwer nie przyjął klucza do tej gry zapisanego na tym urządzeniu.",

  "err.network": "Brak połączenia z serwerem. Sprawdź połączenie i spróbuj ponownie.",
  "err.status": "Serwer odpowiada: {msg} ({status})",
  "err.generic": "Coś poszło nie tak ({status}).",

  "rules.loading": "Wczytywanie zasad…",
  "rules.failed": "Nie udało się wczytać zasad.",

  "replay.title": "Powtórka",
  "replay.prev": "Wstecz",
  "replay.next": "Dalej",
  "replay.first": "Początek",
  "replay.last": "Koniec",
  "replay.slider": "Ruch",
  "replay.frame": "Partia {h} · ruch {n}",
  "replay.deal": "Partia {h} · rozdanie",
  "replay.of": "{i} z {total}",
  "replay.loading": "Wczytywanie powtórki…",
  "replay.back": "Wróć do gry",
  "replay.hands": "Ręce graczy (w powtórce widać wszystkie kamienie)",
  "replay.keys": "← → przewijanie rozgrywki",
  "replay.boneyard": "Talon: {b}",

  "plural.tiles": (p) => `${p.n} ${plPlural(p.n, "kamień", "kamienie", "kamieni")}`,
  "plural.points": (p) => `${p.n} ${plPlural(p.n, "punkt", "punkty", "punktów")}`,
  "plural.pips": (p) => `${p.n} ${plPlural(p.n, "oczko", "oczka", "oczek")}`,

  "match.rematch": "Rewanż",
  "match.rematchOffered": "Przeciwnik chce rewanżu —",
  "match.rematchPlay": "Zagraj",

  "watch.count": (p) => `${p.n} ${plPlural(p.n, "osoba ogląda", "osoby oglądają", "osób ogląda")}`,
  "watch.title": "Oglądanie",
  "watch.vs": "{a} – {b}",
  "watch.toMove": "Ruch: {name}",
  "watch.note": "Oglądasz grę: kamienie obu graczy są zakryte.",
  "watch.lastHand": "Koniec partii {n}",
  "watch.full.title": "Tę grę ogląda już maksymalna liczba widzów",
  "watch.full.text": "Spróbuj ponownie za chwilę.",
  "watch.limited.title": "Zbyt wiele oglądanych gier z tego adresu",
  "watch.limited.text": "Zamknij inną grę oglądaną z tej sieci i spróbuj ponownie.",
};

// the player's guide, the tutorial, the ratings and the lobby keep their texts in their own files
for (const part of [guideStrings, learnStrings, ratingStrings, lobbyStrings, homeStrings,
                    notifyStrings, deviceStrings, reviewStrings]) {
  for (const [lang, dict] of [[en, part.en], [pl, part.pl]]) {
    for (const key of Object.keys(dict)) {
      if (key in lang) throw new Error(`i18n: the key ${key} is defined twice`);
    }
    Object.assign(lang, dict);
  }
}

export const DICTIONARIES = { en, pl };

/** Add a part's words read later than the page (a view loaded when first shown): PART is
 * {en, pl}; a key may be defined once only, and a part added twice is added once. */
const added = new Set();
export function addStrings(part) {
  if (added.has(part)) return;
  added.add(part);
  for (const [lang, dict] of [[en, part.en], [pl, part.pl]]) {
    for (const key of Object.keys(dict)) {
      if (key in lang) throw new Error(`i18n: the key ${key} is defined twice`);
    }
    Object.assign(lang, dict);
  }
}
export const LANGS = ["en", "pl"];

let current = initialLang();
const listeners = new Set();

function initialLang() {
  try {
    const saved = localStorage.getItem(LANG_KEY);
    if (saved && LANGS.includes(saved)) return saved;
  } catch (_) { /* storage may be off */ }
  const nav = (navigator.languages && navigator.languages[0]) || navigator.language || "en";
  return nav.toLowerCase().startsWith("pl") ? "pl" : "en";
}

export function getLang() {
  return current;
}

export function setLang(lang) {
  if (!LANGS.includes(lang)) return;
  const changed = lang !== current;
  current = lang;
  try { localStorage.setItem(LANG_KEY, lang); } catch (_) { /* ignore */ }
  document.documentElement.lang = lang;
  if (changed) for (const cb of listeners) cb(lang);
}

export function onLangChange(cb) {
  listeners.add(cb);
  return () => listeners.delete(cb);
}

/** Translate KEY with {name} placeholders filled from VARS. Unknown keys show themselves. */
export function t(key, vars = {}) {
  let value = DICTIONARIES[current][key];
  if (value === undefined) value = en[key];
  if (value === undefined) return key;
  if (typeof value === "function") return value(vars);
  return value.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}

// the names the server shows for a player a moderator hid or forgot (docs/web.md,
// "Moderation and privacy"): reserved words no player can choose, so they are translated
const RESERVED_NAMES = { "hidden name": "who.hidden", "a deleted player": "who.deleted" };

/** A player's NAME as shown: their own, or a moderator's reserved word in this language. */
export function playerName(name) {
  return Object.hasOwn(RESERVED_NAMES, name) ? t(RESERVED_NAMES[name]) : name;
}

/** Does the dictionary have KEY (in English at least)? */
export function has(key) {
  return key in en;
}

/** A number in the current language's style ("0.63" → "63"). */
export function formatNumber(x, digits = 0) {
  return new Intl.NumberFormat(current === "pl" ? "pl-PL" : "en-GB", {
    minimumFractionDigits: digits, maximumFractionDigits: digits,
  }).format(x);
}

document.documentElement.lang = current;
