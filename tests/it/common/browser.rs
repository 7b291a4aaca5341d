//! Headless Chromium (Debian's `chromium`, installed by scripts/test.sh) for
//! the tests of what people look at: the DOM after the page's script ran,
//! what it wrote to the console, and a screenshot.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Chromium binary on PATH, if any.
pub fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|b| std::env::split_paths(&path).map(move |d| d.join(b)))
        .find(|p| p.is_file())
}

/// What Chromium made of a page.
pub struct Page {
    /// The DOM once the page's scripts ran.
    pub dom: String,
    /// Every console message the page logged (errors included).
    pub console: Vec<String>,
}

fn run(chrome: &Path, profile: &Path, args: &[String], page: &Path) -> (String, String) {
    let out = Command::new(chrome)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("running chromium");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Opens `page` (absolute) in headless Chromium: its DOM after the scripts
/// ran and its console messages; with `screenshot`, a PNG of the first
/// `width`×`height` pixels is written there too.
pub fn open(page: &Path, screenshot: Option<(&Path, u32, u32)>) -> Page {
    let chrome = chromium().expect("chromium on PATH");
    let profile = tempfile::tempdir().unwrap();
    let (dom, log) = run(&chrome, profile.path(), &["--dump-dom".into()], page);
    let mut console: Vec<String> = log
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    if let Some((png, w, h)) = screenshot {
        let (_, log) = run(
            &chrome,
            profile.path(),
            &[
                format!("--screenshot={}", png.display()),
                format!("--window-size={w},{h}"),
            ],
            page,
        );
        console.extend(
            log.lines()
                .filter(|l| l.contains(":CONSOLE"))
                .map(str::to_string),
        );
        let bytes = std::fs::read(png).expect("chromium wrote the screenshot");
        assert!(bytes.starts_with(b"\x89PNG") && bytes.len() > 1000, "a PNG");
    }
    Page { dom, console }
}

/// Copies `png` to `$RUDDER_SCREENSHOTS/name` when that folder is set (how
/// the README's screenshots are made: `RUDDER_SCREENSHOTS=docs cargo test`).
pub fn keep_screenshot(png: &Path, name: &str) {
    if let Some(dir) = std::env::var_os("RUDDER_SCREENSHOTS") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(png, dir.join(name)).unwrap();
    }
}
