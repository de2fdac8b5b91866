//! Headless Chromium driven line by line by `tests/display/driver.cjs`
//! (playwright-core): the browser tests' pages, opened, waited on, read.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Headless Chromium behind the line-by-line driver.
pub(crate) struct Browser {
    child: Child,
    stdin: ChildStdin,
    out: BufReader<ChildStdout>,
}

impl Browser {
    pub(crate) fn start() -> Browser {
        let playwright = std::env::var_os("FELT_PLAYWRIGHT")
            .map(PathBuf::from)
            .unwrap_or_else(|| root().join("target/tools/npm/node_modules/playwright-core"));
        let chromium = std::env::var_os("FELT_CHROMIUM")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
        assert!(
            playwright.exists() && chromium.exists(),
            "the browser tests need playwright-core ({}) and Chromium ({}): scripts/test installs both",
            playwright.display(),
            chromium.display()
        );
        let mut child = Command::new("node")
            .arg(root().join("tests/display/driver.cjs"))
            .env("FELT_PLAYWRIGHT", &playwright)
            .env("FELT_CHROMIUM", &chromium)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start node with the browser driver");
        let stdin = child.stdin.take().expect("stdin");
        let out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut browser = Browser { child, stdin, out };
        let ready = browser.answer().expect("the browser starts");
        assert_eq!(ready, json!("ready"));
        browser
    }

    pub(crate) fn answer(&mut self) -> Result<Value, String> {
        let mut line = String::new();
        self.out.read_line(&mut line).expect("read the driver");
        let v: Value = serde_json::from_str(&line).map_err(|e| format!("{e}: {line:?}"))?;
        if v["ok"] == json!(true) {
            Ok(v["value"].clone())
        } else {
            Err(v["error"].as_str().unwrap_or("?").to_string())
        }
    }

    /// Sends a command and waits for its answer (off the async workers).
    pub(crate) fn call(&mut self, command: Value) -> Result<Value, String> {
        tokio::task::block_in_place(|| {
            writeln!(self.stdin, "{command}").expect("write to the driver");
            self.stdin.flush().expect("flush");
            self.answer()
        })
    }

    pub(crate) fn open(&mut self, tab: &str, url: &str) -> u64 {
        self.call(json!({"op": "open", "tab": tab, "url": url}))
            .unwrap_or_else(|e| panic!("open {url}: {e}"))
            .as_u64()
            .expect("a status")
    }

    pub(crate) fn resize(&mut self, tab: &str, url: &str, width: u32, height: u32) {
        self.call(json!({"op": "open", "tab": tab, "url": url, "width": width, "height": height}))
            .unwrap_or_else(|e| panic!("open {url}: {e}"));
    }

    pub(crate) fn wait(&mut self, tab: &str, selector: &str, contains: &str) {
        self.call(json!({"op": "wait", "tab": tab, "selector": selector, "contains": contains}))
            .unwrap_or_else(|e| panic!("{tab}: {e}"));
    }

    pub(crate) fn wait_exact(&mut self, tab: &str, selector: &str, equals: &str) {
        self.call(json!({"op": "wait", "tab": tab, "selector": selector, "equals": equals}))
            .unwrap_or_else(|e| panic!("{tab}: {e}"));
    }

    pub(crate) fn text(&mut self, tab: &str, selector: &str) -> String {
        self.call(json!({"op": "text", "tab": tab, "selector": selector}))
            .unwrap_or_else(|e| panic!("{tab}: {e}"))
            .as_str()
            .expect("text")
            .to_string()
    }

    pub(crate) fn fill(&mut self, tab: &str, selector: &str, value: &str) {
        self.call(json!({"op": "fill", "tab": tab, "selector": selector, "value": value}))
            .unwrap_or_else(|e| panic!("{tab}: {e}"));
    }

    /// A screenshot as a test artifact.
    pub(crate) fn screenshot(&mut self, tab: &str, name: &str) -> PathBuf {
        let dir = root().join("target/artifacts/display");
        std::fs::create_dir_all(&dir).expect("artifacts folder");
        let path = dir.join(name);
        self.call(json!({"op": "screenshot", "tab": tab, "path": path}))
            .unwrap_or_else(|e| panic!("{tab}: {e}"));
        let size = std::fs::metadata(&path).expect("the screenshot").len();
        assert!(size > 10_000, "{} is only {size} bytes", path.display());
        path
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "{}", json!({"op": "close"}));
        let _ = self.stdin.flush();
        std::thread::sleep(Duration::from_millis(200));
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
