//! `bench-app`: the app's start, its elicitation dialog and its memory, through the real window under Xvfb,
//! with the e2e harness (tauri-driver + WebKitWebDriver, each app in its own HOME, display and D-Bus). Prints tables;
//! nothing here is a test verdict. Run by `tests/e2e/bench.sh` (`make bench-app`).
//!
//! Every run starts the app (a release build) once, alternating between no servers (the empty window, the
//! baseline) and five (a native one, two node, two python), so both see the same machine:
//! - cold start: from the app's process spawn (a wrapper stamps the wall clock, then execs the app in the same
//!   process) to the window showing every server "ready" (or the empty list), noted by an observer in the page;
//! - elicitation: the python fixture's `whoami` behind `bench-app stamp-proxy`, which stamps the moment the request
//!   goes down Wharf's pipe; an observer in the page notes when the form dialog is visible;
//! - memory: VmHWM (and RSS, PSS) of the app and of its WebKit processes when the servers are ready and at the end
//!   of the session (servers listed apart).
//!
//! `bench-app chat` measures the window opening a long conversation instead (see `chat.rs`).
//!
//! Usage: bench-app [--starts N] [--elicitations K] [--app PATH]
//!        bench-app chat [--messages N] [--starts N] [--app PATH]
//!        (WHARF_BENCH_SMAPS=DIR also saves /proc/PID/smaps of the app and its WebKit processes at the end of each
//!        session, to see where their memory goes)
//!        bench-app stamp-proxy FILE -- COMMAND ARGS...   (used by the runs themselves)

mod chat;
mod page;
mod procs;
mod proxy;
mod report;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use wharf_e2e::{everything_server, repo_root, with_launch, Error, Home, Launch, Locator, Result};

/// Five servers on a loaded 2-core machine: node and python start in a second or two each; generous.
const READY_TIMEOUT: Duration = Duration::from_secs(120);
/// A WebDriver action and the UI's answer to it.
const UI: Duration = Duration::from_secs(30);
/// The server whose `whoami` elicits (behind the stamping proxy).
const ELICIT: &str = "py-elicit";
/// The servers of the full configuration.
const SERVERS: usize = 5;

/// Wall-clock time, Unix ms: the one clock the wrapper, the proxy and the page (`Date.now()`) share.
fn unix_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

struct Options {
    starts: usize,
    elicitations: usize,
    app: PathBuf,
    /// `bench-app chat`: the long conversation's length.
    chat: Option<usize>,
}

impl Options {
    fn parse(args: &[String]) -> std::result::Result<Options, String> {
        let mut options = Options {
            starts: 5,
            elicitations: 3,
            chat: None,
            app: std::env::var_os("WHARF_BENCH_APP")
                .map(PathBuf::from)
                .unwrap_or_else(|| target_dir().join("release/wharf-app")),
        };
        let mut args = args.iter().peekable();
        if args.peek().map(|a| a.as_str()) == Some("chat") {
            args.next();
            options.chat = Some(1000);
            options.starts = 3;
        }
        while let Some(arg) = args.next() {
            let mut value = || args.next().ok_or(format!("{arg} needs a value"));
            match arg.as_str() {
                "--starts" => options.starts = number(value()?)?,
                "--elicitations" => options.elicitations = number(value()?)?,
                "--messages" if options.chat.is_some() => options.chat = Some(number(value()?)?),
                "--app" => options.app = PathBuf::from(value()?),
                other => return Err(format!("unknown argument {other:?}")),
            }
        }
        if options.starts == 0 {
            return Err("--starts must be at least 1".into());
        }
        Ok(options)
    }
}

fn number(text: &str) -> std::result::Result<usize, String> {
    text.parse().map_err(|_| format!("not a number: {text:?}"))
}

fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => repo_root().join(dir),
        None => repo_root().join("target"),
    }
}

/// What a run needs, found once.
struct Setup {
    demo: PathBuf,
    python: PathBuf,
    py_server: PathBuf,
    everything: Value,
    node: Value,
    filesystem_js: PathBuf,
    me: PathBuf,
    /// Holds the wrapper script that stamps the spawn.
    _wrapper_dir: tempfile::TempDir,
}

