//! `felt bench table`: dealer commands per second over gRPC against many
//! tables at once, the table service on NATS JetStream, and their latency.

use std::time::{Duration, Instant};

use clap::Args;
use felt_proto::v1 as pb;
use felt_proto::v1::table_service_client::TableServiceClient;
use pb::execute_request::Command as C;
use tonic::Request;

#[derive(Debug, Args)]
pub(crate) struct TableArgs {
    /// A running NATS server; without it a local nats-server is started.
    #[arg(long)]
    nats: Option<String>,
    /// Tables played at once.
    #[arg(long, default_value_t = 500)]
    tables: u32,
    /// Callers, each waiting for its answer before its next command.
    #[arg(long, default_value_t = 64)]
    concurrency: u32,
    /// Dealer commands to send in all.
    #[arg(long, default_value_t = 60_000)]
    actions: u64,
}

const TOKEN: &str = "bench";

fn request(table: u32, id: String, command: C) -> Request<pb::ExecuteRequest> {
    let mut req = Request::new(pb::ExecuteRequest {
        provenance: None,
        table: Some(pb::TableRef {
            tournament_id: "bench".into(),
            table,
        }),
        command_id: id,
        command: Some(command),
    });
    if let Ok(v) = format!("Bearer {TOKEN}").parse() {
        req.metadata_mut().insert("authorization", v);
    }
    req
}

fn start(hand: u64) -> C {
    C::StartHand(pb::StartHand {
        level: Some(pb::Level {
            small_blind: 50,
            big_blind: 100,
            ante: 0,
            ante_format: pb::AnteFormat::None as i32,
            smallest_chip: 25,
        }),
        deal: Some(pb::Deal {
            kind: Some(pb::deal::Kind::Digital(pb::DigitalDeal {})),
        }),
        button: (hand == 0).then_some(9),
    })
}

/// The next command for a table: start a hand, or the player to act calls
/// or checks (and folds one time in five before the flop).
pub(crate) fn next_command(view: Option<&pb::TableView>, hand: &mut u64, k: u64) -> C {
    match view.and_then(|v| v.hand.as_ref()) {
        Some(h) if h.to_act.is_some() => {
            let seat = h.to_act.unwrap_or(1);
            let kind = if h.to_call > 0 && h.street() == pb::Street::Preflop && k.is_multiple_of(5)
            {
                pb::action::Kind::Fold(pb::Fold {})
            } else if h.to_call > 0 {
                pb::action::Kind::Call(pb::Call {})
            } else {
                pb::action::Kind::Check(pb::Check {})
            };
            C::Act(pb::Act {
                seat,
                action: Some(pb::Action { kind: Some(kind) }),
            })
        }
        _ => {
            *hand += 1;
            start(*hand)
        }
    }
}

pub(crate) fn run(args: &TableArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let (_local, url, channel) =
            super::local_services(args.nats.as_deref(), felt::serve::Services::TABLE, TOKEN)
                .await?;
        println!(
            "table service on nats at {url}: {} tables, {} callers",
            args.tables, args.concurrency
        );
        // Open and seat every table.
        let mut setup = TableServiceClient::new(channel.clone());
        for t in 0..args.tables {
            setup
                .execute(request(
                    t,
                    "open".into(),
                    C::OpenTable(pb::OpenTable {
                        seats: 9,
                        rules: None,
                    }),
                ))
                .await?;
            for seat in 1..=9 {
                setup
                    .execute(request(
                        t,
                        format!("seat-{seat}"),
                        C::SeatPlayer(pb::SeatPlayer {
                            seat,
                            entry: u64::from(t * 10 + seat),
                            stack: 1_000_000,
                            carried: Default::default(),
                        }),
                    ))
                    .await?;
            }
        }
        let per_caller = args.actions / u64::from(args.concurrency.max(1));
        let began = Instant::now();
        let mut callers = Vec::new();
        for c in 0..args.concurrency {
            let mut client = TableServiceClient::new(channel.clone());
            let tables: Vec<u32> = (c..args.tables)
                .step_by(args.concurrency as usize)
                .collect();
            callers.push(tokio::spawn(async move {
                let mut views: Vec<Option<pb::TableView>> = vec![None; tables.len()];
                let mut hands = vec![0u64; tables.len()];
                let mut latencies = Vec::with_capacity(per_caller as usize);
                for k in 0..per_caller {
                    let slot = (k as usize) % tables.len().max(1);
                    let Some(&table) = tables.get(slot) else {
                        break;
                    };
                    let command = next_command(views[slot].as_ref(), &mut hands[slot], k);
                    let sent = Instant::now();
                    let answer = client
                        .execute(request(table, format!("c{c}-{k}"), command))
                        .await?
                        .into_inner();
                    latencies.push(sent.elapsed());
                    views[slot] = answer.table;
                }
                anyhow::Ok(latencies)
            }));
        }
        let mut latencies: Vec<Duration> = Vec::new();
        for c in callers {
            latencies.extend(c.await??);
        }
        let took = began.elapsed();
        latencies.sort_unstable();
        let at = |p: f64| {
            latencies
                .get(((latencies.len() as f64 - 1.0) * p).round() as usize)
                .copied()
                .unwrap_or_default()
                .as_secs_f64()
                * 1e3
        };
        println!(
            "{} dealer commands: {:.0} acknowledged/s (p50 {:.2} ms, p99 {:.2} ms, {:.2} s)",
            latencies.len(),
            latencies.len() as f64 / took.as_secs_f64(),
            at(0.5),
            at(0.99),
            took.as_secs_f64()
        );
        Ok(())
    })
}
