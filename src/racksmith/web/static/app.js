// racksmith web analyzer: the page talks to the local server's JSON API (/api/...).
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const PREMIUM_CLASS = { "'": "dl", '"': "tl", "^": "ql", "-": "dw", "=": "tw", "~": "qw" };
  const PREMIUM_LABEL = { "'": "2L", '"': "3L", "^": "4L", "-": "2W", "=": "3W", "~": "4W" };
  const PREMIUM_NAME = { "'": "double letter", '"': "triple letter", "^": "quadruple letter",
    "-": "double word", "=": "triple word", "~": "quadruple word" };
  const COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  const MAX_ROWS = 2000; // rows drawn in the moves table (the count says how many there are)

  const state = {
    rulesets: {},
    rs: null, // the ruleset shown (an entry of GET /api/rulesets)
    limits: {}, // what one request may cost (GET /api/rulesets)
    board: [], // rows of letters: "" empty, uppercase tile, lowercase blank
    zeroTurns: 0,
    opcodes: "",
    cursor: null, // {r, c, across}
    compose: null, // a tile being typed on the board: {text, explicit, r, c, back, keep}
    lastPut: null, // the tile typed last, which the next letter may join (Catalan N then Y): {r, c, letter, after}
    cgp: "", // the last CGP the server accepted
    moves: [],
    pinned: null, // {notation, placed, reclaimed} shown on the board until something else is chosen
    picked: null, // the move pinned when it was picked from a list (the Moves, a best play): the Play bar offers it
    hover: null,
    game: null, // the answer of POST /api/gcg
    turn: 1,
    seq: 0,
    scoreCache: new Map(),
    // the game played on the page, each action with its position before (cgp) and after: a move {cgp, move, draw,
    // score, rack, place, phony, unchecked, after}, a challenge {kind: "challenge", cgp, event, score, bonus, move, after}
    // or a time penalty {kind: "time", cgp, player, seat, points, score, after}
    played: [],
    undone: [], // moves taken back, for redo (last undone last)
    playedRuleset: null, // the ruleset of that game
    exported: false, // that game is exported as it stands
    unsaved: false, // the sessionStorage refused it: a reload is warned of
    keeps: false, // the sessionStorage holds this page's game (not one of an earlier page in the tab)
    lastEdit: null, // the field the user changed last: where an error about the position is shown
    lastTileEdit: null, // the board or the rack the user changed last (an error a score cannot make goes there)
    unfinal: false, // the position shown is a game over whose scores do not count a hidden rack yet
    countBase: null, // the CGP of that game over before a hidden rack typed in was counted: typed again, counted from it
    keptCgpError: false, // an error of a CGP that was not loaded (the address's): kept until the user acts
    positionError: "", // where the error of the position on the page is shown ("" when it is read)
    squares: [], // the board's squares (elements), by row and column
    lang: "", // the language of the ruleset's letters ("ru" for Cyrillic): its words are marked with it
    aside: null, // the position a new ruleset (or Clear) replaced, for the Restore button
  };

  // --- talking to the server ---------------------------------------------------------------------
  // ``signal``: an AbortSignal that cancels the request (the connection closes: the server stops computing)
  async function api(path, body, signal) {
    // user errors come back in the body of a 200 answer (X-Errors: body): a browser logs every 4xx
    // answer in its console as a failed request, which a mistyped move is not
    const init = body === undefined ? { headers: { "X-Errors": "body" } } : {
      method: "POST", headers: { "Content-Type": "application/json", "X-Errors": "body" }, body: JSON.stringify(body),
    };
    if (signal) init.signal = signal;
    let res;
    try {
      res = await fetch(path, init);
    } catch (e) {
      if (e.name === "AbortError") throw e;  // cancelled on purpose (Stop): not a server that went away
      const err = new Error("the racksmith server does not answer: is `racksmith serve` still running? " +
        "(start it again, then change anything on the page)");
      err.server = true;
      throw err;
    }
    let data = null;
    try { data = await res.json(); } catch (e) { /* not JSON: reported below */ }
    if (!res.ok || data === null || (data && data.error !== undefined && data.status)) {
      const err = new Error((data && data.error) || `${res.status} ${res.statusText}`);
      err.data = data;
      // not a mistake in what the user typed: the server is busy, refused, or failed
      err.server = !(data && data.status);
      throw err;
    }
    return data;
  }

  // a value of many characters (a 100 KB rack) shortened in a message: its start, its length
  function shorten(text, most = 600) {
    let s = String(text ?? "").replace(/\S{61,}/g, (w) => `${w.slice(0, 40)}…(${w.length.toLocaleString("en")} characters)`);
    if (s.length > most) s = s.slice(0, most - 1) + "…";
    return s;
  }

  const titleOf = (name) => (state.rulesets[name] ? state.rulesets[name].title : name);
  // a ruleset's title in a sentence: "Эрудит" marked as Russian
  const titleNode = (name) => h("span", { lang: /[\u0400-\u04ff]/.test(titleOf(name)) ? "ru" : null, text: titleOf(name) });

  // a library or API message in the page's terms: what to do on the page, not which parameter to pass.
  // ``where``: the field it is shown beside ("rack0", "rack1", "cgp", "board", "move", "game", ...)
  function humanize(message, where) {
    let m = String(message ?? "");
    // a position spelled in another ruleset's letters: "...letters of 'russian' or 'erudit': pass ruleset='russian' or ruleset='erudit'"
    m = m.replace(/the letters of ((?:'[^']+'(?: or )?)+): pass ruleset='[^']+'(?: or ruleset='[^']+')*/, (all, names) => {
      const titles = [...names.matchAll(/'([^']+)'/g)].map((x) => titleOf(x[1]));
      return `the letters of ${titles.join(" or ")}: pick ${titles.length > 1 ? "one of them" : titles[0]} in the Ruleset menu`;
    });
    m = m.replace(/pass ruleset='([^']+)'/g, (all, name) => `pick ${titleOf(name)} in the Ruleset menu`);
    // a record that names no ruleset, in the letters of some: "pass the ruleset to use (russian or erudit)"
    m = m.replace(/pass the ruleset to use \(([^)]*)\)/, (all, names) => {
      const titles = names.split(/ or |, /).map((n) => titleOf(n.trim()));
      return `pick ${titles.join(" or ")} in the Ruleset menu` + (where === "game" ? ", then load the game again" : "");
    });
    // a CGP naming a ruleset the server does not play
    m = m.replace(/: pass the ruleset to use$/, ": remove that opcode from the CGP to read it with the ruleset picked in the Ruleset menu");
    // a GCG record in letters of no ruleset the server has
    m = m.replace(/pass a ruleset file whose alphabet has them(?: \(--ruleset my_game\.toml\))?/,
      "start the server with a ruleset file whose alphabet has them (racksmith serve --ruleset my_game.toml)" +
      (where === "game" ? ", then load the game again" : ""));
    // the opponent's rack given while his last play is to be inferred
    m = m.replace(/\(leave it out of the CGP: 'RACK\/' with nothing after the slash\)/,
      "(clear the Opponent rack field, or the Opponent's last play)");
    // ... or known in part (a short rack while the bag holds tiles)
    m = m.replace(/or leave his rack out of the CGP to infer it/, "or clear the Opponent rack field to infer it");
    // the racks and scores as the fields beside them name them
    if (where === "rack0" || where === "rack1") m = m.replace(/\bCGP rack [12] /g, "the rack ");
    else if (where !== "cgp") m = m.replace(/\bCGP rack 1 /g, "the To move rack ").replace(/\bCGP rack 2 /g, "the Opponent's rack ");
    if (where !== "cgp") m = m.replace(/\bCGP scores\b/g, "the scores");
    // the game played on the page: its challenges and time penalties have their buttons
    if (where === "play") {
      m = m.replace(/a challenge bonus or a time penalty is an event of the game \([^)]*\), not a change of the scores/,
        "a challenge bonus or a time penalty is recorded with Challenge or Take off (Time penalty), not by changing a " +
        "score: undo back to the change and set the score back");
      m = m.replace(/^field 'end': the position's scores/, "the scores on the page")
        .replace(/^field 'end': the position is not/, "the position on the page is not")
        .replace(/^field '(challenge|time)': /, "")
        .replace(/challenge the last play from the position it left$/, "undo back to the play, or set the position back");
    }
    return shorten(m);
  }

  function say(message, ok) {
    const s = $("status");
    s.textContent = message ? shorten(message, 300) : "";
    s.className = ok ? "ok" : "";
  }

  // an error beside the field it is about (empty text clears it); ``field``: the input it marks
  const ERROR_FIELD = { "rack0-error": "rack0", "rack1-error": "rack1", "cgp-error": "cgp", "gcg-error": "gcg-text" };
  function fieldError(id, message, field) {
    const box = $(id);
    box.textContent = message ? shorten(message) : "";
    for (const f of box.dataset.marks ? box.dataset.marks.split(" ") : []) {
      $(f).classList.remove("invalid");
      $(f).removeAttribute("aria-invalid");
    }
    const marked = message ? (field || ERROR_FIELD[id]) : null;
    if (marked) {
      $(marked).classList.add("invalid");
      $(marked).setAttribute("aria-invalid", "true");
    }
    box.dataset.marks = marked || "";
  }

  function clearPositionErrors() {
    for (const id of ["rack0-error", "rack1-error", "board-error"]) fieldError(id, "");
    if (!state.keptCgpError) fieldError("cgp-error", "");
  }

  // where a position error is shown: beside the rack or score it names, else beside the field the
  // user changed last (the board, a rack, a score), else beside the CGP. [error box, field, humanize's where]
  function positionErrorPlace(message) {
    if (/CGP rack 1\b|rack of the player to move/i.test(message)) return ["rack0-error", "rack0", "rack0"];
    if (/CGP rack 2\b/i.test(message)) return ["rack1-error", "rack1", "rack1"];
    let edit = state.lastEdit;
    if (/CGP scores\b/.test(message) && (edit === "score0" || edit === "score1")) return [edit === "score0" ? "rack0-error" : "rack1-error", edit, edit];
    // a score typed makes no error but a score's: another is the board's or a rack's, typed before it
    if (edit === "score0" || edit === "score1") edit = state.lastTileEdit || "board";
    // a tile too many is on the rack typed last when it holds that tile, else on the board
    const extra = /^impossible position: \d+ (?:(blank)|'(.+?)') tiles on the board and racks/.exec(message);
    if (extra && (edit === "rack0" || edit === "rack1") && !$(edit).value.toUpperCase().includes(extra[1] ? "?" : extra[2].toUpperCase())) {
      edit = "board";
    }
    if (edit === "rack0" || edit === "score0") return ["rack0-error", edit, "rack0"];
    if (edit === "rack1" || edit === "score1") return ["rack1-error", edit, "rack1"];
    if (edit === "board") return ["board-error", null, "board"];
    return ["cgp-error", "cgp", "cgp"];
  }

  function h(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c !== null && c !== undefined && c !== false) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  // --- letters -------------------------------------------------------------------------------------
  // what may be typed for each tile of the ruleset: its letters (upper case: the tile; lower case: its
  // blank) and its other names (letter_aliases: Catalan "ŀL" for L·L). A ruleset's digit aliases (FISE's
  // 1, 2, 3) are read in word lists only, as the server reads them, not on the board
  function typedNames(rs) {
    if (rs.typed) return rs.typed;
    const names = new Map();
    const add = (text, tile) => {
      if (!names.has(text)) names.set(text, tile);
      if (!names.has(text.toUpperCase())) names.set(text.toUpperCase(), tile);
      if (!names.has(text.toLowerCase())) names.set(text.toLowerCase(), tile.toLowerCase());
    };
    for (const l of rs.alphabet) add(l, l);
    for (const [alias, tile] of Object.entries(rs.letter_aliases || {})) if (!/^\d+$/.test(alias)) add(alias, tile);
    rs.typed = names;
    return names;
  }

  // the tile (or its blank, lower case) the text typed stands for ("CH", "ch", "a", "Y" = "NY"); null if none
  // (mixed case, "Ch", is none: a tile is upper case and its blank lower case)
  const letterOf = (text) => typedNames(state.rs).get(text) ?? null;

  // is the text typed the start of a longer tile (or name of one): Catalan "Q" of QU, "L·" of L·L
  function startsTile(text) {
    if (!text) return false;
    for (const name of typedNames(state.rs).keys()) if (name.length > text.length && name.startsWith(text)) return true;
    return false;
  }

  // the ruleset's tiles of several characters (Spanish CH, LL, RR; Catalan L·L, NY, QU)
  const multiTiles = (rs) => rs.alphabet.filter((l) => [...l].length > 1);

  // tiles that typing their letters in sequence puts (Catalan NY when Y is no tile, QU, L·L): those whose
  // text is no other tiles, read as the tile by the server too (Spanish CH is C and H: typed [CH])
  function mergedTiles(rs) {
    const splits = (text, tile) => !text || rs.alphabet.some((l) => l !== tile && text.startsWith(l) && splits(text.slice(l.length), tile));
    return multiTiles(rs).filter((t) => !splits(t, t));
  }

  const isBlank = (s) => s !== s.toUpperCase();
  const valueOf = (s) => (isBlank(s) ? 0 : state.rs.values[s] ?? 0);

  function tileNode(letter, opts = {}) {
    const blank = opts.rackBlank || isBlank(letter);
    const shown = opts.rackBlank ? "" : letter.toUpperCase();
    const t = h("div", { class: "tile" + (blank ? " blank" : "") + (opts.preview ? " preview" : ""), lang: state.lang || null },
      h("span", { class: "l" + (shown.length > 1 ? " multi" : ""), text: shown }));
    if (!blank) t.append(h("span", { class: "p", text: valueOf(letter) }));
    return t;
  }

  // a tile as a screen reader says it: "O, 1 point", "O, blank"
  function tileWords(letter) {
    if (isBlank(letter)) return `${letter.toUpperCase()}, blank`;
    const v = valueOf(letter);
    return `${letter}, ${v} point${v === 1 ? "" : "s"}`;
  }

  // the language of a ruleset's letters: Cyrillic ones are Russian (GET /api/rulesets names no language)
  const langOf = (rs) => (rs.alphabet.some((l) => /[\u0400-\u04ff]/.test(l)) ? "ru" : "");

  // a text in the ruleset's letters (a move, a rack, a word): marked with their language
  function words(tag, props, ...children) {
    return h(tag, { ...props, lang: state.lang || null }, ...children);
  }

  // the letters of a rack or an exchange: a '?' (a blank) is heard as "blank"
  function rackNodes(text) {
    const out = [];
    let run = "";
    for (const ch of String(text ?? "")) {
      if (ch !== "?") { run += ch; continue; }
      if (run) out.push(run);
      run = "";
      out.push(h("span", { class: "bq" }, h("span", { "aria-hidden": "true", text: "?" })));
    }
    if (run) out.push(run);
    return out;
  }

  // a move's notation ("8D QUIRKs", "-ABC?", "-"): each blank of the word (a lower-case letter) is heard as
  // "blank s", the visible text unchanged (and what is copied, and what innerText reads)
  const PLACEMENT = /^(\s*(?:\d{1,2}[A-Z]|[A-Z]\d{1,2})\s+)(\S+)(.*)$/s;
  function moveNodes(text) {
    text = String(text ?? "");
    if (/^\s*-/.test(text)) return rackNodes(text);
    const m = PLACEMENT.exec(text);
    if (!m) return [text];
    const out = [m[1]];
    let run = "";
    // a tile of several characters is one tile: its blank "[ch]" is heard as "blank [ch]", not "blank c, blank h"
    for (const tile of m[2].match(/\[[^\]]*\]|./gsu) || []) {
      if (tile === tile.toUpperCase()) { run += tile; continue; }
      if (run) out.push(run);
      run = "";
      out.push(h("span", { class: "bl", text: tile }));
    }
    if (run) out.push(run);
    if (m[3]) out.push(m[3]);
    return out;
  }

  // --- CGP -------------------------------------------------------------------------------------------
  const cgpLetter = (s) => (s.length > 1 ? `[${s}]` : s);
  const cleanRack = (s) => s.replace(/[\s/]/g, "");

  function composeCgp() {
    const rows = state.board.map((row) => {
      let out = "";
      let run = 0;
      for (const s of row) {
        if (!s) { run++; continue; }
        if (run) { out += run; run = 0; }
        out += cgpLetter(s);
      }
      return run ? out + run : out;
    });
    const racks = `${cleanRack($("rack0").value)}/${cleanRack($("rack1").value)}`;
    const scores = `${pointsOf("score0")}/${pointsOf("score1")}`;
    return `${rows.join("/")} ${racks} ${scores} ${state.zeroTurns}` + (state.opcodes ? ` ${state.opcodes}` : "");
  }

  // a score field's points: a whole number (empty = 0); anything else (1e3, 12.7) is refused beside it
  function pointsOf(id) {
    const input = $(id);
    const text = input.value.trim();
    if (!(input.validity && input.validity.badInput) && /^[-+]?\d+$/.test(text)) return BigInt(text).toString();
    if (text === "" && !(input.validity && input.validity.badInput)) return "0";
    const err = new Error(`the score must be a whole number of points` + (text ? `, not ${shorten(text, 40)}` : ""));
    err.place = [id === "score0" ? "rack0-error" : "rack1-error", id, id];
    throw err;
  }

  // --- rulesets and the board ----------------------------------------------------------------------
  function setRuleset(name) {
    const rs = state.rulesets[name];
    // a game of another ruleset is not shown on this board, nor played on in it
    if (state.game && state.game.ruleset !== name) closeGame();
    if (state.played.length && state.playedRuleset !== name) clearPlayed();
    if (state.rs && state.rs.name !== name) state.lastCursor = null;
    // the challenge rule picked stays for the ruleset's games; another ruleset's is its own
    if (!state.rs || state.rs.name !== name) setChallengeRule(rs.challenge_bonus || 0);
    state.rs = rs;
    state.lang = langOf(rs);
    for (const id of ["rack0", "rack1", "move-input", "sim-infer"]) {
      if (state.lang) $(id).lang = state.lang;
      else $(id).removeAttribute("lang");
    }
    $("ruleset").value = name;
    state.board = Array.from({ length: rs.rows }, () => Array(rs.cols).fill(""));
    state.cursor = null;
    state.compose = state.lastPut = null;
    state.pinned = state.hover = null;
    state.zeroTurns = 0;
    state.opcodes = "";
    const leaves = $("leaves");
    leaves.disabled = !rs.leaves;
    leaves.checked = rs.leaves;
    $("leaves-label").classList.toggle("off", !rs.leaves);
    $("leaves-hint").hidden = !!rs.leaves;  // (the label's title says it to a mouse only)
    $("leaves-label").title = rs.leaves ? "equity with the server's leave values"
      : "the server has no leave values for this ruleset (racksmith serve --leaves FILE.klv2)";
    // a ruleset with tiles of several characters: their buttons, the hints and the fields' examples say how to type them
    const multi = multiTiles(rs);
    $("rack0").placeholder = multi.length ? `rack (? = blank, [${multi[0]}])` : "rack (? = blank)";
    $("move-input").placeholder = multi.length ? `Type a move: 8D WORD, [${multi[0]}] one tile, -ABC, -`
      : "Type a move: 8D QU(I)RK, D8 WORD, -ABC, -";
    buildTileButtons();
    hintTiles();
    buildBoard();
  }

  // the squares' size: the board as wide as the room beside (or above) the other panels allows, and
  // never taller than the screen (a phone held sideways, a short window), at every width; the
  // layout's turn at 1100 px moves no square: the room for the rack below the board, on a wide
  // screen, comes in over 1100–1300 px
  function sizeBoard() {
    const rs = state.rs;
    if (!rs) return;
    const width = document.documentElement.clientWidth || window.innerWidth;
    const height = window.innerHeight;
    const wide = width > 1100;
    const phone = width <= 600;
    // the board's width: a coordinate column of .55 cell, the squares, a 1 px gap each, 4 px of padding
    const across = wide ? width - 400 : width - (phone ? 16 : 40);
    const byWidth = (Math.min(across, 700) - 6 - rs.cols) / (rs.cols + 0.55);
    // its height likewise: from its top (under the header) to the screen's foot, less the rack's room
    const top = $("board").getBoundingClientRect().top + window.scrollY;
    const above = Math.min(top + 8, Math.max(16, height - 500));
    const rack = 190 * Math.min(1, Math.max(0, (width - 1100) / 200));
    const byHeight = (height - above - rack - 4 - rs.rows) / (rs.rows + 0.55);
    const cell = Math.max(phone ? 12 : 20, Math.min(44, Math.floor(Math.min(byWidth, byHeight))));
    document.documentElement.style.setProperty("--cell", `${cell}px`);
    document.documentElement.style.setProperty("--cols", rs.cols);
  }

  // the board is an ARIA grid: a row of squares (gridcells) for each row, each square named by its
  // coordinate and what is on it ("H8, triple word, empty", "D8, O, 1 point", "D8, O, blank"); the
  // coordinates drawn around it are not read (every name says its square)
  function buildBoard() {
    const rs = state.rs;
    const board = $("board");
    board.replaceChildren();
    board.removeAttribute("aria-activedescendant");
    sizeBoard();
    const head = h("div", { class: "brow top-row", "aria-hidden": "true" }, h("div", { class: "coord corner" }));
    for (let c = 0; c < rs.cols; c++) head.append(h("div", { class: "coord top", text: COLUMNS[c] }));
    board.append(head);
    state.squares = [];
    for (let r = 0; r < rs.rows; r++) {
      const row = h("div", { class: "brow", role: "row" }, h("div", { class: "coord", "aria-hidden": "true", text: r + 1 }));
      const squares = [];
      for (let c = 0; c < rs.cols; c++) {
        const p = rs.premiums[r][c];
        const start = r === rs.start[0] && c === rs.start[1];
        const sq = h("div", { class: "sq" + (PREMIUM_CLASS[p] ? " " + PREMIUM_CLASS[p] : "") + (start ? " start" : ""),
          role: "gridcell", id: `sq-${r}-${c}`, "data-r": r, "data-c": c });
        squares.push(sq);
        row.append(sq);
      }
      state.squares.push(squares);
      board.append(row);
    }
    renderBoard();
  }

  const squareNode = (r, c) => state.squares[r][c];
  const squareName = (r, c) => `${COLUMNS[c]}${r + 1}`;

  // what a screen reader says of a square: its coordinate, then its tile or its premium
  function squareLabel(r, c, letter, preview) {
    const rs = state.rs;
    const parts = [squareName(r, c)];
    if (letter) {
      parts.push(tileWords(letter));
      if (preview) parts.push("shown move");
    } else {
      if (r === rs.start[0] && c === rs.start[1]) parts.push("start");
      const p = PREMIUM_NAME[rs.premiums[r][c]];
      if (p) parts.push(p);
      parts.push("empty");
    }
    const t = state.compose;
    if (t && t.r === r && t.c === c) parts.push(`typing the tile ${t.explicit ? "[" : ""}${t.text}`);
    const cur = state.cursor;
    if (cur && cur.r === r && cur.c === c) parts.push(`cursor, typing ${cur.across ? "across" : "down"}`);
    return parts.join(", ");
  }

  function renderBoard() {
    const rs = state.rs;
    const shown = state.hover || state.pinned;
    const preview = new Map();
    const inWord = new Set();
    if (shown && shown.placed) for (const [r, c, s] of shown.placed) preview.set(r * rs.cols + c, s);
    // a star taken back (Эрудит): the real letter put in its place is shown over the star
    const swapped = new Map();
    if (shown && shown.reclaimed) for (const [r, c, s] of shown.reclaimed) swapped.set(r * rs.cols + c, s);
    if (shown && shown.squares) for (const [r, c] of shown.squares) inWord.add(r * rs.cols + c);
    for (let r = 0; r < rs.rows; r++) {
      for (let c = 0; c < rs.cols; c++) {
        const sq = squareNode(r, c);
        const k = r * rs.cols + c;
        const letter = swapped.get(k) || state.board[r][c] || preview.get(k) || "";
        const p = rs.premiums[r][c];
        const previewed = !!letter && (!state.board[r][c] || swapped.has(k));
        sq.replaceChildren();
        // what is drawn is not read: the square's name says it
        if (letter) sq.append(tileNode(letter, { preview: previewed }));
        else if (PREMIUM_LABEL[p] && !(r === rs.start[0] && c === rs.start[1])) sq.append(h("span", { text: PREMIUM_LABEL[p] }));
        // a tile being typed ("[CH"): its letters so far, over the square
        const t = state.compose;
        const composing = !!t && t.r === r && t.c === c;
        if (composing) sq.append(h("span", { class: "composing", text: (t.explicit ? "[" : "") + t.text }));
        for (const child of sq.children) child.setAttribute("aria-hidden", "true");
        sq.classList.toggle("has-tile", !!letter);
        sq.classList.toggle("in-word", inWord.has(k) && !!state.board[r][c]);
        const cur = state.cursor && state.cursor.r === r && state.cursor.c === c;
        sq.classList.toggle("cursor", !!cur);
        if (cur) sq.append(h("span", { class: "arrow" + (letter || composing ? "" : " alone"), "aria-hidden": "true", text: state.cursor.across ? "→" : "↓" }));
        const label = squareLabel(r, c, letter, previewed);
        if (sq.getAttribute("aria-label") !== label) sq.setAttribute("aria-label", label);
      }
    }
    // the square with the cursor is the grid's active cell (read as the cursor moves); the text field
    // that takes a phone's keyboard sits over it (the browser scrolls it into view)
    const cur = state.cursor;
    if (cur) $("board").setAttribute("aria-activedescendant", squareNode(cur.r, cur.c).id);
    else $("board").removeAttribute("aria-activedescendant");
    placeBoardInput();
    updatePlayBar();
  }

  function placeBoardInput() {
    const cur = state.cursor;
    if (!cur || !state.squares.length) return;
    const sq = squareNode(cur.r, cur.c);
    const input = $("board-input");
    input.style.left = `${sq.offsetLeft}px`;
    input.style.top = `${sq.offsetTop}px`;
  }

  function renderRack(rack) {
    const box = $("rack-tiles");
    box.replaceChildren();
    for (const ch of splitRack(rack)) {
      const blank = ch === "?";
      const tile = tileNode(blank ? "" : ch, { rackBlank: blank });
      tile.setAttribute("aria-hidden", "true");
      box.append(h("div", { class: "rt", role: "listitem", "aria-label": blank ? "blank" : tileWords(ch) }, tile));
    }
  }

  function splitRack(text) {
    const out = [];
    for (let i = 0; i < text.length; i++) {
      if (text[i] === "[") {
        const j = text.indexOf("]", i);
        if (j > i) { out.push(text.slice(i + 1, j)); i = j; continue; }
      }
      out.push(text[i]);
    }
    return out;
  }

  // --- editing the board ----------------------------------------------------------------------------
  // the last pointer on the board: a finger (or a pen) types with the on-screen keyboard
  let boardPointer = "mouse";

  function onBoardClick(e) {
    const sq = e.target.closest(".sq");
    if (!sq) return;
    const r = +sq.dataset.r;
    const c = +sq.dataset.c;
    dropCompose();  // a tile being typed is given up
    state.lastPut = null;
    const cur = state.cursor;
    if (cur && cur.r === r && cur.c === c) cur.across = !cur.across;
    else state.cursor = { r, c, across: cur ? cur.across : true };
    renderBoard();
    if (boardPointer === "touch" || boardPointer === "pen") {
      // a phone opens its keyboard for a text field only: the letters typed there go on the board
      const input = $("board-input");
      input.value = SENTINEL;
      input.focus();
      announce(squareLabel(state.cursor.r, state.cursor.c, state.board[r][c]));
    } else {
      $("board").focus();
    }
  }

  function step(delta) {
    const cur = state.cursor;
    const rs = state.rs;
    if (cur.across) cur.c = Math.min(rs.cols - 1, Math.max(0, cur.c + delta));
    else cur.r = Math.min(rs.rows - 1, Math.max(0, cur.r + delta));
  }

  // the cursor where it was last (Escape hid it), else on the start square
  function restoreCursor() {
    const rs = state.rs;
    const last = state.lastCursor;
    state.cursor = last && last.r < rs.rows && last.c < rs.cols ? { ...last } : { r: rs.start[0], c: rs.start[1], across: true };
  }

  // what the board says to a screen reader (a polite live region): a tile put or erased, the cursor turned
  let announced = "";
  function announce(message) {
    // the same words twice are still read: a no-break space tells them apart
    announced = message && announced === message ? message + "\u00a0" : message;
    $("board-live").textContent = announced;
  }

  // --- tiles of several characters: typed in brackets, letter by letter, or from their buttons ---------------
  // A tile being typed (state.compose: {text, explicit, r, c, back, keep}) is shown in the cursor's square
  // until it is put: "[" then its letters then "]" (or Enter), upper case the tile, lower case its blank
  // (explicit); or letters that are no tile alone but begin one (Catalan Q of QU; "·" after L, of L·L).
  // ``back``: where the cursor goes if it is given up; ``keep``: the letters it began with (the L of L·L,
  // already on the board), which Backspace does not take back
  function composeStart(text, explicit, keep = 0, back = null) {
    const cur = state.cursor;
    state.compose = { text, explicit, keep, back: back || { r: cur.r, c: cur.c }, r: cur.r, c: cur.c };
  }

  // the tile being typed given up (Escape, an arrow, a click, a tile button): the cursor goes back
  function dropCompose() {
    const t = state.compose;
    if (!t) return false;
    state.compose = null;
    if (state.cursor) { state.cursor.r = t.back.r; state.cursor.c = t.back.c; }
    return true;
  }

  // the error of text typed that is no tile, with how to type the ruleset's tiles of several characters
  function notALetter(text, brackets) {
    const rs = state.rs;
    const wrap = (t) => (brackets ? `[${t}]` : t);
    const up = text.toUpperCase();
    const m = `${text} is not a letter of ${rs.title}`;
    if (text !== up && letterOf(up)) return `${m}: type ${wrap(up)} for the tile, ${wrap(text.toLowerCase())} for its blank`;
    const multi = multiTiles(rs);
    if (!multi.length) return m;
    const near = multi.filter((t) => t.includes(up));
    const shown = near.length ? near : multi;
    const merged = mergedTiles(rs);
    const seq = shown.filter((t) => merged.includes(t)).map((t) => [...t].join(" then "));
    return `${m} (a tile of several letters is typed in brackets: ${shown.map((t) => `[${t}]`).join(", ")}` +
      (seq.length ? `; or letter by letter: ${seq.join(", ")})` : ")");
  }

  // a tile put on the cursor's square (typed or from a tile button); the cursor goes past it.
  // What a screen reader is told
  function putTile(letter) {
    const cur = state.cursor;
    state.board[cur.r][cur.c] = letter;
    const said = `${isBlank(letter) ? `blank ${letter.toUpperCase()}` : letter} put on ${squareName(cur.r, cur.c)}`;
    step(1);
    return said;
  }

  // the tile typed letter by letter: it may join the next letter typed (N then Y is NY where Y is no tile)
  function typedPut(letter) {
    const cur = state.cursor;
    const at = { r: cur.r, c: cur.c };
    const said = putTile(letter);
    state.lastPut = { ...at, letter, after: { r: cur.r, c: cur.c } };
    return said;
  }

  function boardChanged() {
    edited("board");
    state.pinned = state.hover = null;
    clearBreakdown();
    scheduleRefresh();
  }

  // the board's buttons for the ruleset's tiles of several characters ("tile CH"; with the Blank toggle
  // pressed, or Shift-click, "blank CH"): each puts its tile at the cursor, which goes on
  function buildTileButtons() {
    const rs = state.rs;
    const tiles = multiTiles(rs);
    const box = $("tile-buttons");
    box.hidden = !tiles.length;
    if (!tiles.length) { box.replaceChildren(); return; }
    const buttons = tiles.map((t) => h("button", { type: "button", class: "tile-button", "data-tile": t, lang: state.lang || null },
      h("span", { class: "l", text: t }), h("sub", { text: rs.values[t] ?? "" })));
    const toggle = h("button", { type: "button", id: "tile-blank", class: "tile-toggle", "aria-pressed": "false",
      title: "the tile buttons put blanks (Shift-click puts one too)" }, "Blank");
    box.replaceChildren(h("span", { class: "tile-buttons-label", "aria-hidden": "true", text: "Tiles:" }), ...buttons, toggle);
    labelTileButtons();
  }

  function labelTileButtons() {
    const toggle = $("tile-blank");
    const blank = !!toggle && toggle.getAttribute("aria-pressed") === "true";
    for (const b of $("tile-buttons").querySelectorAll(".tile-button")) {
      b.setAttribute("aria-label", `${blank ? "blank" : "tile"} ${b.dataset.tile}`);
      b.classList.toggle("blank", blank);
      b.title = `${blank ? "put a blank" : "put the tile"} ${b.dataset.tile} at the cursor` + (blank ? "" : " (Shift-click: its blank)");
    }
  }

  function onTileButton(e) {
    if (e.target.closest("#tile-blank")) {
      const t = $("tile-blank");
      t.setAttribute("aria-pressed", t.getAttribute("aria-pressed") === "true" ? "false" : "true");
      labelTileButtons();
      return;
    }
    const b = e.target.closest(".tile-button");
    if (!b) return;
    const blank = e.shiftKey || $("tile-blank").getAttribute("aria-pressed") === "true";
    if (!state.cursor) restoreCursor();
    dropCompose();
    state.lastPut = null;
    let said = putTile(blank ? b.dataset.tile.toLowerCase() : b.dataset.tile);
    boardChanged();
    renderBoard();
    if (document.activeElement !== $("board") && state.cursor) said += `; ${squareLabel(state.cursor.r, state.cursor.c, state.board[state.cursor.r][state.cursor.c])}`;
    announce(said);
  }

  // the board's hints say how to type the ruleset's tiles of several characters (none: nothing)
  function hintTiles() {
    const rs = state.rs;
    const tiles = multiTiles(rs);
    const keys = $("board-hint-tiles");
    const touch = $("board-hint-touch-tiles");
    keys.hidden = touch.hidden = !tiles.length;
    if (!tiles.length) { keys.replaceChildren(); touch.replaceChildren(); return; }
    const ex = tiles[0];
    const kbd = (text) => h("kbd", { text });
    const merged = mergedTiles(rs);
    const apart = tiles.filter((t) => !merged.includes(t));
    const lettered = [];
    if (merged.length) {
      lettered.push(` Letter by letter, ${merged.map((t) => [...t].join(" ")).join(", ")} ${merged.length > 1 ? "are" : "is"} ` +
        `${merged.join(", ")} (no other tiles spell ${merged.length > 1 ? "them" : "it"}).`);
    }
    if (apart.length) lettered.push(` Letter by letter, ${apart.map((t) => [...t].join(" ")).join(", ")} ${apart.length > 1 ? "are" : "is"} separate tiles.`);
    keys.replaceChildren(" A tile of several letters: ", kbd("["), ", its letters, ", kbd("]"), " (or ", kbd("Enter"), "): ",
      kbd(`[${ex}]`), " the tile, ", kbd(`[${ex.toLowerCase()}]`), " its blank, ", kbd("Esc"), " cancels; or its button below the board.",
      ...lettered);
    touch.replaceChildren(` Tiles of several letters: their buttons below the board (Blank for a blank), or in brackets, [${ex}] or [${ex.toLowerCase()}].`,
      ...lettered);
  }

  const BOARD_KEYS = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", " ", "Escape", "Backspace", "Delete"]);

  // a key typed on the board (the keyboard's, or a letter of a phone's): true if the board took it
  function boardKey(k) {
    if (!BOARD_KEYS.has(k) && [...k].length !== 1 && !(k === "Enter" && state.compose)) return false;
    if (!state.cursor) {
      if (k === "Escape") return false;
      restoreCursor();  // the cursor hidden by Escape comes back where it was
    }
    const cur = state.cursor;
    const rs = state.rs;
    const last = state.lastPut;
    state.lastPut = null;
    let changed = false;
    let said = "";
    let handled = false;
    const t = state.compose;
    if (t) {
      // a tile being typed: its letters, "]" or Enter puts it, Backspace takes a letter back, Escape gives it up
      handled = true;
      const finish = (text) => {
        const letter = letterOf(text);
        if (letter === null) {
          dropCompose();
          fieldError("board-error", notALetter(text, t.explicit));  // said by the alert
          return;
        }
        state.compose = null;
        cur.r = t.r;
        cur.c = t.c;
        said = t.explicit ? putTile(letter) : typedPut(letter);
        changed = true;
      };
      if (k === "Escape" || k === "Delete") {
        dropCompose();
        said = "tile cancelled";
      } else if (k === "Backspace") {
        if (t.explicit && !t.text) {
          dropCompose();
          said = "tile cancelled";
        } else {
          t.text = [...t.text].slice(0, -1).join("");
          if (!t.explicit && [...t.text].length <= t.keep) {
            dropCompose();
            said = "tile cancelled";
          } else said = `typing ${t.explicit ? "[" : ""}${t.text}`;
        }
      } else if (k === "]" || k === "Enter") {
        if (t.explicit && !t.text) { dropCompose(); said = "tile cancelled"; } else finish(t.text);
      } else if (k === "[") {
        t.text = "";
        t.explicit = true;
        said = "typing a tile: its letters, then ]";
      } else if (BOARD_KEYS.has(k)) {
        dropCompose();  // an arrow, Space: the tile is given up, and the key does what it does
        handled = false;
      } else if (t.explicit) {
        t.text += k;
        said = `typing [${t.text}`;
      } else {
        const text = t.text + k;
        if (letterOf(text) !== null) finish(text);
        else if (startsTile(text)) { t.text = text; said = `typing ${text}`; }
        else {
          dropCompose();
          fieldError("board-error", notALetter(text, false));
        }
      }
    }
    if (handled) {
      // done above
    } else if (k === "ArrowLeft" || k === "ArrowRight" || k === "ArrowUp" || k === "ArrowDown") {
      const dr = k === "ArrowUp" ? -1 : k === "ArrowDown" ? 1 : 0;
      const dc = k === "ArrowLeft" ? -1 : k === "ArrowRight" ? 1 : 0;
      cur.r = Math.min(rs.rows - 1, Math.max(0, cur.r + dr));
      cur.c = Math.min(rs.cols - 1, Math.max(0, cur.c + dc));
    } else if (k === " ") {
      cur.across = !cur.across;
      said = `typing ${cur.across ? "across" : "down"}`;
    } else if (k === "Escape") {
      state.lastCursor = { ...cur };
      state.cursor = null;
      said = "cursor hidden: type or press an arrow to bring it back";
    } else if (k === "Backspace" || k === "Delete") {
      if (k === "Backspace" && !state.board[cur.r][cur.c]) step(-1);
      changed = !!state.board[cur.r][cur.c];
      said = changed ? `${squareName(cur.r, cur.c)} erased` : "";
      state.board[cur.r][cur.c] = "";
    } else if (k === "[") {
      composeStart("", true);
      said = "typing a tile: its letters, then ]";
    } else {
      // a letter; one that is no tile alone may join the tile just typed (Catalan N then Y is NY, L then
      // "·" begins L·L) or begin one (Q of QU). One that is a tile is that tile: Spanish C then H is C, H
      const own = rs.alphabet.includes(k.toUpperCase());
      const joined = !own && last && last.after.r === cur.r && last.after.c === cur.c &&
        state.board[last.r][last.c] === last.letter ? last.letter + k : null;
      if (joined !== null && letterOf(joined) !== null) {
        cur.r = last.r;
        cur.c = last.c;
        said = typedPut(letterOf(joined));
        changed = true;
      } else if (joined !== null && startsTile(joined)) {
        const back = { r: cur.r, c: cur.c };
        cur.r = last.r;
        cur.c = last.c;
        composeStart(joined, false, [...last.letter].length, back);
        said = `typing ${joined}`;
      } else if (letterOf(k) !== null) {
        said = typedPut(letterOf(k));
        changed = true;
      } else if (startsTile(k)) {
        composeStart(k, false);
        said = `typing ${k}`;
      } else {
        fieldError("board-error", notALetter(k, false));
        return true;
      }
    }
    if (changed) boardChanged();
    renderBoard();
    // the grid's active cell is read as it changes; the phone's text field has no active cell: say the square
    if (document.activeElement !== $("board") && state.cursor) {
      said = [said, squareLabel(state.cursor.r, state.cursor.c, state.board[state.cursor.r][state.cursor.c])].filter(Boolean).join("; ");
    }
    announce(said);
    return true;
  }

  // a key the board takes: none with Ctrl or Cmd (the browser's shortcuts), nor Alt with a letter or a
  // digit; but a character typed with AltGr or Option ("[" on a Spanish or German keyboard) is typed
  function typedKey(e) {
    if (e.isComposing) return false;
    const altGr = !!(e.getModifierState && e.getModifierState("AltGraph"));
    const character = [...e.key].length === 1 && !/[A-Za-z0-9]/.test(e.key);
    if (e.metaKey) return false;
    if (e.ctrlKey || e.altKey) return character && (altGr || e.altKey);
    return true;
  }

  function onBoardKey(e) {
    if (!typedKey(e)) return;
    if (boardKey(e.key)) e.preventDefault();
  }

  // the phone's text field: what its keyboard typed (an input event, often without a usable keydown) goes
  // on the board; it keeps one character so that ⌫ on it is an edit too
  const SENTINEL = "\u00b7";
  function onBoardInput(e) {
    const input = $("board-input");
    if (e.isComposing) return;  // a word being composed: taken when it ends (compositionend)
    const value = input.value;
    if ((e.inputType && e.inputType.startsWith("delete")) || !value) boardKey("Backspace");
    else for (const ch of value.replace(SENTINEL, "")) boardKey(ch);
    input.value = SENTINEL;
  }

  function onBoardInputKey(e) {
    // a physical key (an arrow, ⌫, a letter): as on the board; an on-screen keyboard's ("Unidentified",
    // "Process", composing) comes as an input event
    if (!typedKey(e) || e.key === "Unidentified" || e.key === "Process") return;
    const composing = !!state.compose;
    if (boardKey(e.key)) e.preventDefault();
    if (e.key === "Escape" && !composing) $("board-input").blur();  // the keyboard closes (not when a tile is given up)
  }

  // --- the position and its moves ---------------------------------------------------------------------
  let refreshTimer = 0;
  let refreshing = null;  // the last refresh started, while it is under way
  function startRefresh() {
    const p = refresh();
    refreshing = p;
    const done = () => { if (refreshing === p) refreshing = null; };
    p.then(done, done);
    return p;
  }

  function scheduleRefresh(delay = 120) {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => { refreshTimer = 0; startRefresh(); }, delay);
  }

  function refreshNow() {
    clearTimeout(refreshTimer);
    refreshTimer = 0;
    return startRefresh();
  }

  // the position as typed, read before a move is checked or played: a refresh due is made now, one under
  // way is waited for (a rack typed, then Play pressed while its position was being read, played on the
  // racks before: "the unseen tiles hold 0 Z")
  async function positionRead() {
    if (!state.cgp || refreshTimer) await refreshNow();
    // (until none is due or under way: one started meanwhile is the one that reads the fields as they are)
    for (let i = 0; i < 8 && (refreshTimer || refreshing); i++) await (refreshTimer ? refreshNow() : refreshing);
  }

  // the user changed a field of the position (a rack, a score, the board): its errors are shown there
  function edited(field) {
    positionShown();
    state.lastEdit = field;
    if (field === "board" || field === "rack0" || field === "rack1") state.lastTileEdit = field;
    dropAside();
    if (state.keptCgpError) {
      state.keptCgpError = false;
      fieldError("cgp-error", "");
    }
  }

  const PLACE_NAMES = {
    "rack0-error": "below the To move rack", "rack1-error": "below the Opponent's rack",
    "board-error": "below the board", "cgp-error": "below the CGP",
  };

  // "computing…" over the moves while an answer is awaited (the server may be busy with others)
  let busyTimer = 0;
  function busy(on) {
    clearTimeout(busyTimer);
    const stale = ["moves-wrap", "moves-head", "rack-tiles", "bag"];
    if (!on) {
      for (const id of stale) $(id).classList.remove("busy");
      return;
    }
    busyTimer = setTimeout(() => {
      for (const id of stale) $(id).classList.add("busy");
      $("moves-head").textContent = "computing…";
    }, 150);
  }

  // the rack's tiles and the bag of a position that is not read (an error): not those of the last one
  function clearPositionView() {
    $("rack-tiles").replaceChildren();
    $("bag").replaceChildren();
  }

  // two CGPs the same but for their racks (the second field), and a CGP with another's scores (the third)
  function onlyRacksDiffer(a, b) {
    const x = a.split(" ");
    const y = b.split(" ");
    return x.length === y.length && x.every((f, i) => i === 1 || f === y[i]);
  }

  function withScoresOf(cgp, base) {
    const x = cgp.split(" ");
    x[2] = base.split(" ")[2];
    return x.join(" ");
  }

  async function refresh() {
    const seq = ++state.seq;
    positionShown();
    const ruleset = state.rs.name;
    let pos;
    let cgp = null;
    let body = null;
    busy(true);
    try {
      try {
        cgp = composeCgp();
        body = { cgp, ruleset };
        // a game over whose end could not count a hidden rack: that rack typed in is counted (its penalty
        // comes off the scores), not taken as final with the scores as they stand
        if (state.countBase && state.cgp && cgp !== state.cgp && onlyRacksDiffer(cgp, state.cgp)) {
          // a counted rack typed again (a slip corrected, or typed a tile at a time): counted from the
          // scores before, not on top of the first rack's penalty
          body.cgp = withScoresOf(cgp, state.countBase);
          body.counting = state.countBase;
        } else if (state.unfinal && state.cgp && cgp !== state.cgp) body.counting = state.cgp;
        pos = await api("/api/position", body);
        if (body.cgp !== cgp && !pos.counted && !(pos.over && pos.final === false)) {
          // (another rack changed than the one counted: the position as typed, its scores as they stand)
          body = { cgp, ruleset };
          pos = await api("/api/position", body);
        }
      } catch (e) {
        if (seq !== state.seq) return;
        clearPositionErrors();
        clearPositionView();
        // the CGP field shows what is typed, error and all (not the last position read)
        if (cgp !== null && document.activeElement !== $("cgp") && !state.keptCgpError) $("cgp").value = cgp;
        state.positionError = "";
        if (e.server) {  // the server does not answer, is busy or failed: not the position's fault
          say(e.message);
          showMoves(null, e.message);
          return;
        }
        say("", true);
        const [box, field, where] = e.place || positionErrorPlace(e.message);
        fieldError(box, humanize(e.message, where), field);
        state.positionError = `the error is ${PLACE_NAMES[box]}`;
        showMoves(null, `Fix the position to see its moves: ${state.positionError}.`);
        return;
      }
      if (seq !== state.seq) return;
      state.positionError = "";
      clearPositionErrors();
      if (pos.cgp !== state.cgp) {
        // another position: what was shown for the last one (a checked move, a pinned preview) goes
        state.pinned = state.hover = null;
        clearBreakdown();
        $("verdict").replaceChildren();
        renderBoard();
      }
      state.cgp = pos.cgp;
      state.unfinal = pos.over && pos.final === false;
      state.countBase = pos.counted ? body.counting : null;
      // (the racks typed were counted: the scores the rules give; or the counted rack cleared: the
      // scores before the count, which the position shown has, not the fields' stale ones)
      if (pos.counted || body.cgp !== cgp) {
        $("score0").value = pos.scores[0];
        $("score1").value = pos.scores[1] ?? 0;
      }
      if (document.activeElement !== $("cgp") && !state.keptCgpError) $("cgp").value = pos.cgp;
      renderRack(pos.racks[0]);
      renderBag(pos);
      writeAddress();
      await loadMoves(seq, pos);
    } finally {
      if (seq === state.seq) busy(false);
    }
  }

  // the address says what the page shows: a copied address opens the same view
  function writeAddress() {
    const url = new URL(location.href);
    const p = url.searchParams;
    if (state.rs) p.set("ruleset", state.rs.name);
    if (state.cgp) p.set("cgp", state.cgp);
    p.set("sort", $("sort").value);
    p.set("top", $("top").value);
    p.set("exchanges", $("exchanges").checked ? "1" : "0");
    if (state.rs && state.rs.leaves) p.set("leaves", $("leaves").checked ? "1" : "0");
    else p.delete("leaves");
    const tab = document.querySelector(".tabs button.active");
    if (tab) p.set("tab", tab.dataset.tab);
    history.replaceState(null, "", url);
  }

  function renderBag(pos) {
    const knownRacks = pos.racks_known || [true, !!pos.racks[1]];
    const pool = Object.entries(pos.unseen || pos.bag).map(([l, n]) => cgpLetter(l).repeat(n)).join(" ");
    const colon = pool ? ": " : "";
    // the unseen tiles are shared between the bag and each rack not known (the mover's too, while
    // the game goes on and his rack is not typed in)
    // (a rack known in part holds its known tiles besides: they are not among the unseen ones)
    const partial = pos.racks_partial || [false, false];
    const unknownOn = (i) => pos.rack_sizes[i] - (partial[i] ? [...pos.racks[i].replace(/\[[^\]]*\]/g, "x")].length : 0);
    const held = [];
    if (!knownRacks[0] && pos.rack_sizes[0]) held.push(partial[0] ? `${unknownOn(0)} on the rack to move besides ${pos.racks[0]}`
      : `${unknownOn(0)} on the rack to move`);
    // (a rack not known that holds no tile: the player who went out, with nothing to count)
    if (!knownRacks[1] && pos.rack_sizes[1]) held.push(partial[1] ? `${unknownOn(1)} on the opponent's rack besides ${pos.racks[1]}`
      : `${pos.rack_sizes[1]} on the opponent's rack`);
    const count = !held.length ? [h("b", { text: `${pos.bag_count}` }), ` in the bag${colon}`]
      : [h("b", { text: `${pos.unseen_count}` }), ` unseen (${held.join(", ")}, ${pos.bag_count} in the bag)${colon}`];
    $("bag").replaceChildren(...count, pool ? words("span", { class: "pool" }, ...rackNodes(pool)) : "");
  }

  // why a game that is over has no move to play
  function gameOverNote(pos) {
    const how = pos.ending === "zero_turns"
      ? `the scoreless turns have reached the limit (the zero-turn count is ${pos.zero_turns})`
      : pos.ending === "out" ? "a player is out of tiles with the bag empty" : "";
    return `The game is over${how ? `: ${how}` : ""}. There is no move left to play.` +
      (pos.final === false ? ` ${notFinalNote(pos)}` : "");
  }

  // why the scores of a game that is over are not final: a rack not known, whose tiles the end could not count
  function notFinalNote(pos) {
    const whose = (pos.uncounted || []).map((i) => (i === 0 ? "the rack to move" : "the opponent's rack"));
    const racks = whose.length ? whose.join(" and ") : "a rack not known";
    return `The scores are not final: they do not count the tiles left on ${racks}, which ${whose.length > 1 ? "are" : "is"} not known.`;
  }

  async function loadMoves(seq, pos) {
    // (with the bag empty a rack not typed in is certain, the unseen tiles: the server lists its moves)
    const certain = pos.bag_count === 0 && !pos.racks_known[0] && pos.rack_sizes[0] > 0;
    // (over first: a game over has no move to list, whether the rack to move is typed in or not)
    if (pos.over) {
      say("", true);
      showMoves(null, gameOverNote(pos));
      return;
    }
    if (!pos.racks[0] && !certain) {
      say("", true);
      showMoves(null, "Type a rack to see every legal play, ranked.");
      return;
    }
    if (pos.racks_partial && pos.racks_partial[0] && !certain) {  // (his tiles seen, the others not)
      say("", true);
      showMoves(null, `The rack to move is known in part (${pos.racks[0]}): type it whole to see every legal play, ranked.`);
      return;
    }
    const top = $("top").value;
    const body = {
      cgp: pos.cgp, ruleset: pos.ruleset, sort: $("sort").value, top: top === "all" ? null : +top,
      exchanges: $("exchanges").checked, leaves: state.rs.leaves ? $("leaves").checked : false,
    };
    let data;
    let capped = false;
    try {
      try {
        data = await api("/api/moves", body);
      } catch (e) {
        // "all" of a position with more moves than the server answers at once: its best that many
        if (body.top !== null || !e.data || e.data.limit !== "max_moves" || !state.limits.max_moves) throw e;
        data = await api("/api/moves", { ...body, top: state.limits.max_moves });
        capped = true;
      }
    } catch (e) {
      if (seq !== state.seq) return;
      if (e.server) say(e.message);
      showMoves(null, humanize(e.message, "moves"));
      return;
    }
    if (seq !== state.seq) return;
    say("", true);
    showMoves(data, "", capped);
  }

  function showMoves(data, note, capped) {
    const body = $("moves").querySelector("tbody");
    body.replaceChildren();
    state.moves = data ? data.moves : [];
    const withEquity = !!data && data.moves.some((m) => m.equity !== null);
    $("moves").classList.toggle("hide-eq", !withEquity);
    if (!data) {
      $("moves-head").textContent = "";
      body.append(h("tr", {}, h("td", { colspan: 5, class: "empty-note", text: shorten(note || "") })));
      return;
    }
    const rs = state.rs;
    // (the rack of the position shown; none while another ruleset's empty position is on its way)
    const pos = (state.cgp.split(" ")[1] || "").split("/")[0];
    $("moves-head").textContent = `${data.count} move${data.count === 1 ? "" : "s"} for ${pos} by ${data.sort}` +
      ` · lexicon ${data.lexicon}` + (data.leaves ? " · with leaves" : "");
    const shown = data.moves.slice(0, MAX_ROWS);
    if (capped) $("moves-head").textContent += ` · more exist: the best ${data.count} (the server's max_moves limit)`;
    if (data.count > MAX_ROWS) $("moves-head").textContent += ` · the first ${MAX_ROWS} shown`;
    const pinned = state.pinned ? state.pinned.notation : null;
    shown.forEach((m, i) => {
      const tags = [];
      if (m.bingo) tags.push(h("span", { class: "tag", text: "bingo" }));
      if (m.type !== "place") tags.push(h("span", { class: "tag ex", text: m.type }));
      const kept = pinned === m.notation;
      // one row is a Tab stop (the move kept, else the first): ↑ ↓ go through the others
      const tr = h("tr", { tabindex: -1, "data-row": "", "aria-selected": kept ? "true" : "false", title: "Enter: show it on the board" },
        h("td", { class: "num", text: i + 1 }),
        words("td", { class: "move" }, ...moveNodes(m.notation), ...tags),
        h("td", { class: "num", text: m.score }),
        h("td", { class: "num eq", text: m.equity === null ? "" : m.equity.toFixed(2) }),
        words("td", { class: "move" }, ...rackNodes(m.leave ?? "")));
      tr.addEventListener("mouseenter", () => hoverMove(m));
      tr.addEventListener("click", (e) => { pinMove(m, tr); boardIntoView(e); });
      rowKeys(tr, () => pinMove(m, tr), () => hoverMove(m));
      if (kept) tr.classList.add("pinned");
      body.append(tr);
    });
    const stop = body.querySelector("tr.pinned") || body.querySelector("tr[data-row]");
    if (stop) stop.tabIndex = 0;
    if (!data.moves.length) body.append(h("tr", {}, h("td", { colspan: 5, class: "empty-note", text: `no legal move for this rack in ${rs.title}` })));
  }

  // the rows of a table (the moves, the turns) are one Tab stop: the row that has it is the one last
  // focused (or kept); ↑ ↓ Home End Page Up and Page Down move through the others
  function rowStop(tr) {
    for (const other of tr.parentElement.querySelectorAll('tr[tabindex="0"]')) if (other !== tr) other.tabIndex = -1;
    tr.tabIndex = 0;
  }

  // a row in view inside its table's own scroll box, under the sticky heading: only the box scrolls
  // (scrollIntoView moves the page too, and the button or the slider under the finger with it)
  function scrollRowInto(tr, box) {
    const head = box.querySelector("thead");
    const b = box.getBoundingClientRect();
    const r = tr.getBoundingClientRect();
    const top = b.top + box.clientTop + (head ? head.offsetHeight : 0);
    const bottom = b.top + box.clientTop + box.clientHeight;
    if (r.top < top) box.scrollTop -= top - r.top;
    else if (r.bottom > bottom) box.scrollTop += Math.min(r.bottom - bottom, r.top - top);
  }

  function focusRow(tr) {
    rowStop(tr);
    tr.focus();
  }

  // a table row: Enter (or Space) does what a click does, the arrows go to another row;
  // ``preview`` runs when it gets the focus (what hovering it shows)
  function rowKeys(tr, activate, preview) {
    tr.addEventListener("keydown", (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey || e.target !== tr) return;
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        activate();
        return;
      }
      const rows = () => [...tr.parentElement.querySelectorAll("tr[data-row]")];
      let next = null;
      if (e.key === "ArrowDown") next = tr.nextElementSibling;
      else if (e.key === "ArrowUp") next = tr.previousElementSibling;
      else if (e.key === "Home") next = rows()[0];
      else if (e.key === "End") next = rows().at(-1);
      else if (e.key === "PageDown" || e.key === "PageUp") {
        const all = rows();
        const i = all.indexOf(tr) + (e.key === "PageDown" ? 10 : -10);
        next = all[Math.max(0, Math.min(all.length - 1, i))];
      } else return;
      e.preventDefault();
      if (next && next.hasAttribute("data-row")) focusRow(next);
    });
    tr.addEventListener("focus", () => rowStop(tr));
    if (preview) {
      tr.addEventListener("focus", preview);
      tr.addEventListener("blur", () => { if (!tr.contains(document.activeElement)) unhover(); });
    }
  }

  // a move shown on the board by a tap or a click: on a narrow screen the board is above, maybe scrolled
  // away: it is brought into view (not for a key: the focus stays in view)
  function boardIntoView(e) {
    if (!e || !e.detail) return;  // a click made by a key (Enter on a button) has no detail
    const box = $("board").getBoundingClientRect();
    const height = window.innerHeight || document.documentElement.clientHeight;
    const seen = Math.min(box.bottom, height) - Math.max(box.top, 0);
    if (seen < box.height * 0.75) {
      const smooth = !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
      $("board").scrollIntoView({ block: "nearest", behavior: smooth ? "smooth" : "auto" });
    }
  }

  // --- previews and the score breakdown ----------------------------------------------------------------
  function hoverMove(m) {
    state.hover = { notation: m.notation, placed: m.placed || [], reclaimed: m.reclaimed || [] };
    renderBoard();
    showBreakdown(m.notation);
  }

  function pinMove(m, tr) {
    state.pinned = state.picked = { notation: m.notation, placed: m.placed || [], reclaimed: m.reclaimed || [] };
    state.hover = null;
    for (const row of document.querySelectorAll("tbody tr.pinned")) {
      row.classList.remove("pinned");
      row.setAttribute("aria-selected", "false");
    }
    if (tr) {
      tr.classList.add("pinned");
      tr.setAttribute("aria-selected", "true");
      rowStop(tr);
    }
    $("move-input").value = m.notation;
    $("verdict").replaceChildren();
    renderBoard();
    showBreakdown(m.notation);
  }

  function unhover() {
    if (!state.hover) return;
    state.hover = null;
    renderBoard();
    if (state.pinned) showBreakdown(state.pinned.notation);
    else clearBreakdown();
  }

  async function scoreOf(notation) {
    const key = `${state.rs.name} ${state.cgp} ${notation}`;
    if (!state.scoreCache.has(key)) {
      if (state.scoreCache.size > 500) state.scoreCache.clear();
      state.scoreCache.set(key, api("/api/score", { cgp: state.cgp, ruleset: state.rs.name, move: notation }));
    }
    return state.scoreCache.get(key);
  }

  let breakdownFor = "";
  async function showBreakdown(notation) {
    breakdownFor = notation;
    let b;
    try {
      b = await scoreOf(notation);
    } catch (e) {
      if (breakdownFor === notation) $("breakdown").replaceChildren(h("div", { class: "errors", text: e.message }));
      return;
    }
    if (breakdownFor !== notation) return;
    const shown = state.hover || state.pinned;
    if (shown && shown.notation === notation) {
      shown.squares = b.words.length ? b.words[0].squares : [];
      renderBoard();
    }
    renderBreakdown(b);
  }

  function clearBreakdown() {
    breakdownFor = "";
    $("breakdown").replaceChildren();
  }

  function renderBreakdown(b) {
    const box = $("breakdown");
    const tiles = new Map(b.tiles.map((t) => [`${t.row},${t.col}`, t]));
    const head = h("h3", {}, words("span", {}, ...moveNodes(b.move)), h("span", { class: "total", text: b.score }));
    const rows = b.words.map((w) => {
      const chips = w.squares.map(([r, c]) => {
        const t = tiles.get(`${r},${c}`);
        const cls = "chip" + (t.new ? "" : " old") + (t.blank ? " blank" : "");
        return h("span", { class: cls }, t.blank ? h("span", { class: "bl", text: t.letter.toLowerCase() }) : t.letter, h("sub", { text: t.points }),
          t.new && t.letter_multiplier > 1 ? h("span", { class: "mult", text: `×${t.letter_multiplier}` }) : null);
      });
      const sum = w.word_multiplier > 1 ? [`${w.sum} × ${w.word_multiplier} = `, h("b", { text: w.score })] : [h("b", { text: w.score })];
      return h("div", { class: "word-row" },
        h("span", { class: "name" }, words("span", {}, w.word), w.main ? null : h("span", { class: "cross", text: "cross" })),
        words("span", { class: "chips" }, chips), h("span", { class: "sum" }, ...sum));
    });
    if (b.bingo) rows.push(h("div", { class: "word-row" }, h("span", { class: "name", text: "bingo" }), h("span", { class: "sum" }, h("b", { text: `+${b.bingo}` }))));
    if (!b.words.length) rows.push(h("div", { class: "subtle", text: b.move === "-" ? "a pass scores nothing" : "an exchange scores nothing" }));
    box.replaceChildren(head, ...rows);
  }

  // --- checking a typed move --------------------------------------------------------------------------
  // a move is checked or played on the position on the page: not while that position has an error
  function positionRefused(out) {
    if (!state.positionError) return false;
    out.replaceChildren(h("span", { class: "illegal", text: "✗ " }), `fix the position first: ${state.positionError}`);
    return true;
  }

  async function checkMove(text) {
    text = text.trim();
    const out = $("verdict");
    if (!text) { out.replaceChildren(); return; }
    await positionRead();
    if (positionRefused(out)) return;
    let v;
    try {
      v = await api("/api/validate", { cgp: state.cgp, ruleset: state.rs.name, move: text });
    } catch (e) {
      out.replaceChildren(h("span", { class: "illegal", text: "✗ " }), humanize(e.message, "move"));
      state.pinned = null;
      renderBoard();
      clearBreakdown();
      return;
    }
    if (v.legal) out.replaceChildren(h("span", { class: "legal", text: "✓ legal" }), ` — scores ${v.score}`);
    else {
      out.replaceChildren(h("span", { class: "illegal", text: "✗ illegal " }), h("span", { class: "reason", text: v.reason }),
        " ", humanize(v.message, "move"));
    }
    try {
      const b = await scoreOf(text);
      state.pinned = { notation: text, placed: b.tiles.filter((t) => t.new).map((t) => [t.row, t.col, t.blank ? t.letter.toLowerCase() : t.letter]),
        reclaimed: b.reclaimed || [] };
      state.hover = null;
      renderBoard();
      showBreakdown(text);
    } catch (e) {
      state.pinned = null;
      renderBoard();
      clearBreakdown();
    }
  }

  // --- loading a CGP -------------------------------------------------------------------------------------
  // the opcodes of a CGP that name its ruleset: the server reads the CGP with that ruleset
  const NAMING_OPCODE = /(?:^|;)\s*(?:ld|bdn)\s+[^\s;]/;

  // a CGP typed in the CGP field, or the address's; ``rulesetName`` (the address's) reads it with
  // that ruleset, else its ld/bdn opcode's, else the ruleset picked (or the one of its board's size)
  async function loadCgp(text, rulesetName) {
    text = text.trim();
    state.keptCgpError = false;
    state.lastEdit = "cgp";
    const fields = text.split(/\s+/);
    const rows = fields[0].split("/").length;
    let name = rulesetName || state.rs.name;
    const named = !rulesetName && NAMING_OPCODE.test(fields.slice(4).join(" "));
    if (!rulesetName && !named && state.rulesets[name].rows !== rows) {
      const fit = Object.values(state.rulesets).find((rs) => rs.rows === rows);
      if (fit) name = fit.name;
    }
    let pos;
    try {
      pos = await api("/api/position", named ? { cgp: text } : { cgp: text, ruleset: name });
      if (pos.racks.length > 2) {
        throw new Error(`the CGP has ${pos.racks.length} racks: this page plays a game of two players ` +
          "(To move and Opponent): give two racks, e.g. 'AEINRST/' with the scores '0/0'");
      }
    } catch (e) {
      fieldError("cgp-error", humanize(e.message, "cgp"));
      state.keptCgpError = true;  // until the user changes something: a refresh does not wipe it
      if (e.server) say(e.message);
      return false;
    }
    fieldError("cgp-error", "");
    dropAside();
    applyPosition(pos);
    await refreshNow();
    return true;
  }

  function applyPosition(pos) {
    if (pos.ruleset !== state.rs.name) setRuleset(pos.ruleset);
    state.board = pos.board.map((row) => row.slice());
    dropCompose();  // a tile being typed is not typed on another position
    state.lastPut = null;
    $("rack0").value = pos.racks[0];
    $("rack1").value = pos.racks[1] || "";
    $("score0").value = pos.scores[0];
    $("score1").value = pos.scores[1] ?? 0;
    state.zeroTurns = pos.zero_turns;
    const fields = pos.cgp.split(" ");
    state.opcodes = fields.slice(4).join(" ");
    state.pinned = state.hover = null;
    state.cgp = pos.cgp;
    $("cgp").value = pos.cgp;
    clearBreakdown();
    $("verdict").replaceChildren();
    renderBoard();
    positionShown(pos.cgp);
  }

  // --- games --------------------------------------------------------------------------------------------
  // the bytes of a file in base64 (the server reads them in the record's encoding, as the library does)
  function base64(bytes) {
    let bin = "";
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(bin);
  }

  // a file's text for the text box when the server could not read it: UTF-8, else Latin-1
  function fileText(bytes) {
    try { return new TextDecoder("utf-8", { fatal: true }).decode(bytes); } catch (e) { return new TextDecoder("latin1").decode(bytes); }
  }

  async function loadGameFile(file) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const most = state.limits.max_gcg_bytes;
    if (most && bytes.length > 2 * most + 2) {  // even as UTF-16 it is more than the server reads
      closeGame();
      fieldError("gcg-error", `the file ${file.name} has ${bytes.length.toLocaleString("en")} bytes: this server reads ` +
        `game records of at most ${most.toLocaleString("en")} bytes (its max_gcg_bytes limit)`);
      return;
    }
    const g = await loadGame({ data: base64(bytes) });
    $("gcg-text").value = g && g.text !== undefined ? g.text : fileText(bytes);
  }

  // the game of a GCG record (``source``: {text} or {data}); the answer, or null after showing why not
  async function loadGame(source) {
    if (source.text !== undefined && !source.text.trim()) {
      closeGame();
      fieldError("gcg-error", "paste a GCG record or choose a file first");
      return null;
    }
    const most = state.limits.max_gcg_bytes;
    const size = source.text !== undefined && most ? new TextEncoder().encode(source.text).length : 0;
    if (size > most) {  // not sent: the server would refuse it (a body over max_body is not even read)
      closeGame();
      fieldError("gcg-error", `the record pasted has ${size.toLocaleString("en")} bytes: this server reads ` +
        `game records of at most ${most.toLocaleString("en")} bytes (its max_gcg_bytes limit)`);
      return null;
    }
    let g;
    const button = $("gcg-form").querySelector("button[type=submit]");
    working(button, true);
    fieldError("gcg-error", "");
    $("gcg-busy").textContent = "reading and analysing the game…";
    try {
      g = await api("/api/gcg", source);
    } catch (e) {
      // a record that names no ruleset, spelled in the letters of the one picked: read with it
      const fits = /pass the ruleset to use \(([^)]*)\)/.exec(e.message);
      if (fits && !source.ruleset && fits[1].split(/ or |, /).map((n) => n.trim()).includes(state.rs.name)) {
        return await loadGame({ ...source, ruleset: state.rs.name });
      }
      closeGame();  // the game shown before is not this record's
      fieldError("gcg-error", humanize(e.message, "game"));
      if (e.server) say(e.message);
      return null;
    } finally {
      working(button, false);
      $("gcg-busy").textContent = "";
    }
    if (g.players.length > 2) {  // as a CGP of more racks: the board and the racks here are two players'
      closeGame();
      fieldError("gcg-error", `the record is a game of ${g.players.length} players (${g.players.map((n) => shorten(n, 40)).join(", ")}): ` +
        "this page shows games of two players (To move and Opponent); analyse it with 'racksmith analyze FILE'");
      return null;
    }
    fieldError("gcg-error", "");
    if (g.ruleset !== state.rs.name) setRuleset(g.ruleset);
    dropAside();
    showGame(g);
    showTurn(1);
    return g;
  }

  // a game read: its players and scores, its errors, its turns (the turn shown is the caller's)
  function showGame(g) {
    state.game = g;
    $("game").hidden = false;
    const names = g.players;
    const best = Math.max(...g.final_scores);
    $("game-summary").replaceChildren(...names.flatMap((n, i) => [
      i ? " – " : "", h("span", { class: g.final_scores[i] === best ? "winner" : "" }, `${shorten(n, 80)} ${g.final_scores[i]}`)]),
      h("span", { class: "subtle", text: ` · ${g.turns.length} turn${g.turns.length === 1 ? "" : "s"}${g.complete ? "" : g.errors.length ? " · replayed with errors" : " · not finished"}` +
        (g.analysis ? ` · analysed with ${g.analysis.lexicon}${g.analysis.leaves ? " and leaves" : ", no leaves"}` : "") }));
    const errs = g.errors.map((e) => h("div", { text: (e.line ? `line ${e.line}: ` : "") + humanize(e.message, "game") }));
    if (g.analysis_error) errs.push(h("div", { text: `analysis: ${humanize(g.analysis_error, "game")}` }));
    for (const note of g.notes || []) errs.push(h("div", { class: "note", text: `note: ${humanize(note, "game")}` }));
    $("game-errors").replaceChildren(...errs);
    const slider = $("turn");
    slider.max = g.turns.length + 1;
    renderTurnsTable();
    renderPlayers();
  }

  // no game shown (another record failed to load, or another ruleset was picked)
  function closeGame() {
    state.game = null;
    state.turn = 1;
    $("game").hidden = true;
    $("game-summary").replaceChildren();
    $("game-errors").replaceChildren();
    $("turn-card").replaceChildren();
    $("turn-label").textContent = "";
    $("turn").removeAttribute("aria-valuetext");
    $("turns").querySelector("tbody").replaceChildren();
    renderPlayers();
  }

  function analysisOf(n) {
    const a = state.game.analysis;
    return a ? a.turns[n - 1] : null;
  }

  const signed = (n) => (n > 0 ? `+${n}` : String(n));
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

  // the endgame solver's verdict on a turn played with the bag empty (analysis.turns[].endgame), in words:
  // its values are the spread each move gives the mover by the end of the game, best play after it
  function endgameWords(e) {
    return `endgame solver: ${e.lost === 0 ? "best play" : `lost ${plural(e.lost, "point")}`}; spread by the end of ` +
      `the game: played ${signed(e.played_value)}` + (e.lost !== 0 && e.best ? `, best ${e.best} ${signed(e.value)}` : "") +
      (e.exact ? " (exact)" : " (not exact: the time ran out)");
  }

  // a move of the analysis as a button that shows it on the board
  function moveButton(notation) {
    const move = words("button", { type: "button", class: "move-button", title: "show it on the board" }, ...moveNodes(notation));
    move.addEventListener("mouseenter", () => previewNotation(notation, false));
    move.addEventListener("mouseleave", unhover);
    move.addEventListener("focus", () => previewNotation(notation, false));
    move.addEventListener("blur", unhover);
    move.addEventListener("click", (ev) => { previewNotation(notation, true); boardIntoView(ev); });
    return move;
  }

  // the players' summary of the analysis (analysis.players): a row each. The points the endgame
  // solver says each lost with the bag empty (endgame_lost, or added up from the turns when the
  // analysis has no such key), a simulation's roll-up (win_pct_lost, grades; null without one), the
  // plays challenged off and the turns lost to a failed challenge, each a column when some player has it
  function renderPlayers() {
    const g = state.game;
    const a = g && g.analysis;
    const box = $("players-summary");
    const table = $("players-table");
    if (!a || !a.players || !a.players.length) {
      box.hidden = true;
      table.querySelector("thead").replaceChildren();
      table.querySelector("tbody").replaceChildren();
      return;
    }
    const endgame = new Map();
    for (const p of a.players) {
      if (p.endgame_turns !== undefined && p.endgame_turns !== null) {
        if (p.endgame_turns) endgame.set(p.player, { turns: p.endgame_turns, lost: p.endgame_lost, exact: !p.endgame_inexact });
      }
    }
    if (!a.players.some((p) => p.endgame_turns !== undefined && p.endgame_turns !== null)) {
      for (const t of a.turns) {  // an analysis without the players' endgame keys: from the turns
        if (!t.endgame) continue;
        const sum = endgame.get(t.player) || { turns: 0, lost: 0, exact: true };
        sum.turns += 1;
        sum.lost += t.endgame.lost;
        sum.exact = sum.exact && t.endgame.exact;
        endgame.set(t.player, sum);
      }
    }
    const has = (k) => a.players.some((p) => p[k] !== null && p[k] !== undefined && p[k] !== 0);
    const simulated = has("sim_turns");  // (without a simulation the grades are the endgame's only)
    const extra = [["win_pct_lost", "win% lost"], ["grades", "grades"], ["challenged_off", "challenged off"],
      ["failed_challenges", "failed challenges"]]
      .filter(([k]) => (k === "challenged_off" || k === "failed_challenges" || simulated) && has(k));
    const col = (text, num = true) => h("th", { scope: "col", class: num ? "num" : null, text });
    table.querySelector("thead").replaceChildren(h("tr", {}, col("player", false), col("turns"), col("best moves"),
      col("equity lost"), col("per turn"), col("bingos"), col("bingos missed of chances"),
      endgame.size ? col("endgame points lost") : null, ...extra.map(([, title]) => col(title))));
    table.querySelector("tbody").replaceChildren(...a.players.map((p) => {
      const e = endgame.get(p.player);
      return h("tr", {},
        h("th", { scope: "row", class: "nick", text: shorten(p.player, 40) }),
        h("td", { class: "num", text: p.turns }),
        h("td", { class: "num", text: `${p.best_moves} of ${p.ranked_turns}` }),
        h("td", { class: "num", text: p.equity_lost.toFixed(1) }),
        h("td", { class: "num", text: p.mean_equity_lost === null ? "" : p.mean_equity_lost.toFixed(2) }),
        h("td", { class: "num", text: p.bingos_played }),
        h("td", { class: "num", text: `${p.bingos_missed} of ${p.bingo_chances}` }),
        endgame.size ? h("td", { class: "num", text: e ? `${e.exact ? "" : "≈"}${e.lost} in ${plural(e.turns, "turn")}` : "" }) : null,
        ...extra.map(([k]) => h("td", { class: "num", text: summaryValue(p[k]) })));
    }));
    box.hidden = false;
  }

  // a value the analysis adds to a player's summary, as text: a number (one decimal unless whole), a
  // count per name ({best: 3, mistake: 1}: "best 3, mistake 1"), a list
  function summaryValue(v) {
    if (v === null || v === undefined) return "";
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(1);
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (Array.isArray(v)) return v.map(summaryValue).join(", ");
    if (typeof v === "object") return Object.entries(v).map(([k, x]) => `${k.replace(/_/g, " ")} ${summaryValue(x)}`).join(", ");
    return String(v);
  }

  function renderTurnsTable() {
    const g = state.game;
    const body = $("turns").querySelector("tbody");
    body.replaceChildren();
    g.turns.forEach((t) => {
      const a = analysisOf(t.turn);
      const lost = a && a.equity_lost !== null ? a.equity_lost : null;
      // with the bag empty the endgame solver's verdict is the turn's: the points it lost, not the equity
      const e = a && a.endgame ? a.endgame : null;
      const rankCell = e ? h("td", { class: "num" }, h("span", { class: "tag ex", text: "endgame" }))
        : h("td", { class: "num" + (a && a.rank === 1 ? " rank1" : ""), text: a && a.rank !== null ? a.rank : "" });
      const lostCell = e ? h("td", { class: "num lost" + (e.lost > 10 ? " big" : "") + (e.lost === 0 ? " rank1" : ""),
        text: `${e.exact ? "" : "≈"}${e.lost} pt${e.lost === 1 ? "" : "s"}` })
        : h("td", { class: "num lost" + (lost > 10 ? " big" : ""), text: lost === null ? "" : lost.toFixed(1) });
      const tr = h("tr", { "data-turn": t.turn, "data-row": "", tabindex: t.turn === 1 ? 0 : -1, "aria-selected": "false",
        title: (e ? endgameWords(e) + ". " : "") + "Enter: show this turn" },
        h("td", { class: "num", text: t.turn }),
        h("td", { class: "nick", text: shorten(t.nick, 40) }),
        words("td", { class: "move rack" }, ...rackNodes(shorten(t.rack, 40))),
        words("td", { class: "move" }, ...(turnMove(t) ? moveNodes(shorten(t.move, 60)) : [shorten(t.move, 60)]),
          t.withdrawn ? h("span", { class: "tag ex", text: "withdrawn" }) : null,
          a && a.failed_challenge ? h("span", { class: "tag ex", text: "failed challenge" }) : null,
          t.bingo && !t.withdrawn ? h("span", { class: "tag", text: "bingo" }) : null),
        h("td", { class: "num", text: t.score }),
        rankCell,
        lostCell);
      tr.addEventListener("click", () => showTurn(t.turn));
      rowKeys(tr, () => showTurn(t.turn));
      body.append(tr);
    });
  }

  // the move a turn played, for the Check field: a placement, an exchange or a pass ("" for others)
  function turnMove(t) {
    if (!t) return "";
    if (t.kind !== undefined) return ["play", "exchange", "pass"].includes(t.kind) ? t.move : "";
    return t.placed.length || /^-/.test(t.move) ? t.move : "";
  }

  // the turn shown: the slider (and what it says), the label, the row of the turns table, the card
  function markTurn(n) {
    const g = state.game;
    state.turn = n;
    const slider = $("turn");
    slider.value = n;
    const said = n <= g.turns.length ? `turn ${n} of ${g.turns.length}` : "end of the game";
    slider.setAttribute("aria-valuetext", said);
    $("turn-label").textContent = said;
    for (const tr of $("turns").querySelectorAll("tbody tr")) {
      const current = +tr.dataset.turn === n;
      tr.classList.toggle("current", current);
      tr.setAttribute("aria-selected", current ? "true" : "false");
    }
    const cur = $("turns").querySelector("tbody tr.current");
    if (cur) {
      scrollRowInto(cur, $("turns-wrap"));
      rowStop(cur);
    }
    renderTurnCard(g.turns[n - 1], analysisOf(n));
  }

  async function showTurn(n) {
    const g = state.game;
    if (!g) return;
    n = Math.max(1, Math.min(g.turns.length + 1, n));
    markTurn(n);
    const t = g.turns[n - 1];
    const cgp = t ? t.cgp : g.end_cgp;
    // the Check field holds this turn's move (none at the end of the game), never an earlier turn's
    $("move-input").value = turnMove(t);
    $("verdict").replaceChildren();
    if (!cgp) {  // the record's errors make that position impossible: an empty board, not the last one shown
      const rs = state.rs;
      state.board = Array.from({ length: rs.rows }, () => Array(rs.cols).fill(""));
      state.zeroTurns = 0;
      state.opcodes = "";
      state.pinned = state.hover = null;
      $("rack0").value = $("rack1").value = "";
      $("score0").value = $("score1").value = "0";
      clearBreakdown();
      renderBoard();
      $("turn-card").append(h("div", { class: "note",
        text: "The record does not give the position before this turn (its errors are above): the board is left empty." }));
      await refreshNow();
      return;
    }
    let pos;
    try {
      pos = await api("/api/position", { cgp, ruleset: g.ruleset });
    } catch (e) {
      say(e.message);
      return;
    }
    if (state.turn !== n || state.game !== g) return;
    applyPosition(pos);
    $("move-input").value = turnMove(t);
    await refreshNow();
    if (state.turn !== n || state.game !== g) return;
    if (t && t.placed.length) {
      state.pinned = { notation: t.move, placed: t.placed, reclaimed: t.reclaimed || [] };
      renderBoard();
      showBreakdown(t.move);
    }
  }

  function renderTurnCard(t, a) {
    const card = $("turn-card");
    if (!t) {
      const g = state.game;
      card.replaceChildren(h("div", { class: "line1" }, h("span", { text: "Final scores: " + g.players.map((p, i) => `${shorten(p, 80)} ${g.final_scores[i]}`).join(", ") })));
      return;
    }
    const line1 = h("div", { class: "line1" },
      h("span", {}, h("b", { text: shorten(t.nick, 80) }), " with ",
        t.rack ? words("span", {}, ...rackNodes(shorten(t.rack, 120))) : "(rack not recorded)",
        t.rack && t.rack_complete === false ? " (in part)" : ""),
      h("span", {}, "played ", words("span", { class: "played" }, ...(turnMove(t) ? moveNodes(shorten(t.move, 120)) : [shorten(t.move, 120)])),
        ` ${t.score >= 0 ? "+" : ""}${t.score}`, t.withdrawn ? " (withdrawn)" : ""));
    const parts = [line1];
    const rackShort = t.rack_complete === false;
    if (rackShort) {
      // the position before this turn leaves the mover's rack empty: say why no move is listed
      parts.push(h("div", { class: "note", text: (t.rack ? "The record shows only the tiles played from this rack"
        : "The record does not show this rack") + ": type the whole rack in the rack field to list the moves." }));
    }
    if (a) {
      const e = a.endgame;
      if (e) {
        // the bag empty: the endgame solver's verdict is the turn's (the spread each move gives by the
        // end of the game), the rank by equity only a hint beside it
        parts.push(h("div", { class: "endgame-verdict" },
          "endgame solver: ", h("span", { class: e.lost === 0 ? "rank best" : "rank lost",
            text: e.lost === 0 ? "best play" : `lost ${plural(e.lost, "point")}` }),
          ` · spread by the end of the game: played ${signed(e.played_value)}`,
          e.lost !== 0 && e.best ? [", best ", moveButton(e.best), ` ${signed(e.value)}`] : null,
          e.exact ? " · exact" : " · not exact (the time ran out: the values of the last depth searched)"));
      }
      if (a.rank !== null) {
        const cls = e ? "" : a.rank === 1 ? "rank best" : a.equity_lost > 10 ? "rank lost" : "rank";
        parts.push(h("div", { class: e ? "subtle" : null }, e ? "by equity: " : null,
          h("span", { class: cls, text: a.rank === 1 ? "best move" : `rank ${a.rank}` }),
          ` of ${a.moves} · equity ${a.equity.toFixed(2)}` + (a.equity_lost ? ` · lost ${a.equity_lost.toFixed(2)}` : "") +
          (a.bingo_missed ? " · missed a bingo" : "")));
      }
      if (a.note && !rackShort) {  // (a rack in part: said above, with what to do)
        parts.push(h("div", { class: "note", text: humanize(a.note, "game") }));
      }
      if (a.best.length) {
        const list = h("ol", { "aria-label": e ? "The best moves by equity" : "The best moves" });
        for (const c of a.best) {
          // the move is a button (it shows itself on the board); its points are words apart from it
          const move = words("button", { type: "button", class: "move-button", title: "show it on the board" }, ...moveNodes(c.move));
          const li = h("li", {}, move, " ",
            h("span", { class: "s", text: `${c.score} pts · equity ${c.equity.toFixed(2)}${c.bingo ? " · bingo" : ""}` }));
          li.addEventListener("mouseenter", () => previewNotation(c.move, false));
          li.addEventListener("mouseleave", unhover);
          li.addEventListener("click", (e) => { previewNotation(c.move, true); boardIntoView(e); });
          move.addEventListener("focus", () => previewNotation(c.move, false));
          move.addEventListener("blur", unhover);
          list.append(li);
        }
        parts.push(list);
      }
    }
    card.replaceChildren(...parts);
  }

  async function previewNotation(notation, pin) {
    let b;
    try { b = await scoreOf(notation); } catch (e) { return; }
    const shown = { notation, placed: b.tiles.filter((t) => t.new).map((t) => [t.row, t.col, t.blank ? t.letter.toLowerCase() : t.letter]),
      reclaimed: b.reclaimed || [] };
    if (pin) { state.pinned = state.picked = shown; state.hover = null; $("move-input").value = notation; } else state.hover = shown;
    renderBoard();
    showBreakdown(notation);
  }

  // --- playing on: a move, undo, redo, export -------------------------------------------------------------
  // one recording action at a time (Play, Play it anyway, Undo, Redo, Challenge, Take off): each reads the
  // position and the history, waits for the server, then changes them; a second one started meanwhile (a
  // double-click, Play pressed again before the answer) would work on what the first is about to replace
  // (the move recorded twice, the board once). While one runs the others are ignored, their buttons shown
  // busy (aria-disabled: the focus stays on them)
  let recording = false;
  const RECORDING_BUTTONS = ["play", "play-bar-button", "play-phony", "undo", "redo", "challenge", "time-penalty"];
  function markRecording(on) {
    for (const id of RECORDING_BUTTONS) if ($(id)) working($(id), on);
  }
  async function recordAction(action) {
    if (recording) return false;
    recording = true;
    markRecording(true);
    try {
      return await action();
    } finally {
      recording = false;
      markRecording(false);
    }
  }

  // what Play does (the button under the move field, and the Play bar): play the move in the field.
  // From the bar, far from the field, a refusal is brought into view (a move played shows on the board)
  async function playTyped(fromBar) {
    const played = await playMove($("move-input").value);
    if (!played && fromBar) $("verdict").scrollIntoView({ block: "nearest" });
    return played;
  }

  // a move picked from a list (tapped in the Moves, a best play) on a narrow screen is shown on the board,
  // far above Play: while Play is out of view, a bar at the foot of the screen plays it (what Play does)
  let playInView = true;
  function updatePlayBar() {
    const bar = $("play-bar");
    const p = state.picked;
    const picked = p && p === state.pinned && $("move-input").value.trim() === p.notation ? p.notation : null;
    if (picked && bar.dataset.move !== picked) {
      bar.dataset.move = picked;
      $("play-bar-move").replaceChildren(...moveNodes(picked));
    }
    const off = !picked || playInView;
    // (a bar going away with the focus hands it to Play, whose place it took)
    if (off && !bar.hidden && bar.contains(document.activeElement)) $("play").focus({ preventScroll: true });
    bar.hidden = off;
  }

  // ``redoing``: the move is the next of the moves undone; any other move starts a new line of play
  // and the moves undone can no longer be redone (the history and its export are the moves played).
  // ``unchecked``: a play whose words the lexicon lacks stands until challenged (a game recorded as played)
  async function playMove(text, draw, redoing = false, unchecked = false) {
    text = (text || "").trim();
    const out = $("verdict");
    if (!text) { out.replaceChildren(h("span", { class: "illegal", text: "✗ " }), "type a move to play (8D WORD, -ABC, -)"); return false; }
    await positionRead();
    if (positionRefused(out)) return false;
    const before = state.cgp;
    const base = state.played[state.played.length - 1] || null;
    const body = { cgp: before, ruleset: state.rs.name, move: text };
    if (revealedMover()) body.hidden = true;  // (his rack seen, his draw not)
    else if (draw !== undefined) body.draw = draw;
    if (unchecked) body.check_words = false;
    let r;
    try {
      r = await api("/api/play", body);
    } catch (e) {
      const phony = !unchecked && e.data && e.data.reason === "invalid_words";
      out.replaceChildren(h("span", { class: "illegal", text: "✗ cannot play " }),
        e.data && e.data.reason ? h("span", { class: "reason", text: e.data.reason }) : "", " ", humanize(e.message, "move"),
        // recording a game as it is played: a phony stands until it is challenged
        phony ? " " : "", phony ? phonyButton(text, draw) : "");
      return false;
    }
    if (!(await keepAction({ cgp: before, move: r.move, draw: r.drawn, score: r.score, rack: r.rack, ending: r.ending,
      place: r.kind === "place", phony: r.phony || [], unchecked }, r, redoing, base))) return false;
    $("move-input").value = "";
    out.replaceChildren(h("span", { class: "legal", text: "✓ played " }), words("span", {}, ...moveNodes(r.move)), ` +${r.score}`,
      r.drawn ? ", drew " : "", r.drawn ? words("span", {}, ...rackNodes(r.drawn)) : "",
      r.phony && r.phony.length ? ` · not in the lexicon: ${r.phony.join(", ")} (it stands until challenged)` : "",
      r.over ? ` · the game is over${r.position.final === false ? "; its scores are not final (a rack not known is not counted)" : ""}` : "");
    return true;
  }

  function phonyButton(text, draw) {
    const b = h("button", { type: "button", id: "play-phony", text: "Play it anyway" });
    b.title = "a phony stands until it is challenged (Challenge, in the Play tab)";
    b.addEventListener("click", () => recordAction(async () => {
      if (await playMove(text, draw, false, true)) $("play").focus();
    }));
    return b;
  }

  // an action of the game played on the page (a move, a challenge, a time penalty) is kept in its history,
  // with the position it left (``after``), and that position is shown. ``base``: the last action of the
  // history when this one was asked for. An action that does not start where the history ends is refused
  // (false, said in the verdict): another was recorded meanwhile, or the board is not the one the last
  // action left (the racks and the scores may be typed in between: the export says a score changed by hand)
  async function keepAction(entry, r, redoing, base) {
    if (state.played.length && state.playedRuleset !== state.rs.name) state.played = [];
    const last = state.played[state.played.length - 1] || null;
    const why = base !== undefined && last !== base ? ["another action was recorded meanwhile: look at the board and the history first"]
      : last && boardField(entry.cgp) !== boardField(last.after) ? ["the board is not the one the game played here left (after ",
        ...actionNodes(last), "): put its tiles back as they were, or Undo back to it; Clear starts another game"] : null;
    if (why) {
      $("verdict").replaceChildren(h("span", { class: "illegal", text: "✗ not recorded: " }), ...why);
      return false;
    }
    entry.after = r.cgp;
    state.played.push(entry);
    state.playedRuleset = state.rs.name;
    if (!redoing) state.undone = [];
    applyPosition(r.position);
    await refreshNow();
    renderHistory();
    return true;
  }

  // turns taken in the game played on the page (a turn lost to a failed challenge is one): the seat to
  // move, 0 for the first player (p1 in the export)
  const turnsTaken = () => state.played.filter((p) => !p.kind || (p.kind === "challenge" && p.event === "pass")).length;
  // the player to move is a hidden opponent whose whole rack a phony taken back showed (``revealed``; the
  // challenger played since): what he draws is not seen, so his play is sent ``hidden``, not drawn at random
  function revealedMover() {
    const since = [];  // the turns taken since, oldest first: true for one that drew nothing
    let withdrawn = false;  // (the play before a phony taken back: a turn lost)
    for (let i = state.played.length - 1; i >= 0; i--) {
      const p = state.played[i];
      if (p.kind === "challenge" && p.event === "phony") {
        if (p.revealed === true) {
          // the challenger moved first, then they alternate: the revealed player is to move after an odd
          // count, and is still revealed if no turn of his since drew (a pass, a failed challenge, or
          // another phony taken back, whose answer says nothing of a rack known already)
          return since.length % 2 === 1 && since.every((lost, k) => k % 2 === 0 || lost);
        }
        withdrawn = true;
        continue;
      }
      if (!p.kind) {
        since.unshift(withdrawn || p.move === "-");
        withdrawn = false;
      } else if (p.kind === "challenge" && p.event === "pass") since.unshift(true);
    }
    return false;
  }

  // the play a challenge may take on: the last action, a placement not challenged yet
  function challengeable() {
    const last = state.played[state.played.length - 1];
    return last && !last.kind && last.place ? last : null;
  }

  // the player to move challenges the last play: the server rules it (a phony is taken back; else the
  // challenge rule's points to its player, or, under the double challenge, the challenger loses his turn)
  async function challenge(bonus, redoing = false) {
    const out = $("verdict");
    const last = challengeable();
    if (!last) return false;
    if (bonus === undefined) bonus = Number($("challenge-rule").value);
    await positionRead();
    if (positionRefused(out)) return false;
    const before = state.cgp;
    const base = state.played[state.played.length - 1] || null;
    let r;
    try {
      r = await api("/api/play", { cgp: before, ruleset: state.rs.name, challenge: { cgp: last.cgp, move: last.move, bonus } });
    } catch (e) {
      out.replaceChildren(h("span", { class: "illegal", text: "✗ cannot challenge: " }), humanize(e.message, "play"));
      return false;
    }
    const play = words("span", {}, ...moveNodes(r.move));
    if (r.event === null) {  // (a double challenge of a play that went out: no turn is left to lose)
      out.replaceChildren(h("span", { class: "legal", text: "✓ " }), play, " stands: every word is in the lexicon, and the game is over: no turn is lost");
      return false;
    }
    if (!(await keepAction({ kind: "challenge", cgp: before, event: r.event, score: r.score, bonus, move: r.move, words: r.phony,
      revealed: r.revealed === true }, r, redoing, base))) return false;
    out.replaceChildren(h("span", { class: "legal", text: "✓ challenged: " }), play,
      r.event === "phony" ? ` is taken back (not in the lexicon: ${r.phony.join(", ")}), ${r.score}` :
        r.event === "challenge" ? ` stands (every word is in the lexicon): +${r.score} to its player` :
          " stands (every word is in the lexicon): the challenger loses his turn");
    return true;
  }

  // a time penalty: points taken from the score of the player to move (0) or the other (1)
  async function timePenalty(player, points, redoing = false) {
    const out = $("verdict");
    if (!state.played.length) return false;
    fieldError("export-error", "");
    try {
      if (player === undefined) player = Number($("time-player").value);
      if (points === undefined) points = numberField("time-points", "The time penalty", 1, 999999999);
    } catch (e) {
      tabError("export-error", e, "play");
      return false;
    }
    await positionRead();
    if (positionRefused(out)) return false;
    const before = state.cgp;
    const base = state.played[state.played.length - 1] || null;
    const seat = (turnsTaken() + player) % 2;
    let r;
    try {
      r = await api("/api/play", { cgp: before, ruleset: state.rs.name, time: { player, points } });
    } catch (e) {
      fieldError("export-error", humanize(e.message, "play"));
      return false;
    }
    if (!(await keepAction({ kind: "time", cgp: before, player, seat, points, score: r.score }, r, redoing, base))) return false;
    out.replaceChildren(h("span", { class: "legal", text: "✓ " }), `time penalty: ${r.score} to p${seat + 1} (${player ? "Opponent" : "To move"})`);
    return true;
  }

  async function undo() {
    const last = state.played[state.played.length - 1];
    if (!last) return;
    if (!(await loadPlayedPosition(last.cgp))) return;
    if (state.played[state.played.length - 1] !== last) return;  // (another action changed the history meanwhile)
    state.undone.push(state.played.pop());
    renderHistory();
  }

  async function redo() {
    const next = state.undone[state.undone.length - 1];
    if (!next) return;
    if (!(await loadPlayedPosition(next.cgp))) return;
    if (state.undone[state.undone.length - 1] !== next) return;  // (another action changed the history meanwhile)
    const done = next.kind === "challenge" ? await challenge(next.bonus, true)
      : next.kind === "time" ? await timePenalty(next.player, next.points, true)
        : await playMove(next.move, next.draw, true, next.unchecked);
    if (done && state.undone[state.undone.length - 1] === next) state.undone.pop();
    renderHistory();
  }

  async function loadPlayedPosition(cgp) {
    let pos;
    try {
      pos = await api("/api/position", { cgp, ruleset: state.playedRuleset || state.rs.name });
    } catch (e) {
      fieldError("export-error", humanize(e.message, "play"));
      return false;
    }
    applyPosition(pos);
    await refreshNow();
    return true;
  }

  // the game played on the page is forgotten (Clear, another ruleset)
  function clearPlayed() {
    state.played = [];
    state.undone = [];
    state.playedRuleset = null;
    renderHistory();
  }

  // an action of the history, as its list shows it
  function actionNodes(p) {
    if (p.kind === "challenge") {
      return [h("span", { class: "played" }, "challenge"), p.event === "phony" ? `: taken back ${p.score}`
        : p.event === "challenge" ? `: stands, +${p.score}` : ": failed, turn lost"];
    }
    if (p.kind === "time") return [h("span", { class: "played" }, "time penalty"), ` p${p.seat + 1} ${p.score}`];
    const out = [words("span", { class: "played" }, ...moveNodes(p.move)), ` +${p.score}`];
    if (p.phony && p.phony.length) out.push(h("span", { class: "tag ex", text: "not in the lexicon" }));
    return out;
  }

  function renderHistory() {
    const list = $("history");
    const items = state.played.map((p) => h("li", {}, ...actionNodes(p),
      p.rack ? "  (" : "", p.rack ? words("span", {}, ...rackNodes(p.rack)) : "", p.rack ? ")" : ""));
    // a move undone is struck through and says so (in words, not only in its colour and line)
    const undone = state.undone.slice().reverse().map((p) => h("li", { class: "undone" },
      ...actionNodes(p), h("span", { class: "tag ex", text: "undone" })));
    list.replaceChildren(...items, ...undone);
    // a button pressed that has nothing more to do hands the focus to one that has (Undo to Redo)
    const buttons = [["undo", !state.played.length], ["redo", !state.undone.length], ["export", !state.played.length],
      ["challenge", !challengeable()], ["time-penalty", !state.played.length]];
    const focused = buttons.find(([id, off]) => off && document.activeElement === $(id));
    for (const [id, off] of buttons) if (!off) $(id).disabled = false;
    if (focused) {
      const other = buttons.find(([, off]) => !off);
      if (other) $(other[0]).focus();
    }
    for (const [id, off] of buttons) if (off) $(id).disabled = true;
    fieldError("export-error", "");
    // an export shown is of the moves played when it was made: gone when they change
    $("export-text").hidden = true;
    $("export-link").hidden = true;
    state.exported = false;
    savePlayed();
  }

  // --- the game played on the page outlives a reload: kept in the tab's sessionStorage with the board it
  // left, and taken back when the address's position has that board (else the history is of another game)
  const SAVED = "racksmith-played";
  const boardField = (cgp) => String(cgp || "").split(" ")[0];
  // the board the history leaves: after its last action, else (everything undone) before the first one
  function historyBoard() {
    if (state.played.length) return boardField(state.played[state.played.length - 1].after);
    return state.undone.length ? boardField(state.undone[state.undone.length - 1].cgp) : "";
  }

  // (a page that has no game of its own leaves the one kept there: the address of its board brings it back)
  function savePlayed() {
    try {
      if (state.played.length || state.undone.length) {
        sessionStorage.setItem(SAVED, JSON.stringify({ ruleset: state.playedRuleset || state.rs.name, board: historyBoard(),
          played: state.played, undone: state.undone, rule: $("challenge-rule").value }));
        state.keeps = true;
      } else if (state.keeps) {
        sessionStorage.removeItem(SAVED);  // (its game cleared)
      }
      state.unsaved = false;
    } catch (e) {
      state.unsaved = true;  // (storage refused: a reload is warned of instead)
    }
  }

  function readSaved() {
    try {
      return JSON.parse(sessionStorage.getItem(SAVED) || "null");
    } catch (e) {
      return null;
    }
  }

  // an action as keepAction keeps it (what the tab's storage gave back is checked: it may have been changed)
  function wellFormedAction(p) {
    const text = (x) => typeof x === "string";
    if (!p || typeof p !== "object" || Array.isArray(p) || !text(p.cgp) || !text(p.after)) return false;
    if (p.kind === undefined) return text(p.move) && (p.draw === undefined || p.draw === null || text(p.draw));
    if (p.kind === "time") return (p.seat === 0 || p.seat === 1) && Number.isInteger(p.points) && Number.isInteger(p.score);
    if (p.kind === "challenge") return ["phony", "challenge", "pass", null].includes(p.event) && Number.isInteger(p.score);
    return false;
  }

  function restorePlayed(saved) {
    if (!saved || saved.ruleset !== state.rs.name || !Array.isArray(saved.played) || !Array.isArray(saved.undone)) return;
    if (![...saved.played, ...saved.undone].every(wellFormedAction)) {  // (changed by hand, or by another version)
      try { sessionStorage.removeItem(SAVED); } catch (e) { /* (storage refused: nothing kept to drop) */ }
      say("The game kept in this tab could not be read back (it was changed or damaged): it was set aside.");
      return;
    }
    let board;
    try { board = boardField(composeCgp()); } catch (e) { board = null; }
    if (board !== saved.board) {  // (the address shows another position: that game is not this board's)
      if (saved.played.length) say("The game played on this page before was not taken back: the address shows another position.");
      return;
    }
    state.played = saved.played;
    state.undone = saved.undone;
    state.playedRuleset = saved.ruleset;
    if (saved.rule !== undefined) setChallengeRule(Number(saved.rule));
    renderHistory();
  }

  // the challenge rule of the game: the points a play that stands gets (0: the double challenge)
  function setChallengeRule(points) {
    const select = $("challenge-rule");
    const value = String(points);
    if (![...select.options].some((o) => o.value === value)) {
      select.append(h("option", { value, text: points ? `${points} points` : "double challenge" }));
    }
    select.value = value;
  }

  // the actions of the history as /api/export takes them: turns, and the events of challenges and penalties
  function exportTurns() {
    return state.played.map((p) => {
      if (p.kind === "time") return { event: "time", player: p.seat, points: p.points };
      if (p.kind === "challenge") {
        if (p.event === "pass") return { cgp: p.cgp, move: "-", failed_challenge: true };
        return p.event === "phony" ? { event: "phony" } : { event: "challenge", points: p.score };
      }
      return { cgp: p.cgp, move: p.move, draw: p.draw };
    });
  }

  async function exportGame() {
    const body = { ruleset: state.playedRuleset || state.rs.name, turns: exportTurns() };
    // the position shown, when it is the one the game left: scores changed by hand are said, not left out
    if (state.cgp && boardField(state.cgp) === historyBoard()) body.end = state.cgp;
    let r;
    try {
      r = await api("/api/export", body);
    } catch (e) {
      fieldError("export-error", humanize(e.message, "play"));
      return;
    }
    fieldError("export-error", "");
    const pre = $("export-text");
    pre.textContent = r.gcg;
    pre.hidden = false;
    const link = $("export-link");
    if (link.href) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(new Blob([r.gcg], { type: "text/plain" }));
    link.hidden = false;
    state.exported = true;
  }

  // --- the fields of the analysis tabs -----------------------------------------------------------------------
  // a number field's value, from ``lo`` to ``hi`` (a whole number unless ``seconds``); "" gives ``empty``
  // when that is allowed. Anything else is an Error saying what to type (never a silent default)
  function numberField(id, label, lo, hi, { seconds = false, empty } = {}) {
    const input = $(id);
    const text = input.value.trim();
    const bad = input.validity && input.validity.badInput;
    if (text === "" && !bad && empty !== undefined) return empty;
    const n = Number(text);
    if (!bad && text !== "" && Number.isFinite(n) && (seconds || /^[-+]?\d+$/.test(text)) && n >= lo && n <= hi) return n;
    const err = new Error(`${label} must be ${seconds ? "a number of seconds" : "a whole number"} from ${lo} to ${hi}` +
      (text ? `, not ${shorten(text, 40)}` : "") + (seconds ? " (this server's max_seconds limit)" : ""));
    err.field = id;
    throw err;
  }

  const maxSeconds = () => (state.limits && state.limits.max_seconds) || 30;

  // the CGP of the position on the page, for an analysis: not while the position has an error
  function currentCgp() {
    if (state.positionError) throw new Error(`fix the position first: ${state.positionError}`);
    return composeCgp();
  }

  // an error of a tab's fields (marked) or of its answer, shown in ``box``
  function tabError(box, e, where) {
    fieldError(box, humanize(e.message, where), e.field || (e.place ? e.place[1] : null));
  }

  // a button whose work is under way (Solve, Find the best play, Load game): aria-disabled, not disabled,
  // so that it keeps the focus (a disabled button drops it to the page); a press meanwhile does nothing
  function working(button, on) {
    if (on) button.setAttribute("aria-disabled", "true");
    else button.removeAttribute("aria-disabled");
  }
  const isWorking = (button) => button.getAttribute("aria-disabled") === "true";

  // ``off`` disables a button; if it had the focus, ``next`` gets it (Run hands it to Stop, and back)
  function disable(button, off, next) {
    if (off && document.activeElement === button && next && !next.disabled) next.focus();
    button.disabled = off;
  }

  // --- the analyses (Simulate, Endgame, Best play) are of the position they were asked for -------------------
  // When another is on the page (a move played or undone, a rack, a score or the board edited, a position, a
  // game's turn or another ruleset loaded) the request of one running is cancelled (as Stop does: its
  // connection closes, the server stops computing) and the result shown for the last position goes.
  // ``analysed``: the CGP each tab's request was sent for (null: nothing of a position shown or running)
  const analysed = { sim: null, endgame: null, best: null };
  let endgameAbort = null;
  let bestAbort = null;

  // ``forms``: the CGPs the position on the page is written as (the server's); the one the fields compose
  // is added (an analysis is asked for that one)
  function positionShown(...forms) {
    let composed = null;
    try { composed = composeCgp(); } catch (e) { /* a score that is no number: no position */ }
    forms.push(composed);
    for (const [kind, cgp] of Object.entries(analysed)) {
      if (cgp !== null && !forms.includes(cgp)) ({ sim: dropSim, endgame: dropEndgame, best: dropBest })[kind]();
    }
  }

  function dropSim() {
    analysed.sim = null;
    const running = simAbort !== null;
    simRun++;
    if (simAbort) simAbort.abort();
    simAbort = null;
    $("sim-run").disabled = false;
    disable($("sim-stop"), true, $("sim-run"));
    $("sim-head").textContent = running ? "stopped: the position changed (Run simulates the one shown now)" : "";
    $("sim-infer-head").textContent = "";
    document.querySelector("#sim tbody").replaceChildren();
    $("sim-legend").hidden = true;
  }

  function dropEndgame() {
    analysed.endgame = null;
    const running = endgameAbort !== null;
    endgameRun++;
    if (endgameAbort) endgameAbort.abort();
    endgameAbort = null;
    working($("endgame-run"), false);
    clearEndgame();
    fieldError("endgame-error", "");
    if (running) $("endgame-head").textContent = "stopped: the position changed (Solve solves the one shown now)";
  }

  function dropBest() {
    analysed.best = null;
    const running = bestAbort !== null;
    bestRun++;
    if (bestAbort) bestAbort.abort();
    bestAbort = null;
    working($("best-run"), false);
    fieldError("best-error", "");
    $("best-head").replaceChildren();
    $("best-summary").textContent = running ? "stopped: the position changed (Find the best play looks at the one shown now)" : "";
  }

  // --- simulation: growing budgets with one seed, each answer extending the last, until stopped ----------------
  let simRun = 0;
  let simAbort = null; // cancels the simulation request running (Stop, another position)
  async function runSim() {
    const run = ++simRun;
    fieldError("sim-error", "");
    $("sim-head").textContent = $("sim-infer-head").textContent = "";
    const seed = Math.floor(Math.random() * 1e9);
    const most = (state.limits && state.limits.max_sim_iterations) || 200000;
    let body;
    try {
      body = {
        cgp: currentCgp(), ruleset: state.rs.name, seed,
        candidates: numberField("sim-candidates", "Candidates", 1, (state.limits && state.limits.max_moves) || 2000),
        plies: numberField("sim-plies", "Plies", 1, state.simMaxPlies || 32),
        leaves: $("leaves").checked, stop: 0.99,
      };
    } catch (e) {
      tabError("sim-error", e, "sim");
      return;
    }
    analysed.sim = body.cgp;
    $("sim-stop").disabled = false;
    disable($("sim-run"), true, $("sim-stop"));
    const infer = $("sim-infer").value.trim();
    if (infer) body.infer = infer;
    $("sim-head").textContent = "simulating…";
    $("sim-infer-head").textContent = infer ? `inferring the opponent's rack from ${shorten(infer, 60)}…` : "";
    const abort = simAbort = new AbortController();
    try {
      for (let iterations = 500; run === simRun; iterations *= 2) {
        const data = await api("/api/sim", { ...body, iterations: Math.min(iterations, most) }, abort.signal);
        if (run !== simRun) break;
        showSim(data);
        if (data.stopped !== "iterations" || iterations >= most) break;
      }
    } catch (e) {
      if (run === simRun) { $("sim-head").textContent = humanize(e.message, "sim"); $("sim-infer-head").textContent = ""; }
    } finally {
      if (run === simRun) {
        $("sim-run").disabled = false;
        disable($("sim-stop"), true, $("sim-run"));
        simAbort = null;
      }
    }
  }

  // Stop: the request running is cancelled (its connection closed, so the server stops computing)
  // and the head says so, after the last answer shown if any
  function stopSim() {
    simRun++;
    if (simAbort) simAbort.abort();
    simAbort = null;
    $("sim-run").disabled = false;
    disable($("sim-stop"), true, $("sim-run"));
    const head = $("sim-head");
    if (head.textContent === "simulating…" || !head.textContent) head.textContent = "stopped before the first answer";
    else if (!head.textContent.endsWith(" · stopped")) head.textContent += " · stopped";
    if ($("sim-infer-head").textContent.startsWith("inferring")) $("sim-infer-head").textContent = "";
  }

  // a figure of the simulation, or "–" when no play-out (or a single one) made it known (null)
  const figure = (x) => (x === null ? "–" : x.toFixed(2));

  function showSim(data) {
    $("sim-head").textContent = `${data.iterations} iterations, ${data.plies} plies, ${data.seconds.toFixed(1)} s (${data.stopped})`;
    const inf = data.inference;
    $("sim-infer-head").textContent = inf ? `the opponent's rack drawn from ${inf.leaves} leaves ${inf.move} may have kept ` +
      `(${inf.exact ? `every one of ${inf.racks_total} racks tried` : `estimated from ${inf.samples} random racks`}); ` +
      `likeliest ${inf.top.map((x) => `${x.leave || "-"} ${(100 * x.probability).toFixed(1)}%`).join(", ")}` : "";
    if (data.note) $("sim-infer-head").textContent = data.note;
    const tbody = document.querySelector("#sim tbody");
    tbody.replaceChildren(...data.candidates.map((c, i) => h("tr", {},
      h("td", { class: "num", text: String(i + 1) }), words("td", { class: "move" }, ...moveNodes(c.move)),
      h("td", { class: "num", text: figure(c.win_pct) }), h("td", { class: "num", text: figure(c.stderr) }),
      h("td", { class: "num", text: figure(c.equity) }), h("td", { class: "num", text: String(c.iterations) }),
      ...replyCells(c))));
    $("sim-legend").hidden = !data.candidates.length;
  }

  // the opponent's reply to a candidate in its play-outs (ply 1 of ply_stats): mean score, bingo %
  function replyCells(c) {
    const ply = (c.ply_stats || [])[0];
    const reached = ply && ply.reached > 0;
    return [h("td", { class: "num", text: reached ? figure(ply.mean_score) : "–" }),
      h("td", { class: "num", text: reached ? figure(100 * ply.bingo_fraction) : "–" })];
  }

  // --- endgame: the bag empty, solved exactly (or to the depth the time allows) ----------------------------
  let endgameRun = 0;
  async function runEndgame() {
    if (isWorking($("endgame-run"))) return;
    const run = ++endgameRun;
    fieldError("endgame-error", "");
    clearEndgame();
    analysed.endgame = null;
    let body;
    try {
      body = {
        cgp: currentCgp(), ruleset: state.rs.name,
        seconds: numberField("endgame-seconds", "Seconds", 0.1, maxSeconds(), { seconds: true }),
        plies: numberField("endgame-plies", "Plies", 1, 60, { empty: null }),
        top: numberField("endgame-top", "Best moves", 1, 20, { empty: 1 }),
      };
    } catch (e) {
      tabError("endgame-error", e, "endgame");
      return;
    }
    $("endgame-head").textContent = "solving…";
    working($("endgame-run"), true);
    analysed.endgame = body.cgp;
    const abort = endgameAbort = new AbortController();
    try {
      const data = await api("/api/endgame", body, abort.signal);
      if (run !== endgameRun) return;
      showEndgame(data);
    } catch (e) {
      if (run === endgameRun) { $("endgame-head").textContent = ""; tabError("endgame-error", e, "endgame"); }
    } finally {
      if (run === endgameRun) {
        working($("endgame-run"), false);
        endgameAbort = null;
      }
    }
  }

  // the Endgame tab without a result
  function clearEndgame() {
    $("endgame-head").textContent = "";
    $("endgame-pv").replaceChildren();
    $("endgame-final").textContent = "";
    $("endgame-top-table").hidden = true;
    $("endgame-top-table").querySelector("tbody").replaceChildren();
    $("endgame-legend").hidden = true;
  }

  // "final: 377 to 330: the player to move wins by 47" (as the command line says it) when the line reaches the end of the game
  function endgameFinal(data) {
    const f = data.final_scores;
    if (!Array.isArray(f) || f.length < 2) return "";
    const spread = data.final_spread;
    const verdict = spread > 0 ? `the player to move wins by ${spread}` :
      spread < 0 ? `the opponent wins by ${-spread}` : "a tie";
    return `final: ${f[0]} to ${f[1]}: ${verdict}` + (data.exact ? "" : " (not exact)");
  }

  function showEndgame(data) {
    const value = data.value > 0 ? `+${data.value}` : String(data.value);
    const how = data.exact ? "exact" : `not exact: ${data.depth} plies searched`;
    $("endgame-head").replaceChildren("best ", words("span", {}, ...moveNodes(data.best)), `, value ${value} (${how}), ` +
      `${data.nodes.toLocaleString()} nodes, ${data.seconds.toFixed(2)} s`);
    // each move with its score (a pass said as one), then how the line ends the game and the result
    const scored = (i) => {
      const step = (data.line || [])[i];
      return step ? [h("span", { class: "subtle", text: ` ${step.score}` })] : [];
    };
    const shown = (m) => (String(m).trim() === "-" ? ["(pass)"] : moveNodes(m));
    $("endgame-pv").replaceChildren(...data.pv.map((m, i) => {
      if (i) return words("li", {}, ...shown(m), ...scored(i));
      // the first move is on this board: a button shows it
      const move = words("button", { type: "button", class: "move-button", title: "show it on the board" }, ...shown(m));
      move.addEventListener("mouseenter", () => previewNotation(m, false));
      move.addEventListener("mouseleave", unhover);
      move.addEventListener("click", (e) => { previewNotation(m, true); boardIntoView(e); });
      return h("li", {}, move, ...scored(i));
    }));
    $("endgame-final").textContent = endgameFinal(data);
    // with more than one best move asked for: each with its value and line (``top``)
    const table = $("endgame-top-table");
    const lines = data.top || [];
    table.hidden = lines.length < 2;
    table.querySelector("tbody").replaceChildren(...lines.map((t, i) => {
      const move = words("button", { type: "button", class: "move-button", title: "show it on the board" }, ...moveNodes(t.move));
      move.addEventListener("mouseenter", () => previewNotation(t.move, false));
      move.addEventListener("mouseleave", unhover);
      move.addEventListener("click", (e) => { previewNotation(t.move, true); boardIntoView(e); });
      const shown = t.value > 0 ? `+${t.value}` : String(t.value);
      return h("tr", {}, h("td", { class: "num", text: String(i + 1) }), h("td", { class: "move" }, move),
        h("td", { class: "num", text: t.exact ? shown : `${shown}~`, title: t.exact ? null : "not exact: the depth ran out" }),
        words("td", { class: "move" }, ...t.pv.slice(1).flatMap((m, k) => (k ? [" ", ...moveNodes(m)] : moveNodes(m)))));
    }));
    // what "~" means, under the table, when a value has it (the cell's title is a mouse's only)
    $("endgame-legend").hidden = table.hidden || lines.every((t) => t.exact);
  }

  // --- best play: the method the stage of the game calls for (endgame, pre-endgame, simulation) -----------
  let bestRun = 0;
  const METHOD_NAMES = { endgame: "endgame solver", peg: "pre-endgame solver", sim: "simulation", static: "static equity" };
  async function runBest() {
    if (isWorking($("best-run"))) return;
    const run = ++bestRun;
    fieldError("best-error", "");
    $("best-head").replaceChildren();
    $("best-summary").textContent = "";
    analysed.best = null;
    let body;
    try {
      body = { cgp: currentCgp(), ruleset: state.rs.name,
        seconds: numberField("best-seconds", "Seconds", 0.1, maxSeconds(), { seconds: true }) };
    } catch (e) {
      tabError("best-error", e, "best");
      return;
    }
    $("best-summary").textContent = "thinking…";
    working($("best-run"), true);
    analysed.best = body.cgp;
    const abort = bestAbort = new AbortController();
    try {
      const data = await api("/api/best", body, abort.signal);
      if (run !== bestRun) return;
      showBest(data);
    } catch (e) {
      if (run === bestRun) { $("best-summary").textContent = ""; tabError("best-error", e, "best"); }
    } finally {
      if (run === bestRun) {
        working($("best-run"), false);
        bestAbort = null;
      }
    }
  }

  function showBest(data) {
    const move = words("button", { type: "button", class: "move-button best-move", title: "show it on the board" }, ...moveNodes(data.best));
    move.addEventListener("mouseenter", () => previewNotation(data.best, false));
    move.addEventListener("mouseleave", unhover);
    move.addEventListener("click", (e) => { previewNotation(data.best, true); boardIntoView(e); });
    $("best-head").replaceChildren(document.createTextNode("best: "), move,
      document.createTextNode(` (${METHOD_NAMES[data.method] || data.method}${data.exact ? ", exact" : ""})`));
    $("best-summary").textContent = data.summary;
  }

  // --- a table wider than its box (a phone's): its edge fades on the side with more columns to scroll to ---
  function markOverflow(wrap) {
    const more = wrap.scrollWidth - wrap.clientWidth;
    const left = Math.abs(wrap.scrollLeft);
    wrap.classList.toggle("more-right", more > 1 && left < more - 1);
    wrap.classList.toggle("more-left", more > 1 && left > 1);
    // the fade leaves the box's own scroll bars alone (a desktop's take room, a phone's none)
    const bars = { "--bar-y": wrap.offsetWidth - wrap.clientWidth - 2 * wrap.clientLeft,
      "--bar-x": wrap.offsetHeight - wrap.clientHeight - 2 * wrap.clientTop };
    for (const [name, px] of Object.entries(bars)) {
      const value = `${Math.max(0, px)}px`;
      if (wrap.style.getPropertyValue(name) !== value) wrap.style.setProperty(name, value);
    }
  }

  // each table's box, when it or its table changes size (rows come, a tab is shown, the screen turns) or scrolls
  function watchOverflow() {
    const resized = new ResizeObserver((entries) => {
      for (const e of entries) markOverflow(e.target.closest(".table-wrap"));
    });
    for (const wrap of document.querySelectorAll(".table-wrap")) {
      wrap.addEventListener("scroll", () => markOverflow(wrap), { passive: true });
      resized.observe(wrap);
      for (const table of wrap.children) resized.observe(table);
    }
  }

  // --- tabs ------------------------------------------------------------------------------------------------
  // a panel is a tab button (data-tab="x") and a <div id="tab-x" class="tab">: a new one needs nothing more.
  // A name no panel has (an old or mistyped address) shows the Moves tab
  // The WAI-ARIA tabs pattern: the tab shown is the tablist's one Tab stop; ← → Home End go to another
  // tab and show it
  function showTab(name) {
    if (!name || !document.getElementById(`tab-${name}`) || !document.querySelector(`.tabs button[data-tab="${CSS.escape(name)}"]`)) name = "moves";
    for (const b of document.querySelectorAll(".tabs button")) {
      const on = b.dataset.tab === name;
      b.classList.toggle("active", on);
      b.setAttribute("aria-selected", on ? "true" : "false");
      b.tabIndex = on ? 0 : -1;
    }
    for (const panel of document.querySelectorAll(".tab")) panel.hidden = panel.id !== `tab-${name}`;
  }

  function onTabKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const tabs = [...document.querySelectorAll(".tabs button")];
    const i = tabs.indexOf(e.target);
    if (i < 0) return;
    const j = e.key === "ArrowRight" ? (i + 1) % tabs.length : e.key === "ArrowLeft" ? (i - 1 + tabs.length) % tabs.length
      : e.key === "Home" ? 0 : e.key === "End" ? tabs.length - 1 : -1;
    if (j < 0) return;
    e.preventDefault();
    showTab(tabs[j].dataset.tab);
    tabs[j].focus();
    writeAddress();
  }

  // --- another ruleset, Clear: the position replaced is kept aside, and Restore brings it back ------------
  // (arrowing through the Ruleset menu changes the ruleset at each arrow: no work is lost to it)
  // nothing would be lost by a reset to ``name`` (a game loaded is closed by another ruleset only)
  function nothingToLose(name) {
    const zero = (id) => !$(id).value.trim() || $(id).value.trim() === "0";
    return state.board.every((row) => row.every((s) => !s)) && !$("rack0").value.trim() && !$("rack1").value.trim() &&
      zero("score0") && zero("score1") && !state.played.length && !state.undone.length && !(state.game && name !== state.rs.name);
  }

  function putAside(name) {
    if (nothingToLose(name)) return;  // what was put aside before (if anything) stays there
    state.aside = {
      ruleset: state.rs.name, board: state.board.map((row) => row.slice()), zeroTurns: state.zeroTurns, opcodes: state.opcodes,
      fields: Object.fromEntries(["rack0", "rack1", "score0", "score1", "move-input"].map((id) => [id, $(id).value])),
      played: state.played.slice(), undone: state.undone.slice(), playedRuleset: state.playedRuleset,
      game: state.game, turn: state.turn, lastCursor: state.lastCursor,
    };
  }

  // after a reset: says what was put aside (a polite status) and shows Restore
  function offerAside(what) {
    const a = state.aside;
    if (!a) return;
    $("restore-text").replaceChildren(...what, ": the ", titleNode(a.ruleset), " position was put aside.");
    $("restore-button").hidden = false;
    $("restore-button").setAttribute("aria-label", `Restore the ${titleOf(a.ruleset)} position`);
  }

  // the user changed or loaded another position: the offer goes (the position put aside with it)
  function dropAside() {
    if (!state.aside && $("restore-button").hidden && !$("restore-text").textContent) return;
    state.aside = null;
    if (document.activeElement === $("restore-button")) $("ruleset").focus();
    $("restore-button").hidden = true;
    $("restore-text").textContent = "";
  }

  async function restoreAside() {
    const a = state.aside;
    if (!a) return;
    dropAside();
    $("ruleset").focus();
    if (a.ruleset !== state.rs.name) setRuleset(a.ruleset);
    state.board = a.board;
    dropCompose();
    state.lastPut = null;
    state.zeroTurns = a.zeroTurns;
    state.opcodes = a.opcodes;
    state.lastCursor = a.lastCursor;
    for (const [id, v] of Object.entries(a.fields)) $(id).value = v;
    state.played = a.played;
    state.undone = a.undone;
    state.playedRuleset = a.playedRuleset;
    renderHistory();
    if (a.game) {
      showGame(a.game);
      markTurn(a.turn);
    }
    state.pinned = state.hover = null;
    state.keptCgpError = false;
    state.lastEdit = state.lastTileEdit = null;
    clearBreakdown();
    $("verdict").replaceChildren();
    renderBoard();
    $("restore-text").replaceChildren("The ", titleNode(a.ruleset), " position is back.");
    await refreshNow();
  }

  // a new empty position (Clear, or another ruleset picked): no tiles, no points, nothing of the last one
  function resetPosition(name) {
    const other = name !== state.rs.name;
    putAside(name);
    clearPlayed();
    if (name !== state.rs.name) {
      setRuleset(name);  // closes a game of the other ruleset
      $("rack0").value = $("rack1").value = "";
    } else {
      setRuleset(name);
    }
    $("score0").value = $("score1").value = "0";
    $("move-input").value = "";
    clearBreakdown();
    $("verdict").replaceChildren();
    state.keptCgpError = false;
    state.lastEdit = state.lastTileEdit = null;
    state.cgp = "";
    clearPositionErrors();
    offerAside(other ? ["Switched to ", titleNode(name)] : ["Cleared"]);
    scheduleRefresh(0);
  }

  // the name of the ruleset ``text`` names: its name or one of its aliases (GET /api/rulesets), case and
  // surrounding spaces ignored; null for none
  function rulesetNamed(text) {
    const key = String(text).trim().toLowerCase();
    for (const rs of Object.values(state.rulesets)) {
      if (rs.name.toLowerCase() === key || (rs.aliases || []).some((a) => a.toLowerCase() === key)) return rs.name;
    }
    return null;
  }

  // what the page says of an address whose ?ruleset= names no ruleset of the server: the rulesets it has
  function unknownRulesetMessage(asked) {
    const names = Object.values(state.rulesets).map((rs) => `${rs.title} (${rs.name})`).join(", ");
    return `The address asks for the ruleset "${shorten(asked, 40)}", which this server does not have. ` +
      `Its rulesets: ${names}. Pick one in the Ruleset menu.`;
  }

  // --- start -----------------------------------------------------------------------------------------------
  async function start() {
    const saved = readSaved();  // (before the empty history is saved over it)
    let info;
    try {
      info = await api("/api/rulesets");
    } catch (e) {
      say(e.message);
      return;
    }
    state.limits = info.limits || {};
    state.simMaxPlies = info.sim_max_plies || 32;
    $("sim-plies").max = state.simMaxPlies;
    if (state.limits.max_moves) $("sim-candidates").max = state.limits.max_moves;
    for (const id of ["best-seconds", "endgame-seconds"]) $(id).max = maxSeconds();
    const select = $("ruleset");
    for (const rs of info.rulesets) {
      state.rulesets[rs.name] = rs;
      select.append(h("option", { value: rs.name, lang: /[\u0400-\u04ff]/.test(rs.title) ? "ru" : null, text: `${rs.title} (${rs.rows}×${rs.cols})` }));
    }
    const params = new URLSearchParams(location.search);
    // ?ruleset= a name or an alias, case ignored, as the server and --ruleset read it (эрудит, Scrabble)
    const asked = params.get("ruleset");
    const wanted = asked ? rulesetNamed(asked) : null;
    setRuleset(wanted || info.default);
    if (state.rulesets[state.rs.name].leaves) $("sort").value = "equity";
    for (const k of ["sort", "top"]) {
      const v = params.get(k);
      if (v && [...$(k).options].some((o) => o.value === v)) $(k).value = v;
    }
    if (params.get("exchanges")) $("exchanges").checked = params.get("exchanges") === "1";
    if (params.get("leaves") && !$("leaves").disabled) $("leaves").checked = params.get("leaves") === "1";

    select.addEventListener("change", () => resetPosition(select.value));
    $("restore-button").addEventListener("click", restoreAside);
    const board = $("board");
    let pointer = false; // the board gets the focus from a click (which puts the cursor), not from Tab
    board.addEventListener("pointerdown", (e) => {
      boardPointer = e.pointerType || "mouse";
      // a finger on another square while typing on a phone: the text field keeps the focus (and the keyboard)
      if ((boardPointer === "touch" || boardPointer === "pen") && document.activeElement === $("board-input")) e.preventDefault();
    });
    board.addEventListener("mousedown", () => { pointer = true; });
    board.addEventListener("focus", () => {
      if (pointer) { pointer = false; return; }
      if (!state.cursor) {  // Tab: the cursor where it was last, else on the start square
        restoreCursor();
        renderBoard();
      }
    });
    board.addEventListener("click", (e) => { pointer = false; onBoardClick(e); });
    $("board-input").addEventListener("keydown", onBoardInputKey);
    $("board-input").addEventListener("input", onBoardInput);
    $("board-input").addEventListener("compositionend", onBoardInput);
    $("sim-run").addEventListener("click", runSim);
    $("endgame-run").addEventListener("click", runEndgame);
    $("best-run").addEventListener("click", runBest);
    $("sim-stop").addEventListener("click", stopSim);
    board.addEventListener("keydown", onBoardKey);
    const tileButtons = $("tile-buttons");
    tileButtons.addEventListener("click", onTileButton);
    // a tile button pressed while typing on the board: the board (or the phone's text field and its
    // keyboard) keeps the focus
    for (const type of ["pointerdown", "mousedown"]) {
      tileButtons.addEventListener(type, (e) => {
        if (e.target.closest("button") && (document.activeElement === board || document.activeElement === $("board-input"))) e.preventDefault();
      });
    }
    $("moves").addEventListener("mouseleave", unhover);
    for (const id of ["rack0", "rack1", "score0", "score1"]) $(id).addEventListener("input", () => { edited(id); scheduleRefresh(); });
    for (const id of ["sort", "top", "exchanges", "leaves"]) $(id).addEventListener("change", () => scheduleRefresh(0));
    $("cgp-form").addEventListener("submit", (e) => { e.preventDefault(); loadCgp($("cgp").value); });
    $("clear").addEventListener("click", () => resetPosition(state.rs.name));
    $("check-form").addEventListener("submit", (e) => { e.preventDefault(); checkMove($("move-input").value); });
    $("move-input").addEventListener("input", () => { $("verdict").replaceChildren(); updatePlayBar(); });
    $("play").addEventListener("click", () => recordAction(() => playTyped(false)));
    $("play-bar-button").addEventListener("click", () => recordAction(() => playTyped(true)));
    new IntersectionObserver((entries) => {
      playInView = entries[entries.length - 1].intersectionRatio > 0.9;
      updatePlayBar();
    }, { threshold: [0, 0.5, 1] }).observe($("play"));
    watchOverflow();
    $("undo").addEventListener("click", () => recordAction(undo));
    $("redo").addEventListener("click", () => recordAction(redo));
    $("export").addEventListener("click", exportGame);
    $("challenge").addEventListener("click", () => recordAction(() => challenge()));
    $("time-penalty").addEventListener("click", () => recordAction(() => timePenalty()));
    $("challenge-rule").addEventListener("change", savePlayed);
    // a game played here that could not be kept for a reload, and not exported: the browser asks first
    window.addEventListener("beforeunload", (e) => {
      if (state.unsaved && state.played.length && !state.exported) {
        e.preventDefault();
        e.returnValue = "";
      }
    });
    for (const b of document.querySelectorAll(".tabs button")) b.addEventListener("click", () => { showTab(b.dataset.tab); writeAddress(); });
    document.querySelector(".tabs").addEventListener("keydown", onTabKey);
    $("gcg-form").addEventListener("submit", (e) => {
      e.preventDefault();
      if (isWorking($("gcg-form").querySelector("button[type=submit]"))) return;  // a game being read
      $("gcg-file").value = "";  // the record is the text box's, not a file's
      loadGame({ text: $("gcg-text").value });
    });
    $("gcg-file").addEventListener("change", () => {
      const f = $("gcg-file").files[0];
      if (f) loadGameFile(f);
    });
    $("turn").addEventListener("input", () => showTurn(+$("turn").value));
    $("turn-first").addEventListener("click", () => showTurn(1));
    $("turn-prev").addEventListener("click", () => showTurn(state.turn - 1));
    $("turn-next").addEventListener("click", () => showTurn(state.turn + 1));
    $("turn-last").addEventListener("click", () => { if (state.game) showTurn(state.game.turns.length + 1); });
    window.addEventListener("resize", () => { sizeBoard(); placeBoardInput(); });
    renderHistory();
    document.addEventListener("keydown", (e) => {
      // ← and → step through a loaded game, unless something else takes the keys
      const t = e.target;
      if (!state.game || $("tab-game").hidden || e.ctrlKey || e.metaKey || e.altKey) return;
      if (t.closest && (t.closest("input, textarea, select, [role=tab]") || t.closest("#board"))) return;
      if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
        e.preventDefault();
        showTurn(state.turn + (e.key === "ArrowLeft" ? -1 : 1));
      }
    });

    showTab(params.get("tab"));
    if (asked && !wanted) {
      // a ruleset the server does not have: said, and nothing read or ranked under another one (the
      // address's CGP waits in its field for a ruleset to be picked)
      const message = unknownRulesetMessage(asked);
      say(message);
      if (params.get("cgp")) $("cgp").value = params.get("cgp");
      showMoves(null, message);
      return;
    }
    if (params.get("cgp")) {
      const text = params.get("cgp");
      if (await loadCgp(text, wanted)) {
        restorePlayed(saved);
        if (params.get("move")) {
          $("move-input").value = params.get("move");
          await checkMove(params.get("move"));
        } else if (params.get("pin") && state.moves.length) {
          const i = Math.min(state.moves.length, Math.max(1, +params.get("pin"))) - 1;
          pinMove(state.moves[i], $("moves").querySelectorAll("tbody tr")[i]);
        }
        return;
      }
      $("cgp").value = text;  // to correct: its error stays beside it until the user changes something
    } else {
      restorePlayed(saved);
    }
    scheduleRefresh(0);
  }

  start();
})();
