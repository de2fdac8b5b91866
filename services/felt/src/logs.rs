//! Opening the event log a command reads: the embedded log in a data folder
//! (`--data`, default `felt-data`), or NATS JetStream (`--nats URL`).

use std::path::Path;

use felt_eventlog::{EmbeddedLog, NatsLog, NatsSettings};
use felt_table::TableEvent;

/// The embedded log's file in a data folder.
pub(crate) fn embedded_path(data: &Path) -> std::path::PathBuf {
    data.join("log.redb")
}

/// A table's events, from whichever log was named.
pub(crate) fn table_events(
    data: &Path,
    nats: Option<&str>,
    tournament: &str,
    table: &str,
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
