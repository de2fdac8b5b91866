// felt room display. Every screen of a tournament follows one board, sent
// whole by the server (server-sent events) on every change; the clock
// counts down locally between changes. No framework, no build step.
'use strict';
(function () {
  const page = document.body.dataset.page;
  const match = location.pathname.match(/^\/t\/([^/]+)\//);
  const id = match ? decodeURIComponent(match[1]) : '';
  const $ = (s) => document.getElementById(s);
  const put = (el, t) => { if (el && el.textContent !== t) el.textContent = t; };
  const chips = (n) => Number(n).toLocaleString('en-US');
  const ordinal = (n) => {
    const s = ['th', 'st', 'nd', 'rd'], v = n % 100;
    return n + (s[(v - 20) % 10] || s[v] || s[0]);
  };
  const places = (r) => (r.first === r.last ? ordinal(r.first) : ordinal(r.first) + '–' + ordinal(r.last));
  const money = (minor, pay) => {
    const per = pay.minor_per_major || 1;
    const whole = minor % per === 0;
    const v = (minor / per).toLocaleString('en-US', {
      minimumFractionDigits: whole ? 0 : 2, maximumFractionDigits: whole ? 0 : 2,
    });
    return (pay.currency ? pay.currency + ' ' : '') + v;
  };
  const duration = (ms) => {
    const s = Math.max(0, Math.ceil(ms / 1000));
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
    const two = (x) => String(x).padStart(2, '0');
    return h > 0 ? h + ':' + two(m) + ':' + two(r) : m + ':' + two(r);
  };
  const blinds = (l) => (l ? chips(l.small_blind) + ' / ' + chips(l.big_blind) : '–');
  const el = (tag, text, cls) => {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  };
  const fill = (parent, children) => { parent.replaceChildren(...children); };
  for (const a of document.querySelectorAll('a[data-screen]')) {
    a.href = '/t/' + encodeURIComponent(id) + '/' + a.dataset.screen;
  }

  let board = null;
  let receivedAt = 0;

  // Time the clock has run since the board's view of it was taken.
  const runFor = () => {
    const c = board && board.clock;
    if (!c || c.status !== 'running') return 0;
    return (board.sent_ms - c.as_of_ms) + (Date.now() - receivedAt);
  };

  const connection = (ok, text) => {
    const c = $('conn');
    if (!c) return;
    put(c, text);
    c.classList.toggle('lost', !ok);
  };

  function follow(render) {
    let source = null;
    const open = () => {
      source = new EventSource('/api/t/' + encodeURIComponent(id) + '/events');
      source.addEventListener('board', (e) => {
        board = JSON.parse(e.data);
        receivedAt = Date.now();
        connection(board.live, board.live ? 'live' : 'reconnecting to the services…');
        render(board);
      });
      source.onerror = () => {
        connection(false, 'reconnecting…');
        // The browser retries by itself unless the server answered with an
        // error; then start again.
        if (source.readyState === EventSource.CLOSED) setTimeout(open, 2000);
      };
    };
    open();
  }

  function banner(b) {
    const e = $('banner');
    if (!e) return;
    const c = b.clock;
    const s = b.standings;
    let text = '';
    let kind = '';
    if (c) {
      if (c.status === 'paused') text = 'CLOCK PAUSED' + (c.pause_reason ? ' — ' + c.pause_reason : '');
      else if (c.status === 'hand for hand') {
        text = 'HAND FOR HAND';
        if (c.hand_for_hand_round) text += ' · hand ' + c.hand_for_hand_round;
        const w = c.waiting_tables;
        if (w.length) text += ' · waiting for table' + (w.length > 1 ? 's ' : ' ') + w.join(', ');
      } else if (c.status === 'end of day') text = 'LAST HANDS OF THE DAY: ' + c.end_of_day_hands;
      else if (c.status === 'day over') text = 'DAY ' + c.day + ' IS OVER';
      else if (c.status === 'not started') text = 'STARTING SOON';
      else if (c.on_break) { text = 'BREAK'; kind = 'break'; }
    }
    if (!text && s && s.hand_for_hand) text = 'HAND FOR HAND';
    if (!text && s && s.final_table && s.players_left > 1) text = 'FINAL TABLE';
    if (!text && s && s.started && s.players_left === 1) text = 'WE HAVE A WINNER';
    put(e, text);
    e.hidden = !text;
    e.className = 'banner ' + kind;
  }

  function tickClock() {
    if (!board || !board.clock) return;
    const c = board.clock;
    const run = runFor();
    const time = $('time');
    put(time, duration(c.remaining_ms - run));
    time.classList.toggle('stopped', c.status !== 'running');
    put($('next-break'), c.next_break_in_ms == null ? '–' : (c.on_break ? 'now' : duration(c.next_break_in_ms - run)));
  }

  function renderClock(b) {
    put($('name'), b.name);
    document.title = b.name + ' · clock';
    banner(b);
    const c = b.clock;
    if (c) {
      put($('level'), c.on_break ? 'Break' : String(c.level));
      put($('time-label'), c.on_break ? 'left in the break' : 'left in the level');
      put($('blinds-label'), c.on_break ? 'Blinds after the break' : 'Blinds');
      put($('blinds'), blinds(c.blinds));
      put($('ante'), c.blinds && c.blinds.ante ? chips(c.blinds.ante) : 'none');
      put($('next'), c.next_level
        ? blinds(c.next_level) + (c.next_level.ante ? ' · ante ' + chips(c.next_level.ante) : '')
        : 'last level');
      tickClock();
    }
    const s = b.standings;
    if (s) {
      put($('players'), chips(s.players_left) + ' of ' + chips(s.entries));
      put($('tables'), chips(s.tables));
      const bb = c && c.blinds ? c.blinds.big_blind : 0;
      put($('average'), s.players_left
        ? chips(s.average_stack) + (bb ? ' (' + (s.average_stack / bb).toFixed(1) + ' BB)' : '')
        : '–');
    }
    const p = b.pay;
    if (p) {
      put($('pool'), money(p.prize_pool, p));
      put($('paid'), chips(p.paid));
      fill($('paytop'), p.sheet.slice(0, 6).map((l) => {
        const li = el('li');
        li.append(el('span', places(l)), el('span', money(l.amount, p)));
        return li;
      }));
    }
  }

  function where(e) {
    if (e.status === 'seated') return 'Table ' + e.table + ', seat ' + e.seat + (e.moving ? ' (moving)' : '');
    if (e.status === 'busted') return 'Busted';
    if (e.status === 'registered') return 'Registered, seat not drawn yet';
    if (e.status === 'alternate') return 'Alternate list';
    return e.status;
  }

  function renderLobby() {
    let lastTables = -1;
    let loading = false;
    const loadTables = async () => {
      if (loading || !board || board.seating_version === lastTables) return;
      loading = true;
      lastTables = board.seating_version;
      try {
        const r = await fetch('/api/t/' + encodeURIComponent(id) + '/tables');
        if (r.ok) {
          const map = await r.json();
          fill($('tables'), map.tables.map((t) => {
            const a = el('article');
            a.append(el('h3', 'Table ' + t.table + (t.physical ? ' (' + t.physical + ')' : '') + ' · ' + t.players + '/' + t.seats + (t.breaking ? ' · breaking' : '')));
            const ol = el('ol');
            for (const o of t.occupants) {
              const li = el('li', o.name + ' (#' + o.entry + ')');
              li.value = o.seat;
              ol.append(li);
            }
            a.append(ol);
            if (t.last_hands_left !== null && t.last_hands_left !== undefined) {
              a.append(el('p', t.last_hands_left
                ? 'Last hands of the day (rule 77): ' + t.last_hands_left + ' to play'
                : 'Last hands of the day played (rule 77)'));
            }
            if (t.rebuy_offers.length) {
              a.append(el('p', 'Waiting for a rebuy decision (rule 27): ' + t.rebuy_offers.map((e) => '#' + e).join(', ')));
            }
            return a;
          }));
        }
      } finally {
        loading = false;
        if (board.seating_version !== lastTables) setTimeout(loadTables, 1000);
      }
    };
    let query = 0;
    const find = async () => {
      const q = $('find').value.trim();
      const mine = ++query;
      if (!q) { fill($('found'), []); return; }
      const r = await fetch('/api/t/' + encodeURIComponent(id) + '/find?q=' + encodeURIComponent(q));
      if (mine !== query) return;
      if (!r.ok) { fill($('found'), [el('li', 'Cannot search now (' + r.status + ')')]); return; }
      const list = await r.json();
      fill($('found'), list.length ? list.map((e) => {
        const li = el('li');
        li.append(el('span', e.name + ' · entry #' + e.entry + (e.re_entry ? ' (re-entry)' : '')), el('span', where(e), 'where'));
        return li;
      }) : [el('li', 'No player matches “' + q + '”')]);
    };
    let timer = null;
    $('find').addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(find, 150); });
    follow((b) => {
      put($('name'), b.name);
      document.title = b.name + ' · seats';
      banner(b);
      if (b.standings) put($('summary'), b.standings.players_left + ' players at ' + b.standings.tables + ' tables');
      fill($('moves'), b.moves.length ? b.moves.map((m) => {
        const at = m.at_ms ? new Date(m.at_ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) + ' ' : '';
        return el('li', at + m.name + ' (#' + m.entry + '): table ' + m.from_table + ' seat ' + m.from_seat +
          ' → table ' + m.to_table + ' seat ' + m.to_seat + ' (' + m.reason + (m.detail ? ': ' + m.detail : '') +
          (m.completed ? '' : ', moving') + ')');
      }) : [el('li', 'No moves yet', 'muted')]);
      const rulings = b.rulings || [];
      $('rulings-section').hidden = rulings.length === 0;
      fill($('rulings'), rulings.map((r) => {
        const at = new Date(r.at_ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) + ' ';
        return el('li', at + (r.name || 'Entry') + ' (#' + r.entry + ') at table ' + r.table + ': ' + r.what + ' — ' + r.reason);
      }));
      loadTables();
      if ($('find').value.trim()) find();
    });
  }

  // The day's bags (bag and tag): the chip-count leaderboard, fetched again
  // whenever seating's stream moves.
  function renderBags() {
    let last = -1;
    let loading = false;
    let fromFlights = false;
    const load = async () => {
      if (loading || !board || board.seating_version === last) return;
      loading = true;
      last = board.seating_version;
      try {
        // `?day=N` on the page: that day's bags (kept after the next day's).
        const day = new URLSearchParams(location.search).get('day');
        const r = await fetch('/api/t/' + encodeURIComponent(id) + '/bags' + (day ? '?day=' + encodeURIComponent(day) : ''));
        if (r.ok) {
          const list = await r.json();
          fromFlights = list.bags.some((b) => b.flight);
          put($('bag-summary'), list.bags.length
            ? 'day ' + list.day + ' · ' + chips(list.bags.length) + ' bags · ' + chips(list.chips) + ' chips · ' + (list.sealed ? 'sealed' : 'being confirmed')
            : 'no bags yet');
          fill($('bags'), list.bags.map((b) => {
            const tr = el('tr');
            tr.append(el('td', String(b.rank)), el('td', b.flight ? 'flight ' + b.flight + ' · ' + b.bag : String(b.bag)), el('td', b.name + ' (#' + b.entry + ')'),
              el('td', chips(b.chips)), el('td', b.table ? b.table + ' / ' + b.seat : '–'),
              el('td', b.player_confirmed && b.staff_confirmed ? 'player and staff'
                : b.player_confirmed ? 'player' : b.staff_confirmed ? 'staff' : '–'));
            return tr;
          }));
        }
      } finally {
        loading = false;
        // An event's list from its flights moves with their streams, not
        // its own: read again every few seconds.
        if (fromFlights) setTimeout(() => { last = -1; load(); }, 5000);
        else if (board.seating_version !== last) setTimeout(load, 1000);
      }
    };
    follow((b) => {
      put($('name'), b.name);
      document.title = b.name + ' · bags';
      banner(b);
      load();
    });
  }

  function renderPay(b) {
    put($('name'), b.name);
    document.title = b.name + ' · payouts';
    banner(b);
    const p = b.pay;
    if (b.standings) put($('players'), chips(b.standings.players_left));
    if (!p) return;
    put($('pool'), money(p.prize_pool, p) + (p.overlay ? ' (overlay ' + money(p.overlay, p) + ')' : ''));
    put($('entries'), chips(p.entries) + (p.add_ons ? ' + ' + chips(p.add_ons) + ' add-ons' : '')
      + (p.rebuys ? ' + ' + chips(p.rebuys) + ' rebuys' : ''));
    put($('paid'), chips(p.paid));
    const deal = $('deal');
    const dealText = p.deal_proposed ? 'A deal is proposed: waiting for every player to agree'
      : p.deals ? 'Deal made at the final table: the prizes below the winners are the deal\'s' : '';
    put(deal, dealText);
    deal.hidden = !dealText;
    fill($('sheet'), p.sheet.map((l) => {
      const tr = el('tr');
      tr.append(el('td', places(l)), el('td', money(l.amount, p)));
      return tr;
    }));
    put($('finished'), b.finished ? '(' + chips(b.finished) + ')' : '');
    fill($('results'), b.results.map((r) => {
      const tr = el('tr');
      tr.append(el('td', places(r)), el('td', r.name + ' (#' + r.entry + ')'),
        el('td', r.ticket
          ? 'a seat in ' + r.ticket_target + (r.prize > r.ticket ? ' + ' + money(r.prize - r.ticket, p) : '')
          : r.prize ? money(r.prize, p) : '–'));
      return tr;
    }));
  }

  async function renderIndex() {
    const r = await fetch('/api/tournaments');
    if (!r.ok) { connection(false, 'cannot list tournaments (' + r.status + ')'); return; }
    connection(true, '');
    const list = await r.json();
    fill($('tournaments'), list.length ? list.map((t) => {
      const li = el('li');
      li.append(el('strong', t.name), el('span', ' · ' + t.players_left + ' of ' + t.entries + ' left '));
      li.append(el('br'));
      for (const [screen, label] of [['clock', 'Clock'], ['lobby', 'Seat finder'], ['pay', 'Pay board'], ['bags', 'Bags']]) {
        const a = el('a', label);
        a.href = '/t/' + encodeURIComponent(t.id) + '/' + screen;
        li.append(a);
      }
      return li;
    }) : [el('li', 'No tournament yet', 'muted')]);
  }

  if (page === 'clock') { follow(renderClock); setInterval(tickClock, 250); }
  else if (page === 'lobby') renderLobby();
  else if (page === 'pay') follow(renderPay);
  else if (page === 'bags') renderBags();
  else if (page === 'index') renderIndex();
})();
