// A partner's page: one felt table and its tournament's clock, live, over
// gRPC-Web with Connect's web transport and the client generated from
// felt's protos (protoc-gen-es). Each stream resumes from the last version
// it saw after an error (felt restarting, a network drop).

import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";

import { ClockService, ClockStatus, type ClockView } from "./gen/felt/v1/clock_pb.js";
import { TableService, type TableView } from "./gen/felt/v1/table_pb.js";

const params = new URLSearchParams(location.search);
const felt = params.get("felt") ?? location.origin;
const token = params.get("token") ?? "";
const tournamentId = params.get("tournament") ?? "";
const tableNumber = Number(params.get("table") ?? "1");

const transport = createGrpcWebTransport({ baseUrl: felt });
const clock = createClient(ClockService, transport);
const tables = createClient(TableService, transport);
const headers = { authorization: `Bearer ${token}` };
const at = { tournamentId, table: tableNumber };

const byId = (id: string): HTMLElement => {
  const e = document.getElementById(id);
  if (!e) throw new Error(`the page has no #${id}`);
  return e;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function said(what: string, e?: unknown): void {
  const line = byId("connection");
  if (e === undefined) {
    line.textContent = what;
    line.className = "";
    return;
  }
  const err = ConnectError.from(e);
  line.textContent = `${what}: ${Code[err.code]}: ${err.rawMessage} (trying again)`;
  line.className = "error";
}

// The clock: as the service computed it, counted down here between changes.
let view: ClockView | undefined;
let seenAt = 0;

function showClock(): void {
  if (!view) return;
  const running = view.status === ClockStatus.RUNNING;
  const left = Number(view.remainingMs) - (running ? performance.now() - seenAt : 0);
  const seconds = Math.max(0, Math.ceil(left / 1000));
  byId("clock-status").textContent = ClockStatus[view.status];
  byId("clock-level").textContent = view.onBreak
    ? "break"
    : `level ${view.level}: ${view.blinds?.smallBlind}/${view.blinds?.bigBlind}` +
      (view.blinds?.ante ? ` ante ${view.blinds.ante}` : "");
  byId("clock-remaining").textContent =
    `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

async function followClock(): Promise<never> {
  let after = 0n;
  for (;;) {
    try {
      for await (const change of clock.watchClock({ tournamentId, afterVersion: after }, { headers })) {
        if (change.clock) {
          view = change.clock;
          seenAt = performance.now();
          after = view.version;
        }
        said("live over gRPC-Web");
        showClock();
      }
    } catch (e) {
      said("the clock", e);
    }
    await sleep(1000);
  }
}

// The table: its seats as of the last snapshot or read, its events as they
// come (a partner sees no hidden card).
function showTable(table: TableView): void {
  byId("table-hands").textContent = `${table.handsPlayed} hands played`;
  const rows = table.seats
    .filter((s) => s.entry > 0n)
    .map((s) => {
      const flags = [s.inHand ? "in hand" : "", s.allIn ? "all in" : "", s.absent ? "absent" : ""]
        .filter(Boolean)
        .join(", ");
      return `<tr data-seat="${s.seat}"><td>${s.seat}</td><td>${s.entry}</td><td>${s.stack}</td><td>${flags}</td></tr>`;
    });
  byId("seats").innerHTML = rows.join("");
}

let reading: Promise<void> | undefined;
function readTable(): void {
  // One read at a time, after a burst of events.
  reading ??= (async () => {
    await sleep(100);
    reading = undefined;
    const got = await tables.getTable({ table: at }, { headers });
    if (got.table) showTable(got.table);
  })().catch((e) => said("the table", e));
}

async function followTable(): Promise<never> {
  let after = 0n;
  for (;;) {
    try {
      for await (const item of tables.watchTable({ table: at, afterVersion: after }, { headers })) {
        if (item.item.case === "snapshot") {
          after = item.item.value.version;
          showTable(item.item.value);
        } else if (item.item.case === "event") {
          const event = item.item.value;
          after = event.sequence;
          const li = document.createElement("li");
          li.value = Number(event.sequence);
          li.textContent = event.type;
          const list = byId("events");
          list.prepend(li);
          while (list.children.length > 50) list.lastElementChild?.remove();
          readTable();
        }
        said("live over gRPC-Web");
      }
    } catch (e) {
      said("the table", e);
    }
    await sleep(1000);
  }
}

byId("title").textContent = `felt: ${tournamentId}, table ${tableNumber}`;
setInterval(showClock, 250);
void followClock();
void followTable();
