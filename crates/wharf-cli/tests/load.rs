//! Load with crashes: 10,000 tool calls through `wharf session` across 10 demo servers, 64 in flight, while 5 of the
//! servers are killed with SIGKILL at random moments and restarted by the host. Every call gets exactly one reply
//! (the right echo, or an error saying the server stopped), none hangs, and every server runs again at the end.
//!
//! The moments and the servers are drawn from a seed printed at the start; `WHARF_LOAD_SEED=<seed>` replays them.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;
#[path = "../../wharf-core/tests/support/seeded.rs"]
mod seeded;

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use peers::*;
use seeded::XorShift;
use serde_json::{json, Value};

const CALLS: u64 = 10_000;
const SERVERS: usize = 10;
/// Servers `s0`..`s4` are killed; the others only carry load.
const CRASHED: usize = 5;
const IN_FLIGHT: u64 = 64;
/// Each crashed server is killed once or twice: twice restarts after a longer backoff, and five quick crashes in a row
/// would make the host give up on it (by design).
const MAX_KILLS_EACH: u64 = 2;
/// The whole run, restarts included, ends well within this; a call still open then is a hang.
const DEADLINE: Duration = Duration::from_secs(90);
const SEED_VAR: &str = "WHARF_LOAD_SEED";

fn server_name(i: usize) -> String {
    format!("s{i}")
}

/// A kill due once this many replies have come: of `server`, once it runs a process not killed before.
struct Kill {
    after_replies: u64,
    server: usize,
}

fn plan_kills(rng: &mut XorShift) -> Vec<Kill> {
    let mut kills = Vec::new();
    for server in 0..CRASHED {
        for _ in 0..1 + rng.below(MAX_KILLS_EACH) {
            // Not in the first or last stretch, so that the run carries load on both sides of every kill.
            let after_replies = CALLS / 20 + rng.below(CALLS * 8 / 10);
            kills.push(Kill {
                after_replies,
                server,
            });
        }
    }
    kills.sort_by_key(|k| k.after_replies);
    kills
}

fn call(id: u64, server: usize) -> Value {
    let message = format!("call {id} to {}", server_name(server));
    json!({"id": id, "cmd": "call", "server": server_name(server), "tool": "echo", "args": {"message": message}})
}

fn pids(rows: &Value) -> HashMap<String, Option<u32>> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|row| {
            let pid = row["pid"].as_u64().map(|p| p as u32);
            (row["name"].as_str().unwrap().to_string(), pid)
        })
        .collect()
}

