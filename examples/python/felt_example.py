#!/usr/bin/env python3
"""A partner's first felt client, in Python with grpcio.

It generates the client from felt's protos (grpcio-tools), then, against a
running felt (`felt up`):

1. as the director, creates a small tournament and registers its players;
2. as a partner, follows the clock (WatchClock) and the results
   (WatchResults), each stream on a thread of its own;
3. starts the tournament, closes registration, waits to see the clock
   running, and, as the floor at a table that records results only (a card room's paper or a tablet down), records
   each bust and who won the chips until one player is left;
4. prints the places as payout recorded them and ends when the winner is
   placed (exit status 0), or names what went wrong (exit status 1).

    pip install grpcio-tools==1.85.1
    python examples/python/felt_example.py --address 127.0.0.1:7070 \
        --director TOKEN --floor TOKEN --partner TOKEN

The tokens are the ones `felt up` prints. Every call sends its role's token
as `authorization: Bearer <token>`; a refusal is a gRPC status whose
message names the problem (and the rule, for a ruling), with the same in
`felt-rejection`, `felt-error-kind` and `felt-rule` trailing metadata.
"""

import argparse
import os
import pathlib
import queue
import sys
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
PROTOS = HERE.parent.parent / "proto"


def generate(out: pathlib.Path) -> None:
    """Generates felt's Python client into `out` (messages and stubs)."""
    from grpc_tools import protoc

    out.mkdir(parents=True, exist_ok=True)
    files = sorted(str(p) for p in (PROTOS / "felt" / "v1").glob("*.proto"))
    code = protoc.main(
        ["grpc_tools.protoc", f"-I{PROTOS}", f"--python_out={out}", f"--grpc_python_out={out}"]
        + files
    )
    if code != 0:
        raise SystemExit(f"generating the client from {PROTOS} failed ({code})")
    sys.path.insert(0, str(out))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default="127.0.0.1:7070", help="felt up's host:port")
    parser.add_argument("--director", required=True, help="the director's token")
    parser.add_argument("--floor", required=True, help="the floor's token")
    parser.add_argument("--partner", required=True, help="a partner's token")
    parser.add_argument("--tournament", default=f"py-{os.getpid()}", help="the new tournament's id")
    parser.add_argument("--players", type=int, default=6, help="players to register (2 to 9)")
    parser.add_argument(
        "--generated",
        type=pathlib.Path,
        default=HERE / "generated",
        help="where the generated client is written",
    )
    args = parser.parse_args()
    if not 2 <= args.players <= 9:
        parser.error("--players: 2 to 9 (one table)")

    generate(args.generated)
    import grpc
    from felt.v1 import clock_pb2, clock_pb2_grpc
    from felt.v1 import payout_pb2, payout_pb2_grpc
    from felt.v1 import seating_pb2, seating_pb2_grpc
    from felt.v1 import table_pb2, table_pb2_grpc

    def bearer(token: str):
        return [("authorization", f"Bearer {token}")]

    director, floor, partner = bearer(args.director), bearer(args.floor), bearer(args.partner)
    channel = grpc.insecure_channel(args.address)
    seating = seating_pb2_grpc.SeatingServiceStub(channel)
    clock = clock_pb2_grpc.ClockServiceStub(channel)
    payout = payout_pb2_grpc.PayoutServiceStub(channel)
    tables = table_pb2_grpc.TableServiceStub(channel)
    t = args.tournament

    # 1. The director creates the tournament and registers the players.
    seating.CreateTournament(
        seating_pb2.CreateTournamentRequest(
            tournament_id=t,
            name="Python example",
            deal=seating_pb2.DEAL_MODE_DIGITAL,
            preset=seating_pb2.STRUCTURE_PRESET_TURBO,
            table_size=9,
            money=seating_pb2.MoneySettings(currency="USD", buy_in=10_000, fee=1_000),
        ),
        metadata=director,
    )
    print(f"created {t}", flush=True)
    registered = seating.RegisterMany(
        seating_pb2.RegisterManyRequest(
            tournament_id=t,
            command_id="presales",
            players=[
                seating_pb2.Registrant(player_id=f"py{i}", name=f"Player {i}")
                for i in range(1, args.players + 1)
            ],
        ),
        metadata=director,
    )
    print(f"registered {len(registered.entries)} players", flush=True)

    # 2. A partner follows the clock and the results, each on its own thread.
    said: "queue.Queue[str]" = queue.Queue()
    running = threading.Event()
    winner = threading.Event()

    def follow_clock() -> None:
        try:
            for change in clock.WatchClock(
                clock_pb2.WatchClockRequest(tournament_id=t), metadata=partner
            ):
                view = change.clock
                status = clock_pb2.ClockStatus.Name(view.status)
                if view.status == clock_pb2.CLOCK_STATUS_RUNNING:
                    running.set()
                said.put(
                    f"clock: level {view.level} {view.blinds.small_blind}/{view.blinds.big_blind} "
                    f"{status} {view.remaining_ms // 1000}s left"
                )
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.CANCELLED:
                said.put(f"error: the clock stream ended: {e.code().name} {e.details()}")

    def follow_results() -> None:
        try:
            for change in payout.WatchResults(
                payout_pb2.WatchResultsRequest(tournament_id=t), metadata=partner
            ):
                for event in change.events:
                    if event.WhichOneof("kind") != "placed":
                        continue
                    placed = event.placed
                    prizes = {p.entry: p.amount for p in placed.prizes}
                    for entry in placed.entries:
                        said.put(
                            f"placed: entry {entry} at {placed.first}"
                            f"{'' if placed.first == placed.last else f'-{placed.last}'}"
                            f", prize {prizes.get(entry, 0)}"
                        )
                    if placed.first == 1:
                        winner.set()
                        return
        except grpc.RpcError as e:
            said.put(f"error: the results stream ended: {e.code().name} {e.details()}")

    threads = [
        threading.Thread(target=follow_clock, daemon=True),
        threading.Thread(target=follow_results, daemon=True),
    ]
    for thread in threads:
        thread.start()

    # 3. The director starts it and closes registration; the floor records
    # the table's results.
    seating.StartTournament(seating_pb2.StartTournamentRequest(tournament_id=t), metadata=director)
    seating.CloseRegistration(
        seating_pb2.CloseRegistrationRequest(tournament_id=t), metadata=director
    )
    # The partner's clock shows the tournament under way before play.
    if not running.wait(timeout=30):
        print("error: the clock was not seen running within 30 s", file=sys.stderr)
        return 1
    table_map = seating.GetTableMap(
        seating_pb2.GetTableMapRequest(tournament_id=t), metadata=director
    )
    at = table_pb2.TableRef(tournament_id=t, table=table_map.tables[0].table)
    tables.Execute(
        table_pb2.ExecuteRequest(
            table=at,
            command_id="results-only",
            set_recording=table_pb2.SetRecording(
                recording=table_pb2.RECORDING_RESULTS_ONLY, reason="the room runs on paper"
            ),
        ),
        metadata=floor,
    )
    busts = 0
    while True:
        view = tables.GetTable(table_pb2.GetTableRequest(table=at), metadata=floor).table
        playing = [s for s in view.seats if s.entry and s.stack > 0]
        if len(playing) < 2:
            break
        out, by = playing[0], playing[1]
        busts += 1
        tables.Execute(
            table_pb2.ExecuteRequest(
                table=at,
                command_id=f"bust-{busts}",
                record_result=table_pb2.RecordResult(
                    button=by.seat,
                    busted=[table_pb2.SeatEntry(seat=out.seat, entry=out.entry)],
                    by=[table_pb2.SeatEntry(seat=by.seat, entry=by.entry)],
                ),
            ),
            metadata=floor,
        )
        print(f"floor: entry {out.entry} busted by entry {by.entry}", flush=True)

    # 4. The partner's streams report; the results as payout has them.
    deadline = time.monotonic() + 30
    while not winner.is_set() or not said.empty():
        try:
            line = said.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            print("error: no winner placed within 30 s", file=sys.stderr)
            return 1
        if line.startswith("error:"):
            print(line, file=sys.stderr)
            return 1
        print(line, flush=True)
    results = payout.GetResults(payout_pb2.GetResultsRequest(tournament_id=t), metadata=partner)
    for row in sorted(results.results, key=lambda r: r.first):
        print(
            f"result: {row.first} {row.name} ({row.player_id}) "
            f"{row.prize / results.minor_per_major:.2f} {results.currency}",
            flush=True,
        )
    channel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