/// One start of the app, and what it measured.
pub struct Run {
    /// The app process's start (Unix ms).
    spawn: f64,
    /// When the WebDriver session was open (Unix ms).
    session: f64,
    ready: page::Ready,
    /// (the proxy's stamp, the dialog shown), in order.
    dialogs: Vec<(f64, page::Shown)>,
    /// The app's processes when the window showed its servers ready, and at the end of the session (after the
    /// dialogs, when there were any).
    memory_at_ready: Vec<(procs::Part, procs::Proc)>,
    memory: Vec<(procs::Part, procs::Proc)>,
    /// The group's resident pages at the end, each counted once (`procs::distinct_resident_kib`).
    group_kib: Option<u64>,
    era: Option<String>,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("stamp-proxy") {
        return ExitCode::from(u8::try_from(proxy::run(&args[1..]).clamp(0, 255)).unwrap_or(1));
    }
    let options = match Options::parse(&args) {
        Ok(options) => options,
        Err(e) => {
            eprintln!(
                "bench-app: {e}\nusage: bench-app [--starts N] [--elicitations K] [--app PATH]\n       \
                 bench-app chat [--messages N] [--starts N] [--app PATH]"
            );
            return ExitCode::from(2);
        }
    };
    // Before the runtime's threads exist: the harness reads WHARF_APP_BIN, and the driver (so the wrapper) inherits
    // WHARF_BENCH_APP.
    let setup = match setup(&options) {
        Ok(setup) => setup,
        Err(e) => {
            eprintln!("bench-app: {e}");
            return ExitCode::FAILURE;
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("bench-app: no tokio runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let run = async {
        match options.chat {
            Some(messages) => {
                let chat = chat::ChatOptions {
                    messages,
                    starts: options.starts,
                };
                chat::bench(&chat).await
            }
            None => bench(&setup, &options).await,
        }
    };
    match runtime.block_on(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-app: {e}");
            ExitCode::FAILURE
        }
    }
}

fn setup(options: &Options) -> Result<Setup> {
    let app = options.app.canonicalize().map_err(|e| {
        Error::Setup(format!(
            "no app at {} ({e}): cd ui && npm run build, then cargo build --release -p wharf-app -p wharf-demo",
            options.app.display()
        ))
    })?;
    let demo = app.with_file_name("wharf-demo-server");
    let peers = std::env::var_os("WHARF_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".peers"));
    let python = peers.join("py/bin/python");
    let py_server = repo_root().join("tests/fixtures/py_server.py");
    let filesystem_js =
        peers.join("npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    for (path, how) in [
        (&demo, "cargo build --release -p wharf-demo"),
        (&python, "scripts/deps.sh (the python venv)"),
        (&filesystem_js, "scripts/deps.sh (the npm servers)"),
    ] {
        if !path.is_file() {
            return Err(Error::Setup(format!("no {}: {how}", path.display())));
        }
    }
    let everything = everything_server()?;
    let node = everything["command"].clone();
    let me = std::env::current_exe().map_err(|e| io_setup("finding bench-app itself", e))?;

    let wrapper_dir = tempfile::Builder::new()
        .prefix("wharf-bench-app-")
        .tempdir()
        .map_err(|e| io_setup("creating a temp dir", e))?;
    // The stamp is taken in the process the app then becomes (exec keeps the pid): the spawn, plus bash's start.
    let wrapper = wrapper_dir.path().join("wharf-app");
    std::fs::write(
        &wrapper,
        "#!/bin/bash\nprintf '%s\\n' \"$EPOCHREALTIME\" >> \"$WHARF_BENCH_SPAWN_STAMP\"\n\
         exec \"$WHARF_BENCH_APP\" \"$@\"\n",
    )
    .map_err(|e| io_setup("writing the spawn wrapper", e))?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| io_setup("chmod the spawn wrapper", e))?;
    }
    std::env::set_var("WHARF_APP_BIN", &wrapper);
    std::env::set_var("WHARF_BENCH_APP", &app);
    std::env::set_var("WHARF_DEMO_BIN", &demo);
    println!("bench-app: app {}", app.display());
    Ok(Setup {
        demo,
        python,
        py_server,
        everything,
        node,
        filesystem_js,
        me,
        _wrapper_dir: wrapper_dir,
    })
}

fn io_setup(what: &str, e: std::io::Error) -> Error {
    Error::Setup(format!("{what}: {e}"))
}

async fn bench(setup: &Setup, options: &Options) -> Result<()> {
    let (mut empty, mut full) = (Vec::new(), Vec::new());
    for i in 1..=options.starts {
        for servers in [0, SERVERS] {
            let started = Instant::now();
            let run = run_once(setup, servers, options.elicitations).await?;
            println!(
                "bench-app: start {i}/{}, {servers} servers: ready {:.0} ms after spawn{}, {} dialogs ({:.1} s)",
                options.starts,
                run.ready.at - run.spawn,
                if run.ready.already { " (already at first look)" } else { "" },
                run.dialogs.len(),
                started.elapsed().as_secs_f64()
            );
            if servers == 0 {
                empty.push(run);
            } else {
                full.push(run);
            }
        }
    }
    report::print(&empty, &full, SERVERS);
    Ok(())
}

fn config(setup: &Setup, servers: usize, home: &Home) -> Value {
    if servers == 0 {
        return json!({"servers": {}});
    }
    let stamps = home.path().join("elicit.stamps");
    json!({"servers": {
        "demo": {"command": setup.demo},
        "everything": setup.everything,
        "filesystem": {"command": setup.node, "args": [setup.filesystem_js, home.path().join("home")]},
        "python": {"command": setup.python, "args": [setup.py_server]},
        ELICIT: {
            "command": setup.me,
            "args": ["stamp-proxy", stamps, "--", setup.python, setup.py_server],
        },
    }})
}