#[test]
fn ten_thousand_calls_while_servers_crash_each_get_one_answer() {
    let seed = seeded::seed("load test", SEED_VAR);
    let mut rng = XorShift(seed);
    let mut kills = plan_kills(&mut rng);
    let planned = kills.len();

    let demo = demo_server();
    let servers: serde_json::Map<String, Value> = (0..SERVERS)
        .map(|i| (server_name(i), stdio_server(&demo, &[])))
        .collect();
    let scratch = Scratch::new(json!({ "servers": servers }));
    let mut session = scratch.session();
    session.wait_for_nth("every server ready", SERVERS, |v| {
        v["event"] == "server_status" && v["status"] == "ready"
    });

    let started = Instant::now();
    let deadline = started + DEADLINE;
    // The server each call went to; removed when its reply comes.
    let mut open: HashMap<u64, usize> = HashMap::new();
    let mut sent = 0u64;
    let mut replies = 0u64;
    let mut failed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut killed: Vec<(String, u32)> = Vec::new();
    let mut query: Option<String> = None;
    let mut queries = 0;
    let mut send_next = |session: &mut Session, open: &mut HashMap<u64, usize>, sent: &mut u64| {
        *sent += 1;
        let server = rng.below(SERVERS as u64) as usize;
        session.send(call(*sent, server));
        open.insert(*sent, server);
    };
    for _ in 0..IN_FLIGHT {
        send_next(&mut session, &mut open, &mut sent);
    }
    while replies < CALLS {
        let Some(line) = session.next_line(deadline) else {
            let mut left: Vec<_> = open.iter().collect();
            left.sort();
            panic!(
                "after {:.1?}, {} calls are unanswered (id, server index): {:?}; seed {seed}",
                started.elapsed(),
                left.len(),
                &left[..left.len().min(50)]
            );
        };
        if line.get("event").is_some() {
            continue;
        }
        // The answer to a `servers` query: kill the due server if it runs a process not killed before.
        if let Some(q) = query.as_deref().filter(|q| line["id"] == *q) {
            assert_eq!(line["ok"], true, "{q}: {line}");
            query = None;
            let name = server_name(kills[0].server);
            let pid = pids(&line["result"])[&name];
            if let Some(pid) = pid.filter(|p| !killed.iter().any(|k| k.1 == *p)) {
                let status = std::process::Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status()
                    .unwrap();
                assert!(status.success(), "kill -KILL {pid} ({name})");
                println!(
                    "load test: killed {name} (pid {pid}) after {replies} replies, {:.2?} in",
                    started.elapsed()
                );
                killed.push((name, pid));
                kills.remove(0);
            }
            continue;
        }
        let id = line["id"]
            .as_u64()
            .unwrap_or_else(|| panic!("a reply to no call: {line}"));
        let server = open
            .remove(&id)
            .unwrap_or_else(|| panic!("call {id} answered twice, or never sent: {line}"));
        replies += 1;
        let name = server_name(server);
        if line["ok"] == true {
            let expected = format!("echo: call {id} to {name}");
            assert_eq!(
                line["result"]["content"][0]["text"], expected,
                "call {id}: {line}"
            );
        } else {
            // Only a crash may fail a call, only on a server that is killed, and the message says so.
            assert!(server < CRASHED, "call {id} to {name} failed: {line}");
            let message = line["error"]["message"].as_str().unwrap();
            assert_eq!(
                line["error"]["code"], "closed",
                "call {id} to {name}: {line}"
            );
            assert!(
                message.contains("killed") || message.contains("signal"),
                "call {id} to {name}: {message}"
            );
            failed.entry(name).or_default().push(message.to_string());
        }
        if sent < CALLS {
            send_next(&mut session, &mut open, &mut sent);
        }
        if query.is_none() && kills.first().is_some_and(|k| replies >= k.after_replies) {
            queries += 1;
            let q = format!("servers-{queries}");
            session.send(json!({"id": q, "cmd": "servers"}));
            query = Some(q);
        }
    }
    let elapsed = started.elapsed();
    assert!(open.is_empty(), "unanswered: {open:?}");
    assert_eq!(
        killed.len(),
        planned,
        "kills not done (their servers never came back?): {:?}; seed {seed}",
        kills.iter().map(|k| k.server).collect::<Vec<_>>()
    );

    // Every server runs again, the killed ones in a new process.
    session.send(json!({"id": "final", "cmd": "servers"}));
    let rows = session.wait_for("the final servers", |v| v["id"] == "final");
    for row in rows["result"].as_array().unwrap() {
        assert_eq!(row["status"], "ready", "{row}");
    }
    let now = pids(&rows["result"]);
    for (name, pid) in &killed {
        assert!(
            now[name].is_some_and(|p| p != *pid),
            "{name} still has pid {pid} or none: {now:?}"
        );
    }
    let (status, lines) = session.quit_and_collect();
    assert!(status.success());
    // Nothing answered after the fact either: each call id has exactly one reply in all the session wrote.
    let mut answers: HashMap<u64, usize> = HashMap::new();
    for id in lines.iter().filter_map(|l| l["id"].as_u64()) {
        *answers.entry(id).or_default() += 1;
    }
    assert_eq!(answers.len() as u64, CALLS);
    assert!(answers.values().all(|n| *n == 1), "an id answered twice");
    // The host saw each crash and restarted the server (the user was told).
    for (name, _) in &killed {
        let kills = killed.iter().filter(|k| &k.0 == name).count();
        let restarts = lines
            .iter()
            .filter(|l| {
                l["event"] == "server_status" && l["server"] == *name && l["status"] == "restarting"
            })
            .count();
        assert_eq!(
            restarts, kills,
            "{name}: {restarts} restarts for {kills} kills"
        );
    }
    println!(
        "load test: {CALLS} calls across {SERVERS} servers ({IN_FLIGHT} in flight) in {elapsed:.2?} \
         ({:.0} calls/s), {} kills, failed calls per server: {:?} (e.g. {:?}), seed {seed}",
        CALLS as f64 / elapsed.as_secs_f64(),
        killed.len(),
        failed.iter().map(|(s, m)| (s, m.len())).collect::<BTreeMap<_, _>>(),
        failed.values().flatten().next(),
    );
}
