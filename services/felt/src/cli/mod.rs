//! The command line's tools: each a subcommand of `felt`, none part of the
//! server library.

pub(crate) mod audit;
pub(crate) mod health;
pub(crate) mod payout;
pub(crate) mod phh;
pub(crate) mod sim;

use std::path::Path;

use felt::logs::embedded_path;
use felt_eventlog::{EmbeddedLog, NatsLog, NatsSettings};
use felt_table::TableEvent;

/// A table's events, from whichever log was named.
pub(crate) fn table_events(
    data: &Path,
    nats: Option<&str>,
    tournament: &str,
    table: felt_vocabulary::TableNo,
) -> anyhow::Result<Vec<TableEvent>> {
    let stream = felt_tablelog::stream(tournament, table)?;
    let path = embedded_path(data);
    anyhow::ensure!(
        nats.is_some() || path.is_file(),
        "no event log at {} (--data names the folder felt up or felt sim wrote, --nats a NATS server)",
        path.display()
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let events = runtime.block_on(async {
        match nats {
            Some(url) => {
                let log = NatsLog::connect(url, &NatsSettings::default()).await?;
                felt_tablelog::load(&log, &stream).await
            }
            None => {
                let log = EmbeddedLog::open(&path)?;
                felt_tablelog::load(&log, &stream).await
            }
        }
    })?;
    anyhow::ensure!(
        !events.is_empty(),
        "table {table} of {tournament} has no events"
    );
    Ok(events)
}
