// A partner's first felt client, in TypeScript on Node, with Connect's gRPC
// transport and the client generated from felt's protos (protoc-gen-es).
//
// Against a running felt (`felt up`), it:
// 1. as the director, creates a small tournament and registers its players;
// 2. as a partner, follows the clock (WatchClock) and the results
//    (WatchResults), both streams at once;
// 3. starts the tournament, closes registration, waits to see the clock
//    running, and, as the floor at a table that records results only,
//    records each bust and who won the chips until one player is left;
// 4. prints the places as payout recorded them and ends when the winner is
//    placed (exit status 0), or names what went wrong (exit status 1).
//
//   npm ci && npm run build
//   npm start -- --address 127.0.0.1:7070 --director TOKEN --floor TOKEN --partner TOKEN
//
// The tokens are the ones `felt up` prints. Every call sends its role's
// token as `authorization: Bearer <token>`; a refusal is a ConnectError
// whose code and message name the problem (and the rule, for a ruling),
// with felt's reason in its `felt-rejection` metadata.

import { createClient, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { parseArgs } from "node:util";

import { ClockService, ClockStatus } from "./gen/felt/v1/clock_pb.js";
import { PayoutService } from "./gen/felt/v1/payout_pb.js";
import { DealMode, SeatingService, StructurePreset } from "./gen/felt/v1/seating_pb.js";
import { Recording, TableService } from "./gen/felt/v1/table_pb.js";

const { values: args } = parseArgs({
  options: {
    address: { type: "string", default: "127.0.0.1:7070" },
    director: { type: "string" },
    floor: { type: "string" },
    partner: { type: "string" },
    tournament: { type: "string", default: `ts-${process.pid}` },
    players: { type: "string", default: "6" },
  },
});
for (const role of ["director", "floor", "partner"] as const) {
  if (!args[role]) {
    console.error(`--${role}: the ${role}'s token is required (felt up prints it)`);
    process.exit(2);
  }
}
const players = Number(args.players);
if (!Number.isInteger(players) || players < 2 || players > 9) {
  console.error("--players: 2 to 9 (one table)");
  process.exit(2);
}

const bearer = (token: string | undefined) => ({ headers: { authorization: `Bearer ${token}` } });
const director = bearer(args.director);
const floor = bearer(args.floor);
const partner = bearer(args.partner);

const transport = createGrpcTransport({ baseUrl: `http://${args.address}` });
const seating = createClient(SeatingService, transport);
const clock = createClient(ClockService, transport);
const payout = createClient(PayoutService, transport);
const tables = createClient(TableService, transport);
const t = args.tournament!;

/** `promise`, or an error saying `what` after 30 s. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within 30 s`)), 30_000);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function main(): Promise<void> {
  // 1. The director creates the tournament and registers the players.
  await seating.createTournament(
    {
      tournamentId: t,
      name: "TypeScript example",
      deal: DealMode.DIGITAL,
      structure: { case: "preset", value: StructurePreset.TURBO },
      tableSize: 9,
      money: { currency: "USD", buyIn: 10_000n, fee: 1_000n },
    },
    director,
  );
  console.log(`created ${t}`);
  const registered = await seating.registerMany(
    {
      tournamentId: t,
      commandId: "presales",
      players: Array.from({ length: players }, (_, i) => ({
        playerId: `ts${i + 1}`,
        name: `Player ${i + 1}`,
      })),
    },
    director,
  );
  console.log(`registered ${registered.entries.length} players`);

  // 2. A partner follows the clock and the results, both streams at once.
  const stop = new AbortController();
  let seenRunning: () => void = () => {};
  const running = new Promise<void>((resolve) => (seenRunning = resolve));
  const followClock = (async () => {
    try {
      for await (const change of clock.watchClock({ tournamentId: t }, { ...partner, signal: stop.signal })) {
        const view = change.clock!;
        if (view.status === ClockStatus.RUNNING) seenRunning();
        console.log(
          `clock: level ${view.level} ${view.blinds?.smallBlind}/${view.blinds?.bigBlind} ` +
            `CLOCK_STATUS_${ClockStatus[view.status]} ${view.remainingMs / 1000n}s left`,
        );
      }
    } catch (e) {
      if (!stop.signal.aborted) throw e;
    }
  })();
  const followResults = (async () => {
    for await (const change of payout.watchResults({ tournamentId: t }, partner)) {
      for (const event of change.events) {
        if (event.kind.case !== "placed") continue;
        const placed = event.kind.value;
        const prizes = new Map(placed.prizes.map((p) => [p.entry, p.amount]));
        for (const entry of placed.entries) {
          const at = placed.first === placed.last ? `${placed.first}` : `${placed.first}-${placed.last}`;
          console.log(`placed: entry ${entry} at ${at}, prize ${prizes.get(entry) ?? 0n}`);
        }
        if (placed.first === 1) return;
      }
    }
    throw new Error("the results stream ended before a winner was placed");
  })();

  // 3. The director starts it and closes registration; the floor records
  // the table's results.
  await seating.startTournament({ tournamentId: t }, director);
  await seating.closeRegistration({ tournamentId: t }, director);
  // The partner's clock shows the tournament under way before play.
  await within(running, "the clock was not seen running");
  const map = await seating.getTableMap({ tournamentId: t }, director);
  const at = { tournamentId: t, table: map.tables[0].table };
  await tables.execute(
    {
      table: at,
      commandId: "results-only",
      command: {
        case: "setRecording",
        value: { recording: Recording.RESULTS_ONLY, reason: "the room runs on paper" },
      },
    },
    floor,
  );
  for (let busts = 1; ; busts++) {
    const view = (await tables.getTable({ table: at }, floor)).table!;
    const playing = view.seats.filter((s) => s.entry > 0n && s.stack > 0n);
    if (playing.length < 2) break;
    const [out, by] = playing;
    await tables.execute(
      {
        table: at,
        commandId: `bust-${busts}`,
        command: {
          case: "recordResult",
          value: {
            button: by.seat,
            busted: [{ seat: out.seat, entry: out.entry }],
            by: [{ seat: by.seat, entry: by.entry }],
          },
        },
      },
      floor,
    );
    console.log(`floor: entry ${out.entry} busted by entry ${by.entry}`);
  }

  // 4. The partner's results stream sees the winner; the results as payout
  // has them.
  await within(followResults, "no winner placed");
  stop.abort();
  await followClock;
  const results = await payout.getResults({ tournamentId: t }, partner);
  const major = BigInt(results.minorPerMajor);
  for (const row of [...results.results].sort((a, b) => a.first - b.first)) {
    const cents = String(row.prize % major).padStart(2, "0");
    console.log(
      `result: ${row.first} ${row.name} (${row.playerId}) ${row.prize / major}.${cents} ${results.currency}`,
    );
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    const err = ConnectError.from(e);
    console.error(`error: ${err.message} (felt-rejection: ${err.metadata.get("felt-rejection") ?? "none"})`);
    process.exit(1);
  },
);
