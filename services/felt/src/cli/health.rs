//! `felt health`: asks a felt process whether it serves (the gRPC health
//! protocol every felt process answers), for scripts, Compose and systemd.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Args;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

#[derive(Debug, Args)]
pub(crate) struct HealthArgs {
    /// The process's URL.
    #[arg(long, default_value = "http://127.0.0.1:7070")]
    url: String,
    /// One service of the process (e.g. felt.v1.TableService); none: the
    /// process as a whole.
    #[arg(long, default_value = "")]
    service: String,
    /// Ask again for up to this many seconds until it serves.
    #[arg(long, default_value_t = 0)]
    wait: u64,
}

async fn ask(url: &str, service: &str) -> Result<ServingStatus, String> {
    let channel = tonic::transport::Endpoint::from_shared(url.to_string())
        .map_err(|e| format!("{url}: {e}"))?
        .connect_timeout(Duration::from_secs(2))
        .timeout(Duration::from_secs(2))
        .connect()
        .await
        .map_err(|e| format!("cannot reach {url}: {e}"))?;
    let answer = HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: service.to_string(),
        })
        .await
        .map_err(|s| format!("{url}: {}", s.message()))?;
    Ok(answer.into_inner().status())
}

pub(crate) fn run(args: &HealthArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let deadline = Instant::now() + Duration::from_secs(args.wait);
        loop {
            let answer = ask(&args.url, &args.service).await;
            match answer {
                Ok(ServingStatus::Serving) => {
                    println!("{} serving", args.url);
                    return Ok(ExitCode::SUCCESS);
                }
                _ if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Ok(status) => {
                    eprintln!("{} is {}", args.url, status.as_str_name().to_lowercase());
                    return Ok(ExitCode::FAILURE);
                }
                Err(e) => {
                    eprintln!("{e}");
                    return Ok(ExitCode::FAILURE);
                }
            }
        }
    })
}
