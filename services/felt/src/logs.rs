//! Where the event log a command reads is: the embedded log in a data
//! folder (`--data`, default `felt-data`), or NATS JetStream (`--nats URL`).

use std::path::Path;

/// The embedded log's file in a data folder.
pub fn embedded_path(data: &Path) -> std::path::PathBuf {
    data.join("log.redb")
}
