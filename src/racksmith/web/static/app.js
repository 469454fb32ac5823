// racksmith web analyzer: the page talks to the local server's JSON API (/api/...).
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const PREMIUM_CLASS = { "'": "dl", '"': "tl", "^": "ql", "-": "dw", "=": "tw", "~": "qw" };
  const PREMIUM_LABEL = { "'": "2L", '"': "3L", "^": "4L", "-": "2W", "=": "3W", "~": "4W" };
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
    cgp: "", // the last CGP the server accepted
    moves: [],
    pinned: null, // {notation, placed, reclaimed} shown on the board until something else is chosen
    hover: null,
    game: null, // the answer of POST /api/gcg
    turn: 1,
    seq: 0,
    scoreCache: new Map(),
    played: [], // the game played on the page: {cgp (before), move, draw, score, rack, nick}
    undone: [], // moves taken back, for redo (last undone last)
  };

  // --- talking to the server ---------------------------------------------------------------------
  async function api(path, body) {
    // user errors come back in the body of a 200 answer (X-Errors: body): a browser logs every 4xx
    // answer in its console as a failed request, which a mistyped move is not
    const init = body === undefined ? { headers: { "X-Errors": "body" } } : {
      method: "POST", headers: { "Content-Type": "application/json", "X-Errors": "body" }, body: JSON.stringify(body),
    };
    let res;
    try {
      res = await fetch(path, init);
    } catch (e) {
      throw new Error("the racksmith server does not answer (is `racksmith serve` still running?)");
    }
    let data = null;
    try { data = await res.json(); } catch (e) { /* not JSON: reported below */ }
    if (!res.ok || data === null || (data && data.error !== undefined && data.status)) {
      const err = new Error((data && data.error) || `${res.status} ${res.statusText}`);
      err.data = data;
      throw err;
    }
    return data;
  }

  function say(message, ok) {
    const s = $("status");
    s.textContent = message || "";
    s.className = ok ? "ok" : "";
  }

  // an error beside the field it is about (empty text clears it)
  function fieldError(id, message) {
    const box = $(id);
    box.textContent = message || "";
    const field = { "rack0-error": "rack0", "rack1-error": "rack1", "cgp-error": "cgp", "gcg-error": "gcg-text" }[id];
    if (field) $(field).classList.toggle("invalid", !!message);
  }

  function clearPositionErrors() {
    for (const id of ["rack0-error", "rack1-error", "cgp-error"]) fieldError(id, "");
  }

  // which field a position error is about: a rack, else the CGP (or the board)
  function positionErrorField(message) {
    if (/rack 1\b|CGP rack 1|rack of the player to move/i.test(message)) return "rack0-error";
    if (/rack 2\b|CGP rack 2/i.test(message)) return "rack1-error";
    return "cgp-error";
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
  function letterOf(key) {
    // the alphabet letter a key stands for, and whether it is a blank (lowercase); null if none
    const rs = state.rs;
    const up = key.toUpperCase();
    const target = rs.alphabet.includes(up) ? up : rs.letter_aliases[up];
    if (!target) return null;
    const blank = key !== up && key.toLowerCase() === key;
    return blank ? target.toLowerCase() : target;
  }
  const isBlank = (s) => s !== s.toUpperCase();
  const valueOf = (s) => (isBlank(s) ? 0 : state.rs.values[s] ?? 0);

  function tileNode(letter, opts = {}) {
    const blank = opts.rackBlank || isBlank(letter);
    const shown = opts.rackBlank ? "" : letter.toUpperCase();
    const t = h("div", { class: "tile" + (blank ? " blank" : "") + (opts.preview ? " preview" : "") },
      h("span", { class: "l" + (shown.length > 1 ? " multi" : ""), text: shown }));
    if (!blank) t.append(h("span", { class: "p", text: valueOf(letter) }));
    return t;
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
    const scores = `${parseInt($("score0").value, 10) || 0}/${parseInt($("score1").value, 10) || 0}`;
    return `${rows.join("/")} ${racks} ${scores} ${state.zeroTurns}` + (state.opcodes ? ` ${state.opcodes}` : "");
  }

  // --- rulesets and the board ----------------------------------------------------------------------
  function setRuleset(name) {
    const rs = state.rulesets[name];
    state.rs = rs;
    $("ruleset").value = name;
    state.board = Array.from({ length: rs.rows }, () => Array(rs.cols).fill(""));
    state.cursor = null;
    state.pinned = state.hover = null;
    state.zeroTurns = 0;
    state.opcodes = "";
    const leaves = $("leaves");
    leaves.disabled = !rs.leaves;
    leaves.checked = rs.leaves;
    $("leaves-label").classList.toggle("off", !rs.leaves);
    $("leaves-label").title = rs.leaves ? "equity with the server's leave values"
      : "the server has no leave values for this ruleset (racksmith serve --leaves FILE.klv2)";
    buildBoard();
  }

  function sizeBoard() {
    const rs = state.rs;
    if (!rs) return;
    const width = document.documentElement.clientWidth || window.innerWidth;
    const wide = width > 1100;
    const phone = width <= 600;
    // the board's width: a coordinate column of .55 cell, the squares, a 1 px gap each, 4 px of padding
    const room = wide ? Math.min(width * 0.5, 700, (window.innerHeight - 250) * 1.05)
      : Math.min(width - (phone ? 16 : 40), 700);
    const cell = Math.max(phone ? 12 : 22, Math.min(44, Math.floor((room - 6 - rs.cols) / (rs.cols + 0.55))));
    document.documentElement.style.setProperty("--cell", `${cell}px`);
    document.documentElement.style.setProperty("--cols", rs.cols);
  }

  function buildBoard() {
    const rs = state.rs;
    const board = $("board");
    board.replaceChildren();
    sizeBoard();
    board.append(h("div", { class: "coord corner top-row" }));
    for (let c = 0; c < rs.cols; c++) board.append(h("div", { class: "coord top top-row", text: COLUMNS[c] }));
    for (let r = 0; r < rs.rows; r++) {
      board.append(h("div", { class: "coord", text: r + 1 }));
      for (let c = 0; c < rs.cols; c++) {
        const p = rs.premiums[r][c];
        const start = r === rs.start[0] && c === rs.start[1];
        const sq = h("div", { class: "sq" + (PREMIUM_CLASS[p] ? " " + PREMIUM_CLASS[p] : "") + (start ? " start" : ""), "data-r": r, "data-c": c });
        board.append(sq);
      }
    }
    renderBoard();
  }

  function squareNode(r, c) {
    return $("board").children[(r + 1) * (state.rs.cols + 1) + c + 1];
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
        sq.replaceChildren();
        if (letter) sq.append(tileNode(letter, { preview: !state.board[r][c] || swapped.has(k) }));
        else if (PREMIUM_LABEL[p] && !(r === rs.start[0] && c === rs.start[1])) sq.append(PREMIUM_LABEL[p]);
        sq.classList.toggle("has-tile", !!letter);
        sq.classList.toggle("in-word", inWord.has(k) && !!state.board[r][c]);
        const cur = state.cursor && state.cursor.r === r && state.cursor.c === c;
        sq.classList.toggle("cursor", !!cur);
        if (cur) sq.append(h("span", { class: "arrow" + (letter ? "" : " alone"), text: state.cursor.across ? "→" : "↓" }));
      }
    }
  }

  function renderRack(rack) {
    const box = $("rack-tiles");
    box.replaceChildren();
    for (const ch of splitRack(rack)) {
      box.append(h("div", { class: "rt" }, tileNode(ch === "?" ? "" : ch, { rackBlank: ch === "?" })));
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
  function onBoardClick(e) {
    const sq = e.target.closest(".sq");
    if (!sq) return;
    const r = +sq.dataset.r;
    const c = +sq.dataset.c;
    const cur = state.cursor;
    if (cur && cur.r === r && cur.c === c) cur.across = !cur.across;
    else state.cursor = { r, c, across: cur ? cur.across : true };
    $("board").focus();
    renderBoard();
  }

  function step(delta) {
    const cur = state.cursor;
    const rs = state.rs;
    if (cur.across) cur.c = Math.min(rs.cols - 1, Math.max(0, cur.c + delta));
    else cur.r = Math.min(rs.rows - 1, Math.max(0, cur.r + delta));
  }

  function onBoardKey(e) {
    const cur = state.cursor;
    if (!cur || e.ctrlKey || e.metaKey || e.altKey) return;
    const rs = state.rs;
    const k = e.key;
    let edited = false;
    if (k === "ArrowLeft" || k === "ArrowRight" || k === "ArrowUp" || k === "ArrowDown") {
      const dr = k === "ArrowUp" ? -1 : k === "ArrowDown" ? 1 : 0;
      const dc = k === "ArrowLeft" ? -1 : k === "ArrowRight" ? 1 : 0;
      cur.r = Math.min(rs.rows - 1, Math.max(0, cur.r + dr));
      cur.c = Math.min(rs.cols - 1, Math.max(0, cur.c + dc));
    } else if (k === " ") {
      cur.across = !cur.across;
    } else if (k === "Escape") {
      state.cursor = null;
    } else if (k === "Backspace") {
      if (!state.board[cur.r][cur.c]) step(-1);
      edited = !!state.board[cur.r][cur.c];
      state.board[cur.r][cur.c] = "";
    } else if (k === "Delete") {
      edited = !!state.board[cur.r][cur.c];
      state.board[cur.r][cur.c] = "";
    } else if (k.length === 1) {
      const letter = letterOf(k);
      if (letter === null) {
        say(`${k} is not a letter of ${state.rs.title}`);
        e.preventDefault();
        return;
      }
      state.board[cur.r][cur.c] = letter;
      edited = true;
      step(1);
    } else {
      return;
    }
    e.preventDefault();
    if (edited) {
      state.pinned = state.hover = null;
      clearBreakdown();
      scheduleRefresh();
    }
    renderBoard();
  }

  // --- the position and its moves ---------------------------------------------------------------------
  let refreshTimer = 0;
  function scheduleRefresh(delay = 120) {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(refresh, delay);
  }

  function refreshNow() {
    clearTimeout(refreshTimer);
    return refresh();
  }

  async function refresh() {
    const seq = ++state.seq;
    const cgp = composeCgp();
    const ruleset = state.rs.name;
    let pos;
    try {
      pos = await api("/api/position", { cgp, ruleset });
    } catch (e) {
      if (seq !== state.seq) return;
      clearPositionErrors();
      fieldError(positionErrorField(e.message), e.message);
      showMoves(null, "Fix the position to see its moves.");
      return;
    }
    if (seq !== state.seq) return;
    clearPositionErrors();
    if (pos.cgp !== state.cgp) {
      // another position: what was shown for the last one (a checked move, a pinned preview) goes
      state.pinned = state.hover = null;
      clearBreakdown();
      $("verdict").replaceChildren();
      renderBoard();
    }
    state.cgp = pos.cgp;
    if (document.activeElement !== $("cgp")) $("cgp").value = pos.cgp;
    renderRack(pos.racks[0]);
    renderBag(pos);
    const url = new URL(location.href);
    url.searchParams.set("ruleset", ruleset);
    url.searchParams.set("cgp", pos.cgp);
    history.replaceState(null, "", url);
    await loadMoves(seq, pos);
  }

  function renderBag(pos) {
    const known = pos.racks_known ? pos.racks_known[1] : !!pos.racks[1];
    const pool = Object.entries(pos.unseen || pos.bag).map(([l, n]) => cgpLetter(l).repeat(n)).join(" ");
    const count = known ? [h("b", { text: `${pos.bag_count}` }), " in the bag: "]
      : [h("b", { text: `${pos.unseen_count}` }), ` unseen (${pos.rack_sizes[1]} on the opponent's rack, ${pos.bag_count} in the bag): `];
    $("bag").replaceChildren(...count, h("span", { class: "pool", text: pool }));
  }

  async function loadMoves(seq, pos) {
    if (!pos.racks[0]) {
      say("", true);
      showMoves(null, "Type a rack to see every legal play, ranked.");
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
      showMoves(null, e.message);
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
      body.append(h("tr", {}, h("td", { colspan: 5, class: "empty-note", text: note || "" })));
      return;
    }
    const rs = state.rs;
    const pos = state.cgp.split(" ")[1].split("/")[0];
    $("moves-head").textContent = `${data.count} move${data.count === 1 ? "" : "s"} for ${pos} by ${data.sort}` +
      ` · lexicon ${data.lexicon}` + (data.leaves ? " · with leaves" : "");
    const shown = data.moves.slice(0, MAX_ROWS);
    if (capped) $("moves-head").textContent += ` · more exist: the best ${data.count} (the server's max_moves limit)`;
    if (data.count > MAX_ROWS) $("moves-head").textContent += ` · the first ${MAX_ROWS} shown`;
    shown.forEach((m, i) => {
      const tags = [];
      if (m.bingo) tags.push(h("span", { class: "tag", text: "bingo" }));
      if (m.type !== "place") tags.push(h("span", { class: "tag ex", text: m.type }));
      const tr = h("tr", {},
        h("td", { class: "num", text: i + 1 }),
        h("td", { class: "move" }, m.notation, ...tags),
        h("td", { class: "num", text: m.score }),
        h("td", { class: "num eq", text: m.equity === null ? "" : m.equity.toFixed(2) }),
        h("td", { class: "move", text: m.leave ?? "" }));
      tr.addEventListener("mouseenter", () => hoverMove(m));
      tr.addEventListener("click", () => pinMove(m, tr));
      if (state.pinned && state.pinned.notation === m.notation) tr.classList.add("pinned");
      body.append(tr);
    });
    if (!data.moves.length) body.append(h("tr", {}, h("td", { colspan: 5, class: "empty-note", text: `no legal move for this rack in ${rs.title}` })));
  }

  // --- previews and the score breakdown ----------------------------------------------------------------
  function hoverMove(m) {
    state.hover = { notation: m.notation, placed: m.placed || [], reclaimed: m.reclaimed || [] };
    renderBoard();
    showBreakdown(m.notation);
  }

  function pinMove(m, tr) {
    state.pinned = { notation: m.notation, placed: m.placed || [], reclaimed: m.reclaimed || [] };
    state.hover = null;
    for (const row of document.querySelectorAll("tbody tr.pinned")) row.classList.remove("pinned");
    if (tr) tr.classList.add("pinned");
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
    const head = h("h3", {}, h("span", { text: b.move }), h("span", { class: "total", text: b.score }));
    const rows = b.words.map((w) => {
      const chips = w.squares.map(([r, c]) => {
        const t = tiles.get(`${r},${c}`);
        const cls = "chip" + (t.new ? "" : " old") + (t.blank ? " blank" : "");
        return h("span", { class: cls }, t.blank ? t.letter.toLowerCase() : t.letter, h("sub", { text: t.points }),
          t.new && t.letter_multiplier > 1 ? h("span", { class: "mult", text: `×${t.letter_multiplier}` }) : null);
      });
      const sum = w.word_multiplier > 1 ? [`${w.sum} × ${w.word_multiplier} = `, h("b", { text: w.score })] : [h("b", { text: w.score })];
      return h("div", { class: "word-row" },
        h("span", { class: "name" }, w.word, w.main ? null : h("span", { class: "cross", text: "cross" })),
        h("span", { class: "chips" }, chips), h("span", { class: "sum" }, ...sum));
    });
    if (b.bingo) rows.push(h("div", { class: "word-row" }, h("span", { class: "name", text: "bingo" }), h("span", { class: "sum" }, h("b", { text: `+${b.bingo}` }))));
    if (!b.words.length) rows.push(h("div", { class: "subtle", text: b.move === "-" ? "a pass scores nothing" : "an exchange scores nothing" }));
    box.replaceChildren(head, ...rows);
  }

  // --- checking a typed move --------------------------------------------------------------------------
  async function checkMove(text) {
    text = text.trim();
    const out = $("verdict");
    if (!text) { out.replaceChildren(); return; }
    if (!state.cgp) await refreshNow();
    let v;
    try {
      v = await api("/api/validate", { cgp: state.cgp, ruleset: state.rs.name, move: text });
    } catch (e) {
      out.replaceChildren(h("span", { class: "illegal", text: "✗ " }), e.message);
      state.pinned = null;
      renderBoard();
      clearBreakdown();
      return;
    }
    if (v.legal) out.replaceChildren(h("span", { class: "legal", text: "✓ legal" }), ` — scores ${v.score}`);
    else {
      out.replaceChildren(h("span", { class: "illegal", text: "✗ illegal " }), h("span", { class: "reason", text: v.reason }),
        " ", v.message);
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
  async function loadCgp(text, rulesetName) {
    text = text.trim();
    const rows = text.split(/\s+/)[0].split("/").length;
    let name = rulesetName || state.rs.name;
    if (!rulesetName && state.rulesets[name].rows !== rows) {
      const fit = Object.values(state.rulesets).find((rs) => rs.rows === rows);
      if (fit) name = fit.name;
    }
    let pos;
    try {
      pos = await api("/api/position", { cgp: text, ruleset: name });
    } catch (e) {
      fieldError("cgp-error", e.message);
      return false;
    }
    fieldError("cgp-error", "");
    if (name !== state.rs.name) setRuleset(name);
    applyPosition(pos);
    await refreshNow();
    return true;
  }

  function applyPosition(pos) {
    state.board = pos.board.map((row) => row.slice());
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
  }

  // --- games --------------------------------------------------------------------------------------------
  async function loadGame(text) {
    if (!text.trim()) { fieldError("gcg-error", "paste a GCG record or choose a file first"); return; }
    let g;
    try {
      g = await api("/api/gcg", { text });
    } catch (e) {
      fieldError("gcg-error", e.message);
      return;
    }
    fieldError("gcg-error", "");
    state.game = g;
    if (g.ruleset !== state.rs.name) setRuleset(g.ruleset);
    $("game").hidden = false;
    const names = g.players;
    const best = Math.max(...g.final_scores);
    $("game-summary").replaceChildren(...names.flatMap((n, i) => [
      i ? " – " : "", h("span", { class: g.final_scores[i] === best ? "winner" : "" }, `${n} ${g.final_scores[i]}`)]),
      h("span", { class: "subtle", text: ` · ${g.turns.length} turns${g.complete ? "" : " · not finished"}` +
        (g.analysis ? ` · analysed with ${g.analysis.lexicon}${g.analysis.leaves ? " and leaves" : ", no leaves"}` : "") }));
    const errs = g.errors.map((e) => h("div", { text: (e.line ? `line ${e.line}: ` : "") + e.message }));
    if (g.analysis_error) errs.push(h("div", { text: `analysis: ${g.analysis_error}` }));
    $("game-errors").replaceChildren(...errs);
    const slider = $("turn");
    slider.max = g.turns.length + 1;
    renderTurnsTable();
    showTurn(1);
  }

  function analysisOf(n) {
    const a = state.game.analysis;
    return a ? a.turns[n - 1] : null;
  }

  function renderTurnsTable() {
    const g = state.game;
    const body = $("turns").querySelector("tbody");
    body.replaceChildren();
    g.turns.forEach((t) => {
      const a = analysisOf(t.turn);
      const lost = a && a.equity_lost !== null ? a.equity_lost : null;
      const tr = h("tr", { "data-turn": t.turn },
        h("td", { class: "num", text: t.turn }),
        h("td", { text: t.nick }),
        h("td", { class: "move", text: t.rack }),
        h("td", { class: "move" }, t.move, t.withdrawn ? h("span", { class: "tag ex", text: "withdrawn" }) : null,
          t.bingo && !t.withdrawn ? h("span", { class: "tag", text: "bingo" }) : null),
        h("td", { class: "num", text: t.score }),
        h("td", { class: "num" + (a && a.rank === 1 ? " rank1" : ""), text: a && a.rank !== null ? a.rank : "" }),
        h("td", { class: "num lost" + (lost > 10 ? " big" : ""), text: lost === null ? "" : lost.toFixed(1) }));
      tr.addEventListener("click", () => showTurn(t.turn));
      body.append(tr);
    });
  }

  async function showTurn(n) {
    const g = state.game;
    n = Math.max(1, Math.min(g.turns.length + 1, n));
    state.turn = n;
    $("turn").value = n;
    $("turn-label").textContent = n <= g.turns.length ? `turn ${n} of ${g.turns.length}` : "end of the game";
    for (const tr of $("turns").querySelectorAll("tbody tr")) tr.classList.toggle("current", +tr.dataset.turn === n);
    const cur = $("turns").querySelector("tbody tr.current");
    if (cur) cur.scrollIntoView({ block: "nearest" });
    const t = g.turns[n - 1];
    const cgp = t ? t.cgp : g.end_cgp;
    renderTurnCard(t, analysisOf(n));
    if (!cgp) return;
    let pos;
    try {
      pos = await api("/api/position", { cgp, ruleset: g.ruleset });
    } catch (e) {
      say(e.message);
      return;
    }
    if (state.turn !== n) return;
    applyPosition(pos);
    await refreshNow();
    if (state.turn !== n) return;
    if (t && t.placed.length) {
      state.pinned = { notation: t.move, placed: t.placed, reclaimed: t.reclaimed || [] };
      $("move-input").value = t.move;
      renderBoard();
      showBreakdown(t.move);
    }
  }

  function renderTurnCard(t, a) {
    const card = $("turn-card");
    if (!t) {
      const g = state.game;
      card.replaceChildren(h("div", { class: "line1" }, h("span", { text: "Final scores: " + g.players.map((p, i) => `${p} ${g.final_scores[i]}`).join(", ") })));
      return;
    }
    const line1 = h("div", { class: "line1" },
      h("span", {}, h("b", { text: t.nick }), ` with ${t.rack || "(rack not recorded)"}`),
      h("span", {}, "played ", h("span", { class: "played", text: t.move }), ` ${t.score >= 0 ? "+" : ""}${t.score}`,
        t.withdrawn ? " (withdrawn)" : ""));
    const parts = [line1];
    if (a) {
      if (a.rank !== null) {
        const cls = a.rank === 1 ? "rank best" : a.equity_lost > 10 ? "rank lost" : "rank";
        parts.push(h("div", {}, h("span", { class: cls, text: a.rank === 1 ? "best move" : `rank ${a.rank}` }),
          ` of ${a.moves} · equity ${a.equity.toFixed(2)}` + (a.equity_lost ? ` · lost ${a.equity_lost.toFixed(2)}` : "") +
          (a.bingo_missed ? " · missed a bingo" : "")));
      } else if (a.note) {
        parts.push(h("div", { class: "note", text: a.note }));
      }
      if (a.best.length) {
        const list = h("ol", {});
        for (const c of a.best) {
          const li = h("li", {}, c.move, h("span", { class: "s", text: `${c.score} pts · equity ${c.equity.toFixed(2)}${c.bingo ? " · bingo" : ""}` }));
          li.addEventListener("mouseenter", () => previewNotation(c.move, false));
          li.addEventListener("mouseleave", unhover);
          li.addEventListener("click", () => previewNotation(c.move, true));
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
    if (pin) { state.pinned = shown; state.hover = null; $("move-input").value = notation; } else state.hover = shown;
    renderBoard();
    showBreakdown(notation);
  }

  // --- playing on: a move, undo, redo, export -------------------------------------------------------------
  async function playMove(text, draw) {
    text = (text || "").trim();
    const out = $("verdict");
    if (!text) { out.replaceChildren(h("span", { class: "illegal", text: "✗ " }), "type a move to play (8D WORD, -ABC, -)"); return false; }
    if (!state.cgp) await refreshNow();
    const before = state.cgp;
    const body = { cgp: before, ruleset: state.rs.name, move: text };
    if (draw !== undefined) body.draw = draw;
    let r;
    try {
      r = await api("/api/play", body);
    } catch (e) {
      out.replaceChildren(h("span", { class: "illegal", text: "✗ cannot play " }),
        e.data && e.data.reason ? h("span", { class: "reason", text: e.data.reason }) : "", " ", e.message);
      return false;
    }
    state.played.push({ cgp: before, move: r.move, draw: r.drawn, score: r.score, rack: r.rack, ending: r.ending });
    applyPosition(r.position);
    $("move-input").value = "";
    await refreshNow();
    out.replaceChildren(h("span", { class: "legal", text: "✓ played " }), `${r.move} +${r.score}` +
      (r.drawn ? `, drew ${r.drawn}` : "") + (r.over ? " · the game is over" : ""));
    renderHistory();
    return true;
  }

  async function undo() {
    const last = state.played.pop();
    if (!last) return;
    state.undone.push(last);
    await loadPlayedPosition(last.cgp);
    renderHistory();
  }

  async function redo() {
    const next = state.undone.pop();
    if (!next) return;
    await loadPlayedPosition(next.cgp);
    const undone = state.undone;
    state.undone = [];  // playMove clears nothing else; keep what is still to redo
    const ok = await playMove(next.move, next.draw);
    state.undone = undone;
    if (!ok) undone.push(next);
    renderHistory();
  }

  async function loadPlayedPosition(cgp) {
    let pos;
    try {
      pos = await api("/api/position", { cgp, ruleset: state.rs.name });
    } catch (e) {
      fieldError("cgp-error", e.message);
      return;
    }
    applyPosition(pos);
    await refreshNow();
  }

  function renderHistory() {
    const list = $("history");
    const items = state.played.map((p, i) => h("li", {}, `${p.move} +${p.score}` + (p.rack ? `  (${p.rack})` : "")));
    const undone = state.undone.slice().reverse().map((p) => h("li", { class: "undone" }, `${p.move} +${p.score}`));
    list.replaceChildren(...items, ...undone);
    $("undo").disabled = !state.played.length;
    $("redo").disabled = !state.undone.length;
    $("export").disabled = !state.played.length;
    fieldError("export-error", "");
  }

  async function exportGame() {
    let r;
    try {
      r = await api("/api/export", { ruleset: state.rs.name,
        turns: state.played.map((p) => ({ cgp: p.cgp, move: p.move, draw: p.draw })) });
    } catch (e) {
      fieldError("export-error", e.message);
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
  }

  // --- simulation: growing budgets with one seed, each answer extending the last, until stopped ----------------
  let simRun = 0;
  async function runSim() {
    const run = ++simRun;
    $("sim-run").disabled = true;
    $("sim-stop").disabled = false;
    const seed = Math.floor(Math.random() * 1e9);
    const most = (state.limits && state.limits.max_sim_iterations) || 200000;
    const body = {
      cgp: composeCgp(), ruleset: state.rs.name, seed,
      candidates: Number($("sim-candidates").value) || 10, plies: Number($("sim-plies").value) || 2,
      leaves: $("leaves").checked, stop: 0.99,
    };
    const infer = $("sim-infer").value.trim();
    if (infer) body.infer = infer;
    $("sim-infer-head").textContent = infer ? `inferring the opponent's rack from ${infer}…` : "";
    try {
      for (let iterations = 500; run === simRun; iterations *= 2) {
        const data = await api("/api/sim", { ...body, iterations: Math.min(iterations, most) });
        if (run !== simRun) break;
        showSim(data);
        if (data.stopped !== "iterations" || iterations >= most) break;
      }
    } catch (e) {
      if (run === simRun) { $("sim-head").textContent = e.message; $("sim-infer-head").textContent = ""; }
    } finally {
      if (run === simRun) { $("sim-run").disabled = false; $("sim-stop").disabled = true; }
    }
  }

  function showSim(data) {
    $("sim-head").textContent = `${data.iterations} iterations, ${data.plies} plies, ${data.seconds.toFixed(1)} s (${data.stopped})`;
    const inf = data.inference;
    $("sim-infer-head").textContent = inf ? `the opponent's rack drawn from ${inf.leaves} leaves ${inf.move} may have kept ` +
      `(${inf.exact ? `every one of ${inf.racks_total} racks tried` : `estimated from ${inf.samples} random racks`}); ` +
      `likeliest ${inf.top.map((x) => `${x.leave || "-"} ${(100 * x.probability).toFixed(1)}%`).join(", ")}` : "";
    const tbody = document.querySelector("#sim tbody");
    tbody.replaceChildren(...data.candidates.map((c, i) => h("tr", {},
      h("td", { class: "num", text: String(i + 1) }), h("td", { text: c.move }),
      h("td", { class: "num", text: c.win_pct.toFixed(2) }), h("td", { class: "num", text: c.stderr.toFixed(2) }),
      h("td", { class: "num", text: c.equity.toFixed(2) }), h("td", { class: "num", text: String(c.iterations) }))));
  }

  // --- endgame: the bag empty, solved exactly (or to the depth the time allows) ----------------------------
  let endgameRun = 0;
  async function runEndgame() {
    const run = ++endgameRun;
    $("endgame-error").textContent = "";
    $("endgame-head").textContent = "solving…";
    $("endgame-pv").replaceChildren();
    $("endgame-run").disabled = true;
    const most = (state.limits && state.limits.max_seconds) || 10;
    const seconds = Math.min(Number($("endgame-seconds").value) || 5, most);
    const plies = $("endgame-plies").value === "" ? null : Number($("endgame-plies").value);
    try {
      const data = await api("/api/endgame", { cgp: composeCgp(), ruleset: state.rs.name, seconds, plies });
      if (run !== endgameRun) return;
      showEndgame(data);
    } catch (e) {
      if (run === endgameRun) { $("endgame-head").textContent = ""; $("endgame-error").textContent = e.message; }
    } finally {
      if (run === endgameRun) $("endgame-run").disabled = false;
    }
  }

  function showEndgame(data) {
    const value = data.value > 0 ? `+${data.value}` : String(data.value);
    const how = data.exact ? "exact" : `not exact: ${data.depth} plies searched`;
    $("endgame-head").textContent = `best ${data.best}, value ${value} (${how}), ` +
      `${data.nodes.toLocaleString()} nodes, ${data.seconds.toFixed(2)} s`;
    $("endgame-pv").replaceChildren(...data.pv.map((m, i) => {
      const li = h("li", { text: m });
      if (i === 0) {  // the first move is on this board: show it
        li.addEventListener("mouseenter", () => previewNotation(m, false));
        li.addEventListener("mouseleave", unhover);
        li.addEventListener("click", () => previewNotation(m, true));
      }
      return li;
    }));
  }

  // --- best play: the method the stage of the game calls for (endgame, pre-endgame, simulation) -----------
  let bestRun = 0;
  const METHOD_NAMES = { endgame: "endgame solver", peg: "pre-endgame solver", sim: "simulation", static: "static equity" };
  async function runBest() {
    const run = ++bestRun;
    $("best-error").textContent = "";
    $("best-head").replaceChildren();
    $("best-summary").textContent = "thinking…";
    $("best-run").disabled = true;
    const most = (state.limits && state.limits.max_seconds) || 10;
    const seconds = Math.min(Number($("best-seconds").value) || 5, most);
    try {
      const data = await api("/api/best", { cgp: composeCgp(), ruleset: state.rs.name, seconds });
      if (run !== bestRun) return;
      showBest(data);
    } catch (e) {
      if (run === bestRun) { $("best-summary").textContent = ""; $("best-error").textContent = e.message; }
    } finally {
      if (run === bestRun) $("best-run").disabled = false;
    }
  }

  function showBest(data) {
    const move = h("strong", { text: data.best, class: "best-move", title: "show it on the board" });
    move.addEventListener("mouseenter", () => previewNotation(data.best, false));
    move.addEventListener("mouseleave", unhover);
    move.addEventListener("click", () => previewNotation(data.best, true));
    $("best-head").replaceChildren(document.createTextNode("best: "), move,
      document.createTextNode(` (${METHOD_NAMES[data.method] || data.method}${data.exact ? ", exact" : ""})`));
    $("best-summary").textContent = data.summary;
  }

  // --- tabs ------------------------------------------------------------------------------------------------
  // a panel is a tab button (data-tab="x") and a <div id="tab-x" class="tab">: a new one needs nothing more
  function showTab(name) {
    for (const b of document.querySelectorAll(".tabs button")) b.classList.toggle("active", b.dataset.tab === name);
    for (const panel of document.querySelectorAll(".tab")) panel.hidden = panel.id !== `tab-${name}`;
  }

  // --- start -----------------------------------------------------------------------------------------------
  async function start() {
    let info;
    try {
      info = await api("/api/rulesets");
    } catch (e) {
      say(e.message);
      return;
    }
    state.limits = info.limits || {};
    const select = $("ruleset");
    for (const rs of info.rulesets) {
      state.rulesets[rs.name] = rs;
      select.append(h("option", { value: rs.name, text: `${rs.title} (${rs.rows}×${rs.cols})` }));
    }
    const params = new URLSearchParams(location.search);
    const wanted = params.get("ruleset");
    setRuleset(wanted && state.rulesets[wanted] ? wanted : info.default);
    if (state.rulesets[state.rs.name].leaves) $("sort").value = "equity";
    for (const k of ["sort", "top"]) if (params.get(k)) $(k).value = params.get(k);
    if (params.get("exchanges")) $("exchanges").checked = params.get("exchanges") === "1";

    select.addEventListener("change", () => {
      setRuleset(select.value);
      $("rack0").value = $("rack1").value = "";
      scheduleRefresh(0);
    });
    $("board").addEventListener("click", onBoardClick);
    $("sim-run").addEventListener("click", runSim);
    $("endgame-run").addEventListener("click", runEndgame);
    $("best-run").addEventListener("click", runBest);
    $("sim-stop").addEventListener("click", () => { simRun++; $("sim-run").disabled = false; $("sim-stop").disabled = true; });
    $("board").addEventListener("keydown", onBoardKey);
    $("moves").addEventListener("mouseleave", unhover);
    for (const id of ["rack0", "rack1", "score0", "score1"]) $(id).addEventListener("input", () => scheduleRefresh());
    for (const id of ["sort", "top", "exchanges", "leaves"]) $(id).addEventListener("change", () => scheduleRefresh(0));
    $("cgp-form").addEventListener("submit", (e) => { e.preventDefault(); loadCgp($("cgp").value); });
    $("clear").addEventListener("click", () => {
      state.played = [];
      state.undone = [];
      renderHistory();
      $("export-text").hidden = true;
      setRuleset(state.rs.name);
      clearBreakdown();
      $("verdict").replaceChildren();
      scheduleRefresh(0);
    });
    $("check-form").addEventListener("submit", (e) => { e.preventDefault(); checkMove($("move-input").value); });
    $("move-input").addEventListener("input", () => { $("verdict").replaceChildren(); });
    $("play").addEventListener("click", () => playMove($("move-input").value));
    $("undo").addEventListener("click", undo);
    $("redo").addEventListener("click", redo);
    $("export").addEventListener("click", exportGame);
    for (const b of document.querySelectorAll(".tabs button")) b.addEventListener("click", () => showTab(b.dataset.tab));
    $("gcg-form").addEventListener("submit", (e) => { e.preventDefault(); loadGame($("gcg-text").value); });
    $("gcg-file").addEventListener("change", async () => {
      const f = $("gcg-file").files[0];
      if (!f) return;
      const text = await f.text();
      $("gcg-text").value = text;
      loadGame(text);
    });
    $("turn").addEventListener("input", () => showTurn(+$("turn").value));
    $("turn-first").addEventListener("click", () => showTurn(1));
    $("turn-prev").addEventListener("click", () => showTurn(state.turn - 1));
    $("turn-next").addEventListener("click", () => showTurn(state.turn + 1));
    $("turn-last").addEventListener("click", () => showTurn(state.game.turns.length + 1));
    window.addEventListener("resize", () => { sizeBoard(); });
    renderHistory();
    document.addEventListener("keydown", (e) => {
      // ← and → step through a loaded game, unless something else takes the keys
      const t = e.target;
      if (!state.game || $("tab-game").hidden || e.ctrlKey || e.metaKey || e.altKey) return;
      if (t.closest && (t.closest("input, textarea, select") || t.closest("#board"))) return;
      if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
        e.preventDefault();
        showTurn(state.turn + (e.key === "ArrowLeft" ? -1 : 1));
      }
    });

    if (params.get("tab")) showTab(params.get("tab"));
    if (params.get("cgp")) {
      if (await loadCgp(params.get("cgp"), wanted && state.rulesets[wanted] ? wanted : null)) {
        if (params.get("move")) {
          $("move-input").value = params.get("move");
          await checkMove(params.get("move"));
        } else if (params.get("pin") && state.moves.length) {
          const i = Math.min(state.moves.length, Math.max(1, +params.get("pin"))) - 1;
          pinMove(state.moves[i], $("moves").querySelectorAll("tbody tr")[i]);
        }
        return;
      }
    }
    scheduleRefresh(0);
  }

  start();
})();