async fn run_once(setup: &Setup, servers: usize, elicitations: usize) -> Result<Run> {
    let home = Home::new()?;
    let spawn_file = home.path().join("spawn.stamp");
    let stamps = home.path().join("elicit.stamps");
    let launch = Launch::config(config(setup, servers, &home))
        .home(&home)
        .env("WHARF_BENCH_SPAWN_STAMP", &spawn_file);
    let mut measured = None;
    let mut seen: Vec<(i32, String)> = Vec::new();
    with_launch(launch, async |app| {
        let session = unix_ms();
        page::watch_ready(app, servers).await?;
        let ready = page::ready(app, READY_TIMEOUT).await?;
        let spawn = read_spawn(&spawn_file)?;
        let pid = procs::app_pid(&home.path().join("home"))
            .ok_or_else(|| Error::Check("the app's process was not found in /proc".into()))?;
        let memory_at_ready = procs::tree(pid);
        let (dialogs, era) = if servers > 0 && elicitations > 0 {
            let era = app
                .text(Locator::Css(&format!(
                    r#"[data-testid="server-row"][data-server="{ELICIT}"] [data-testid="server-era"]"#
                )))
                .await?;
            (elicit(app, &stamps, elicitations).await?, era)
        } else {
            (Vec::new(), None)
        };
        let memory = procs::tree(pid);
        let group_kib = procs::distinct_resident_kib(&memory);
        if let Some(dir) = std::env::var_os("WHARF_BENCH_SMAPS") {
            procs::save_smaps(&memory, Path::new(&dir), servers);
        }
        seen = memory
            .iter()
            .map(|(_, p)| (p.pid, p.name.clone()))
            .collect();
        measured = Some(Run {
            spawn,
            session,
            ready,
            dialogs,
            memory_at_ready,
            memory,
            group_kib,
            era,
        });
        Ok(())
    })
    .await?;
    // The harness's close already checked the marked processes; WebKit's helpers may not carry the marker.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left: Vec<&(i32, String)> = seen
            .iter()
            .filter(|(pid, name)| procs::running(*pid, name))
            .collect();
        if left.is_empty() {
            break;
        }
        if Instant::now() >= deadline {
            return Err(Error::Check(format!(
                "processes left behind after the app closed: {left:?}"
            )));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    measured.ok_or_else(|| Error::Check("the run measured nothing".into()))
}

/// The wrapper's stamp: `$EPOCHREALTIME`, seconds with microseconds (a comma in some locales).
fn read_spawn(file: &Path) -> Result<f64> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Error::Check(format!("no spawn stamp at {}: {e}", file.display())))?;
    let seconds: f64 = text
        .lines()
        .last()
        .unwrap_or_default()
        .trim()
        .replace(',', ".")
        .parse()
        .map_err(|_| Error::Check(format!("a spawn stamp that is not a time: {text:?}")))?;
    Ok(seconds * 1000.0)
}

fn stamp_lines(file: &Path) -> Vec<f64> {
    std::fs::read_to_string(file)
        .map(|text| text.lines().filter_map(|l| l.trim().parse().ok()).collect())
        .unwrap_or_default()
}

/// Runs `whoami` `count` times: each time the form dialog's appearance is timed against the proxy's stamp, then
/// the form is cancelled (a declined question is not asked again in a session) and the call's end awaited, so the next one starts from a quiet window.
async fn elicit(
    app: &wharf_e2e::App,
    stamps: &Path,
    count: usize,
) -> Result<Vec<(f64, page::Shown)>> {
    let button = format!(
        r#"//li[@data-testid="server-row"][@data-server="{ELICIT}"]//button[normalize-space()="{ELICIT}"]"#
    );
    app.click(Locator::XPath(&button), UI).await?;
    app.click(
        Locator::Css(r#"[data-testid="tool-item"][data-tool="whoami"]"#),
        UI,
    )
    .await?;
    app.wait_for(
        Locator::Css(r#"[data-testid="tool-form"][data-tool="whoami"]"#),
        UI,
    )
    .await?;
    let run = Locator::Css(r#"[data-testid="tool-run"]"#);
    let mut out = Vec::new();
    for _ in 0..count {
        let before = stamp_lines(stamps).len();
        page::watch_dialog(app).await?;
        app.click(run, UI).await?;
        let shown = match page::dialog(app, UI).await {
            Ok(shown) => shown,
            Err(e) => return Err(Error::Check(format!("{e}; {}", page::describe(app).await))),
        };
        // The proxy writes its stamp before it forwards the line, so it is there by now.
        let stamp = stamp_lines(stamps).get(before).copied().ok_or_else(|| {
            Error::Check(format!(
                "the dialog showed but the proxy stamped no request (stamps: {:?})",
                stamp_lines(stamps)
            ))
        })?;
        out.push((stamp, shown));
        app.click(
            Locator::Css(r#"[data-testid="dialog-host"] [data-testid="dialog-cancel"]"#),
            UI,
        )
        .await?;
        app.wait_gone(Locator::Css(r#"[data-testid="dialog-host"]"#), UI)
            .await?;
        app.wait_until("the cancelled call to end", UI, async || {
            let enabled = app.count(run).await? == 1 && app.attr(run, "disabled").await?.is_none();
            Ok(enabled.then_some(()))
        })
        .await?;
    }
    Ok(out)
}
