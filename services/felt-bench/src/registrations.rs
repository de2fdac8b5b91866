//! `felt bench registrations`: a field registered through the seating
//! service over gRPC on NATS JetStream: one by one (`Register`), and as
//! one list (`RegisterMany`).

use std::time::Instant;

use clap::Args;
use felt_proto::v1 as pb;
use felt_proto::v1::seating_service_client::SeatingServiceClient;
use tonic::Request;

#[derive(Debug, Args)]
pub(crate) struct RegistrationsArgs {
    /// A running NATS server; without it a local nats-server is started.
    #[arg(long)]
    nats: Option<String>,
    /// Entries registered as one list.
    #[arg(long, default_value_t = 10_000)]
    entries: u32,
    /// Entries registered one call at a time.
    #[arg(long, default_value_t = 1_000)]
    one_by_one: u32,
}

const TOKEN: &str = "bench";

fn request<T>(msg: T) -> Request<T> {
    let mut req = Request::new(msg);
    if let Ok(v) = format!("Bearer {TOKEN}").parse() {
        req.metadata_mut().insert("authorization", v);
    }
    req
}

fn create(id: &str) -> pb::CreateTournamentRequest {
    pb::CreateTournamentRequest {
        tournament_id: id.into(),
        name: id.into(),
        structure: Some(pb::create_tournament_request::Structure::Preset(
            pb::StructurePreset::MainEvent.into(),
        )),
        money: Some(pb::MoneySettings {
            buy_in: 10_000,
            fee: 1_000,
            ..Default::default()
        }),
        ..Default::default()
    }
}

pub(crate) fn run(args: &RegistrationsArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let services = felt::serve::Services {
            seating: true,
            ..felt::serve::Services::NONE
        };
        let (_local, url, channel) =
            super::local_services(args.nats.as_deref(), services, TOKEN).await?;
        let mut seating = SeatingServiceClient::new(channel)
            .max_decoding_message_size(64 << 20)
            .max_encoding_message_size(64 << 20);
        let stamp = felt::serve::wall_clock();
        println!("seating service on nats at {url}");

        let one = format!("one-{stamp}");
        seating.create_tournament(request(create(&one))).await?;
        let began = Instant::now();
        for i in 0..args.one_by_one {
            seating
                .register(request(pb::RegisterRequest {
                    payment: None,
                    tournament_id: one.clone(),
                    command_id: format!("r{i}"),
                    player_id: format!("p{i}"),
                    name: format!("Player {i}"),
                    give_up_chips: false,
                    ticket: None,
                }))
                .await?;
        }
        let secs = began.elapsed().as_secs_f64();
        println!(
            "Register, one call each: {} entries in {:.3} s ({:.0} entries/s)",
            args.one_by_one,
            secs,
            f64::from(args.one_by_one) / secs
        );

        let list = format!("list-{stamp}");
        seating.create_tournament(request(create(&list))).await?;
        let players: Vec<pb::Registrant> = (0..args.entries)
            .map(|i| pb::Registrant {
                player_id: format!("p{i}"),
                name: format!("Player {i}"),
            })
            .collect();
        let began = Instant::now();
        let answer = seating
            .register_many(request(pb::RegisterManyRequest {
                payment: None,
                tournament_id: list.clone(),
                command_id: "presales".into(),
                players,
            }))
            .await?
            .into_inner();
        let secs = began.elapsed().as_secs_f64();
        anyhow::ensure!(
            answer.entries.len() == args.entries as usize,
            "{} entries registered of {}",
            answer.entries.len(),
            args.entries
        );
        println!(
            "RegisterMany, one call: {} entries in {:.3} s ({:.0} entries/s)",
            args.entries,
            secs,
            f64::from(args.entries) / secs
        );
        Ok(())
    })
}
