//! Why the server could not start or stopped: what was wrong and where.

use std::path::PathBuf;

/// Why the server could not start, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The settings cannot be served as given: the message names the
    /// setting and what it needs.
    #[error("{0}")]
    Settings(String),
    /// A file the settings name could not be read or written.
    #[error("{path}: {reason}")]
    File { path: PathBuf, reason: String },
    #[error("cannot reach {url}: {reason}")]
    Upstream { url: String, reason: String },
    #[error(transparent)]
    Log(#[from] felt_eventlog::LogError),
    #[error("the network: {0}")]
    Io(#[from] std::io::Error),
    #[error("the gRPC server: {0}")]
    Transport(#[from] tonic::transport::Error),
    #[error("the gRPC reflection service: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    #[error("tracing: {0}")]
    Telemetry(String),
}

impl ServeError {
    pub(crate) fn settings(message: impl Into<String>) -> ServeError {
        ServeError::Settings(message.into())
    }

    pub(crate) fn file(path: &std::path::Path, reason: impl std::fmt::Display) -> ServeError {
        ServeError::File {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        }
    }
}
