//! The conformance suite against the embedded (redb) log.

use std::sync::Arc;

use felt_eventlog::EmbeddedLog;
use felt_eventlog::conformance::Harness;

struct Embedded {
    dir: tempfile::TempDir,
    log: Option<Arc<EmbeddedLog>>,
}

impl Embedded {
    fn open(&self) -> Arc<EmbeddedLog> {
        Arc::new(EmbeddedLog::open(&self.dir.path().join("log.redb")).expect("open the log"))
    }
}

impl Harness for Embedded {
    type Log = EmbeddedLog;

    fn log(&self) -> Arc<EmbeddedLog> {
        self.log.clone().expect("an open log")
    }

    async fn restart(&mut self) {
        // Dropping the last handle stops the writer and closes the file.
        self.log = None;
        self.log = Some(self.open());
    }
}

async fn setup() -> Embedded {
    let mut h = Embedded {
        dir: tempfile::tempdir().expect("a temporary folder"),
        log: None,
    };
    h.log = Some(h.open());
    h
}

felt_eventlog::conformance_tests!(setup);
